// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks forked inside a cpu cgroup stay in it, controlling tty or not.
 *
 * A session leader with a fresh pty as controlling terminal forks a hog
 * (which starts a second, spinning thread) into /dstest/lo, either by a
 * plain fork() after moving itself there, or by clone3() with
 * CLONE_INTO_CGROUP from the root cgroup. The hog and its thread must be
 * scheduled in /dstest/lo, not in /ttygroup-ptsN or the root group, with
 * the sysctl at 1 and at 0; they still belong to the terminal
 * (/proc/<pid>/ttygroup). Then the cgroup's limits must hold: at
 * cpu.weight 1 against a sibling /dstest/hi at weight 100 running one hog
 * on the same CPU, and alone under cpu.max 10000 100000.
 *
 * Meant for boots with noautogroup (the fallback group is then "/").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"

#define CG_LO		TT_CGROUP "/lo"
#define CG_HI		TT_CGROUP "/hi"
#define SECONDS		3.0

/*
 * A failed ASSERT_*() longjmp()s out of the test, and built at -O2 the
 * harness then skips the teardown (the -Wclobbered of tt_harness.h: its
 * "child" comes back as 1), leaving /dstest/lo behind for the next test.
 * In the test bodies: EXPECT, and return to the teardown if anything
 * failed so far (so a failed group check, which must not stop the
 * measurement, is only EXPECTed at the end).
 */
#define REQUIRE(expect) do {					\
		expect;						\
		if (!__test_passed(_metadata))			\
			return;					\
	} while (0)

FIXTURE(cgfork) {
	struct tt_state st;
	struct tt_pty pty;
	int cpu;
};

FIXTURE_VARIANT(cgfork) {
	int sysctl;		/* value of the sysctl during the test */
	int clone3;		/* 1: clone3(CLONE_INTO_CGROUP), 0: fork() */
};

FIXTURE_VARIANT_ADD(cgfork, fork_on) { .sysctl = 1, .clone3 = 0 };
FIXTURE_VARIANT_ADD(cgfork, fork_off) { .sysctl = 0, .clone3 = 0 };
FIXTURE_VARIANT_ADD(cgfork, clone3_on) { .sysctl = 1, .clone3 = 1 };
FIXTURE_VARIANT_ADD(cgfork, clone3_off) { .sysctl = 0, .clone3 = 1 };

/* Move what is left in @cg to the root cgroup and remove it. */
static void remove_cgroup(const char *cg)
{
	char path[TT_PATH_MAX], buf[4096], *line, *save = NULL;
	struct stat sb;
	double end;

	if (stat(cg, &sb))
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	if (tt_read_file(path, buf, sizeof(buf)) > 0)
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			tt_write_str(TT_CGROOT "/cgroup.procs", line);
	end = mono_seconds() + 3;
	while (rmdir(cg) && errno == EBUSY && mono_seconds() < end)
		tt_sleep(0.05);
}

FIXTURE_SETUP(cgfork)
{
	char err[256];
	int ret = tt_setup(&self->st, err, sizeof(err));

	if (ret)
		TH_LOG("setup: %s", err);
	ASSERT_EQ(0, ret);
	self->cpu = tt_first_cpu();
	ASSERT_LE(0, self->cpu);
	ASSERT_EQ(0, tt_sysctl_set(variant->sysctl));

	ret = tt_cgroup_create(&self->st);
	if (ret)
		TH_LOG("creating %s with +cpu: %s", TT_CGROUP, strerror(-ret));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, tt_write_str(TT_CGROUP "/cgroup.subtree_control", "+cpu"));
	/* Fresh children: an earlier test may have left its own. */
	remove_cgroup(CG_LO);
	remove_cgroup(CG_HI);
	ASSERT_EQ(0, mkdir(CG_LO, 0755));
	ASSERT_EQ(0, mkdir(CG_HI, 0755));
	ASSERT_EQ(0, tt_pty_open(&self->pty));
}

FIXTURE_TEARDOWN(cgfork)
{
	char err[256];
	int ret;

	/* tt_teardown() removes TT_CGROUP, which needs its children gone. */
	tt_kill_all();
	remove_cgroup(CG_LO);
	remove_cgroup(CG_HI);
	ret = tt_teardown(&self->st, err, sizeof(err));
	if (ret)
		TH_LOG("teardown: %s", err);
	EXPECT_EQ(0, ret);
}

static void *spin_thread(void *arg)
{
	(void)arg;
	for (;;)
		;
	return NULL;
}

/* The hog: pinned, one more spinning thread, and spin. */
static void __attribute__((noreturn)) hog(int cpu, int threads)
{
	pthread_t th;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "dscghog");
	if (tt_pin(cpu))
		_exit(1);
	if (threads && pthread_create(&th, NULL, spin_thread, NULL))
		_exit(1);
	spin_thread(NULL);
	_exit(0);
}

static pid_t clone3_into(int cgfd)
{
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_INTO_CGROUP;
	args.exit_signal = SIGCHLD;
	args.cgroup = cgfd;
	return syscall(SYS_clone3, &args, sizeof(args));
}

/*
 * The terminal: a new session with @p as controlling tty, which forks the
 * hog into /dstest/lo (by fork() once it moved itself there, or from the
 * root cgroup by clone3(CLONE_INTO_CGROUP)), reports the hog's pid on
 * @fd (a negative errno on failure) and waits.
 */
static void __attribute__((noreturn)) terminal(const struct tt_pty *p,
					       int use_clone3, int cpu, int fd)
{
	int tty, cgfd = -1, ret = 0;
	pid_t pid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGHUP, SIG_IGN);
	if (setsid() < 0)
		ret = -errno;
	if (!ret) {
		/* Kept open: the hog holds the terminal too. */
		tty = open(p->slave, O_RDWR);
		if (tty < 0)
			ret = -errno;
	}
	if (!ret && use_clone3) {
		cgfd = open(CG_LO, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0)
			ret = -errno;
	} else if (!ret) {
		ret = tt_write_str(CG_LO "/cgroup.procs", "0");
	}
	if (!ret) {
		pid = use_clone3 ? clone3_into(cgfd) : fork();
		if (!pid) {
			close(fd);
			hog(cpu, 1);
		}
		ret = pid < 0 ? -errno : pid;
		tt_register(pid);
	}
	if (write(fd, &ret, sizeof(ret)) != sizeof(ret))
		_exit(1);
	close(fd);
	for (;;)
		pause();
}

/* A hog without a terminal, in /dstest/hi once this returns. */
static pid_t start_hi_hog(struct __test_metadata *_metadata, int cpu)
{
	int fds[2], ret = -1;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(fds[0]);
		setsid();
		ret = tt_write_str(CG_HI "/cgroup.procs", "0");
		if (write(fds[1], &ret, sizeof(ret)) != sizeof(ret) || ret)
			_exit(1);
		close(fds[1]);
		hog(cpu, 0);
	}
	close(fds[1]);
	if (pid < 0) {
		TH_LOG("fork: %s", strerror(errno));
		close(fds[0]);
		return -1;
	}
	tt_register(pid);
	if (read(fds[0], &ret, sizeof(ret)) != sizeof(ret) || ret) {
		TH_LOG("hog %d: cannot join %s: %d", pid, CG_HI, ret);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

/* /proc/<pid>/cgroup reads "0::@want\n". */
static int check_cgroup(struct __test_metadata *_metadata, pid_t pid,
			const char *want)
{
	char path[64], buf[256], exp[TT_PATH_MAX + 8];

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	snprintf(exp, sizeof(exp), "0::%s\n", want);
	if (tt_read_file(path, buf, sizeof(buf)) < 0) {
		TH_LOG("read %s: %s", path, strerror(errno));
		return -1;
	}
	if (strcmp(buf, exp)) {
		TH_LOG("%s reads '%.*s', expected '0::%s'", path,
		       (int)strcspn(buf, "\n"), buf, want);
		return -1;
	}
	return 0;
}

/*
 * Start the terminal and its hog: the hog's pid, or -1. Then check that
 * the hog and its threads are in /dstest/lo, in the cgroup tree and for
 * the scheduler, and still members of the terminal: *@bad is set if not,
 * so that the caller still measures what the escape costs.
 */
static pid_t start_session(struct __test_metadata *_metadata,
			   FIXTURE_DATA(cgfork) *self,
			   const FIXTURE_VARIANT(cgfork) *variant, int *bad)
{
	char groups[4][TT_PATH_MAX];
	pid_t term, pid, tids[4];
	int fds[2], ret, n, i;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	fflush(stdout);
	term = fork();
	if (!term) {
		close(fds[0]);
		terminal(&self->pty, variant->clone3, self->cpu, fds[1]);
	}
	close(fds[1]);
	if (term < 0) {
		close(fds[0]);
		return -1;
	}
	tt_register(term);
	n = read(fds[0], &ret, sizeof(ret));
	close(fds[0]);
	if (n != sizeof(ret) || ret <= 0) {
		TH_LOG("terminal: %s", n == sizeof(ret) ?
		       strerror(-ret) : "no reply");
		return -1;
	}
	pid = ret;

	/* Both threads up: the second one is forked inside the cgroup too. */
	for (i = 0; i < 100; i++) {
		n = tt_tids(pid, tids, 4);
		if (n >= 2)
			break;
		tt_sleep(0.02);
	}
	if (n != 2) {
		TH_LOG("hog %d has %d threads, expected 2", pid, n);
		return -1;
	}
	ksft_print_msg("%s, sysctl %d: terminal %d, hog %d (tids %d %d)\n",
		       variant->clone3 ? "clone3(CLONE_INTO_CGROUP)" : "fork()",
		       variant->sysctl, term, pid, tids[0], tids[1]);

	*bad = 0;
	*bad |= check_cgroup(_metadata, pid, "/dstest/lo");
	*bad |= check_cgroup(_metadata, term,
			     variant->clone3 ? "/" : "/dstest/lo");
	/* The tty has a group, and the hog belongs to it... */
	*bad |= check_proc(_metadata, &pid, 1, self->pty.line, 0);
	*bad |= check_proc(_metadata, &term, 1, self->pty.line, 0);
	/* ... but is scheduled in its cgroup. */
	if (tt_sched_groups(tids, 2, groups) == 2)
		ksft_print_msg("hog threads scheduled in '%s' and '%s'\n",
			       groups[0], groups[1]);
	*bad |= check_sched(_metadata, tids, 2, "/dstest/lo", 0);
	/* The terminal in the root cgroup is in its tty group (or not). */
	if (variant->clone3)
		*bad |= check_sched(_metadata, &term, 1,
				    variant->sysctl ? self->pty.group : NULL, 0);
	else
		*bad |= check_sched(_metadata, &term, 1, "/dstest/lo", 0);
	return pid;
}

/* CPU time of @n processes over @seconds of wall time, in ns. */
static int measure(const pid_t *pids, int n, double seconds, double *ns,
		   double *wall)
{
	double start[4], t0;
	int i;

	for (i = 0; i < n; i++) {
		start[i] = tt_cpu_ns(pids[i]);
		if (start[i] < 0)
			return -1;
	}
	t0 = mono_seconds();
	tt_sleep(seconds);
	for (i = 0; i < n; i++) {
		ns[i] = tt_cpu_ns(pids[i]);
		if (ns[i] < 0)
			return -1;
		ns[i] -= start[i];
	}
	*wall = mono_seconds() - t0;
	return 0;
}

/*
 * cpu.weight 1 against a sibling at 100, one CPU: the terminal's hog gets
 * about 1/101 of it (0.9% on stock 6.12), not half.
 */
TEST_F(cgfork, weight)
{
	double ns[2], wall, share;
	pid_t pids[2];
	int bad;

	REQUIRE(EXPECT_EQ(0, tt_write_str(CG_LO "/cpu.weight", "1")));
	REQUIRE(EXPECT_EQ(0, tt_write_str(CG_HI "/cpu.weight", "100")));
	pids[1] = start_hi_hog(_metadata, self->cpu);
	REQUIRE(EXPECT_LT(0, pids[1]));
	pids[0] = start_session(_metadata, self, variant, &bad);
	REQUIRE(EXPECT_LT(0, pids[0]));
	REQUIRE(EXPECT_EQ(0, check_cgroup(_metadata, pids[1], "/dstest/hi")));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, &pids[1], 1, "/dstest/hi", 0)));

	REQUIRE(EXPECT_EQ(0, measure(pids, 2, SECONDS, ns, &wall)));
	share = ns[0] / (ns[0] + ns[1]);
	ksft_print_msg("weight 1 vs 100, sysctl %d, %s: share %.4f (ideal 0.0099), cpu_ms %.1f vs %.1f in %.2f s\n",
		       variant->sysctl, variant->clone3 ? "clone3" : "fork",
		       share, ns[0] / 1e6, ns[1] / 1e6, wall);
	/* Both hogs on one CPU kept it busy, else the share means nothing. */
	EXPECT_GT((ns[0] + ns[1]) / 1e9, 0.5 * wall);
	EXPECT_LE(share, 0.05);
	EXPECT_EQ(0, bad);
}

/* cpu.max 10000 100000: the hog, alone on its CPU, gets 10% of it. */
TEST_F(cgfork, cpu_max)
{
	double ns, wall, share;
	struct stat sb;
	pid_t pid;
	int bad;

	if (stat(CG_LO "/cpu.max", &sb))
		TH_LOG("%s/cpu.max: %s (kernel without CONFIG_CFS_BANDWIDTH?)",
		       CG_LO, strerror(errno));
	REQUIRE(EXPECT_EQ(0, tt_write_str(CG_LO "/cpu.max", "10000 100000")));
	pid = start_session(_metadata, self, variant, &bad);
	REQUIRE(EXPECT_LT(0, pid));

	REQUIRE(EXPECT_EQ(0, measure(&pid, 1, SECONDS, &ns, &wall)));
	share = ns / 1e9 / wall;
	ksft_print_msg("cpu.max 10000 100000, sysctl %d, %s: CPU %.4f of one (ideal 0.10), cpu_ms %.1f in %.2f s\n",
		       variant->sysctl, variant->clone3 ? "clone3" : "fork",
		       share, ns / 1e6, wall);
	EXPECT_LE(share, 0.15);
	EXPECT_GE(share, 0.03);
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks in a cpu cgroup stay inside it, controlling tty or not: a tty's
 * group nests below the cgroup.
 *
 * cgfork: a session leader with a fresh pty as controlling terminal forks
 * a hog (which starts a second, spinning thread) into /dstest/lo, either
 * by a plain fork() after moving itself there, or by clone3() with
 * CLONE_INTO_CGROUP from the root cgroup. The hog and its thread must be
 * scheduled in /dstest/lo/ttygroup-ptsN with the sysctl at 1 and in
 * /dstest/lo at 0, never in /ttygroup-ptsN or the root group; /proc shows
 * the nested group either way. Then the cgroup's limits must hold: at
 * cpu.weight 1 against a sibling /dstest/hi at weight 100 running one hog
 * on the same CPU, and alone under cpu.max 10000 100000.
 *
 * nest: two terminals in one cgroup, one hog against ten, share the
 * cgroup's time about evenly with the sysctl at 1 (1/11 at 0), both
 * together within the cgroup's cpu.max, renicing one acts inside the
 * cgroup, and the nested groups go with the cgroup, whether it is removed
 * or its cpu controller is turned off under running tasks.
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
#include "proc.h"
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

/*
 * The common setup: the tty test state, the sysctl at @sysctl, TT_CGROUP
 * with the cpu controller for its children, and a fresh CG_LO (an earlier
 * test may have left its own). Returns the CPU the hogs run on.
 */
static int setup_lo(struct __test_metadata *_metadata, struct tt_state *st,
		    int sysctl)
{
	char err[256];
	int ret = tt_setup(st, err, sizeof(err)), cpu;

	if (ret)
		TH_LOG("setup: %s", err);
	ASSERT_EQ(0, ret);
	cpu = tt_first_cpu();
	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, tt_sysctl_set(sysctl));

	ret = tt_cgroup_create(st);
	if (ret)
		TH_LOG("creating %s with +cpu: %s", TT_CGROUP, strerror(-ret));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, tt_write_str(TT_CGROUP "/cgroup.subtree_control", "+cpu"));
	remove_cgroup(CG_LO);
	ASSERT_EQ(0, mkdir(CG_LO, 0755));
	return cpu;
}

FIXTURE_SETUP(cgfork)
{
	self->cpu = setup_lo(_metadata, &self->st, variant->sysctl);
	remove_cgroup(CG_HI);
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
	char groups[4][TT_PATH_MAX], nested[TT_PATH_MAX + 16];
	char nested_line[TT_PATH_MAX + 16];
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

	/*
	 * Both threads up: the second one is forked inside the cgroup too.
	 * In the weight 1 cgroup beside a hog of weight 100 that takes up to
	 * 100 times as long: 2 s were not always enough under TCG.
	 */
	for (i = 0; i < 500; i++) {
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

	snprintf(nested, sizeof(nested), "/dstest/lo%s", self->pty.group);
	snprintf(nested_line, sizeof(nested_line), "/dstest/lo%s",
		 self->pty.line);
	*bad = 0;
	*bad |= check_cgroup(_metadata, pid, "/dstest/lo");
	*bad |= check_cgroup(_metadata, term,
			     variant->clone3 ? "/" : "/dstest/lo");
	/* The tty has a group in each cgroup, and the hog belongs to it... */
	*bad |= check_proc(_metadata, &pid, 1, nested_line, 0);
	*bad |= check_proc(_metadata, &term, 1,
			   variant->clone3 ? self->pty.line : nested_line, 0);
	/* ... scheduled there with the sysctl at 1, in the cgroup at 0. */
	if (tt_sched_groups(tids, 2, groups) == 2)
		ksft_print_msg("hog threads scheduled in '%s' and '%s'\n",
			       groups[0], groups[1]);
	*bad |= check_sched(_metadata, tids, 2,
			    variant->sysctl ? nested : "/dstest/lo", 0);
	/* The terminal in the root cgroup is in its tty group (or not). */
	if (variant->clone3)
		*bad |= check_sched(_metadata, &term, 1,
				    variant->sysctl ? self->pty.group : NULL, 0);
	else
		*bad |= check_sched(_metadata, &term, 1,
				    variant->sysctl ? nested : "/dstest/lo", 0);
	return pid;
}

/* CPU time of @n (up to 16) processes over @seconds of wall time, in ns. */
static int measure(const pid_t *pids, int n, double seconds, double *ns,
		   double *wall)
{
	double start[16], t0;
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

FIXTURE(nest) {
	struct tt_state st;
	struct tt_pty a, b;
	int cpu;
	char group_a[TT_PATH_MAX + 16];	/* "/dstest/lo/ttygroup-ptsA" */
	char group_b[TT_PATH_MAX + 16];
};

FIXTURE_VARIANT(nest) {
	int sysctl;
};

FIXTURE_VARIANT_ADD(nest, on) { .sysctl = 1 };
FIXTURE_VARIANT_ADD(nest, off) { .sysctl = 0 };

FIXTURE_SETUP(nest)
{
	self->cpu = setup_lo(_metadata, &self->st, variant->sysctl);
	ASSERT_EQ(0, tt_pty_open(&self->a));
	ASSERT_EQ(0, tt_pty_open(&self->b));
	snprintf(self->group_a, sizeof(self->group_a), "/dstest/lo%s", self->a.group);
	snprintf(self->group_b, sizeof(self->group_b), "/dstest/lo%s", self->b.group);
}

FIXTURE_TEARDOWN(nest)
{
	char err[256];
	int ret;

	tt_kill_all();
	tt_write_str(TT_CGROUP "/cgroup.subtree_control", "+cpu");
	remove_cgroup(CG_LO);
	ret = tt_teardown(&self->st, err, sizeof(err));
	if (ret)
		TH_LOG("teardown: %s", err);
	EXPECT_EQ(0, ret);
}

/*
 * A terminal: a session leader with @p as controlling tty (none if @p is
 * NULL: a job detached with setsid) that moves itself into @cg and forks
 * @n single-threaded hogs on @cpu. Fills @pids with the hogs and returns
 * the terminal's pid, or -1.
 */
static pid_t start_terminal_hogs(struct __test_metadata *_metadata,
				 const struct tt_pty *p, const char *cg,
				 int n, int cpu, pid_t *pids)
{
	char procs[TT_PATH_MAX];
	int fds[2], i;
	pid_t term, pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	fflush(stdout);
	term = fork();
	if (!term) {
		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGHUP, SIG_IGN);
		if (setsid() < 0 || (p && open(p->slave, O_RDWR) < 0) ||
		    tt_write_str(procs, "0"))
			_exit(1);
		for (i = 0; i < n; i++) {
			pid = fork();
			if (!pid)
				hog(cpu, 0);
			if (pid < 0 || write(fds[1], &pid, sizeof(pid)) != sizeof(pid))
				_exit(1);
		}
		close(fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (term < 0) {
		close(fds[0]);
		return -1;
	}
	tt_register(term);
	for (i = 0; i < n; i++) {
		if (read(fds[0], &pids[i], sizeof(pids[i])) != sizeof(pids[i])) {
			TH_LOG("terminal on %s in %s: hog %d not started",
			       p ? p->name : "no tty", cg, i);
			close(fds[0]);
			return -1;
		}
		tt_register(pids[i]);
	}
	close(fds[0]);
	return term;
}

/* Whether the debugfs line of @p lists @path, polled up to 2 s for @want. */
static int groups_list(const struct tt_pty *p, const char *path, int want)
{
	double end = mono_seconds() + 2;
	char line[1024], word[TT_PATH_MAX + 2];
	int has;

	snprintf(word, sizeof(word), " %s", path);
	for (;;) {
		if (tt_groups_line(p->name, line, sizeof(line)))
			return -1;
		strcat(line, " ");
		strcat(word, " ");
		has = strstr(line, word) != NULL;
		word[strlen(word) - 1] = '\0';
		if (has == want || mono_seconds() > end) {
			if (has != want)
				ksft_print_msg("ttygroups: '%s'\n", line);
			return has;
		}
		tt_sleep(0.05);
	}
}

/* Share of the first of @n processes in their CPU time, or -1. */
static double first_share(const pid_t *pids, int n, double *busy)
{
	double ns[16], wall, sum = 0;
	int i;

	if (measure(pids, n, SECONDS, ns, &wall))
		return -1;
	for (i = 0; i < n; i++)
		sum += ns[i];
	*busy = sum / 1e9 / wall;
	return sum > 0 ? ns[0] / sum : -1;
}

/*
 * Two terminals in one cgroup, one hog against ten on one CPU: each
 * terminal gets about half of the cgroup with the sysctl at 1, a task's
 * share (1/11) at 0. This is what cgroups cannot do for the windows of
 * one tmux server, which share a scope.
 */
TEST_F(nest, one_against_ten)
{
	pid_t pids[11];
	double share, busy;

	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->a, CG_LO, 1,
						 self->cpu, pids)));
	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->b, CG_LO, 10,
						 self->cpu, pids + 1)));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, pids, 1, variant->sysctl ?
					 self->group_a : "/dstest/lo", 1)));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, pids + 1, 10, variant->sysctl ?
					 self->group_b : "/dstest/lo", 1)));

	share = first_share(pids, 11, &busy);
	ksft_print_msg("two terminals in /dstest/lo, 1 hog vs 10, sysctl %d: share %.4f (ideal %s), CPUs busy %.2f\n",
		       variant->sysctl, share, variant->sysctl ? "0.50" : "0.0909", busy);
	EXPECT_GT(busy, 0.5);
	if (variant->sysctl) {
		EXPECT_GE(share, 0.30);
	} else {
		EXPECT_LE(share, 0.20);
	}
}

/*
 * A terminal with one hog beside a job of ten hogs detached from it with
 * setsid (a session without a tty), in one cgroup: the job is no
 * terminal's, so its hogs are plain tasks of the cgroup and the terminal
 * gets a task's share, 1/11, with the sysctl at 1 as at 0. A group per
 * session (autogroup, nested below the cgroup) would give the job a group
 * of its own and the terminal half, as autogroup does in the root cgroup
 * (ttygroup_autogroup: detached_job_in_root_cgroup). This is the case that
 * tells per-tty groups and per-session groups apart.
 */
TEST_F(nest, detached_job_is_not_grouped)
{
	pid_t pids[11];
	double share, busy;

	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->a, CG_LO, 1,
						 self->cpu, pids)));
	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, NULL, CG_LO, 10,
						 self->cpu, pids + 1)));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, pids, 1, variant->sysctl ?
					 self->group_a : "/dstest/lo", 1)));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, pids + 1, 10, "/dstest/lo", 1)));

	share = first_share(pids, 11, &busy);
	ksft_print_msg("a terminal and a detached job in /dstest/lo, 1 hog vs 10, sysctl %d: share %.4f (ideal 0.0909), CPUs busy %.2f\n",
		       variant->sysctl, share, busy);
	EXPECT_GT(busy, 0.5);
	EXPECT_LE(share, 0.20);
}

/* cpu.max of the cgroup bounds all of its terminals' groups together. */
TEST_F(nest, cpu_max_holds_all_terminals)
{
	double share, busy;
	pid_t pids[4];

	REQUIRE(EXPECT_EQ(0, tt_write_str(CG_LO "/cpu.max", "10000 100000")));
	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->a, CG_LO, 2,
						 self->cpu, pids)));
	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->b, CG_LO, 2,
						 self->cpu, pids + 2)));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, pids + 2, 2, variant->sysctl ?
					 self->group_b : "/dstest/lo", 1)));

	share = first_share(pids, 4, &busy);
	ksft_print_msg("cpu.max 10000 100000 over two terminals, 2 hogs each, sysctl %d: CPU %.4f of one (ideal 0.10), first hog's share %.2f\n",
		       variant->sysctl, busy, share);
	EXPECT_LE(busy, 0.15);
	EXPECT_GE(busy, 0.03);
}

/* "effective uclamp.max" of @pid in /proc/<pid>/sched, -1 if absent. */
static long uclamp_max_of(pid_t pid)
{
	return proc_sched_field(pid, "effective uclamp.max");
}

/*
 * cpu.uclamp.max written on the cgroup after its terminals' groups exist
 * still clamps the terminals' tasks: a tty group has no uclamp of its own.
 */
TEST_F(nest, uclamp_reaches_terminals)
{
	long v = -1;
	pid_t pid;
	int i;

	if (access(CG_LO "/cpu.uclamp.max", F_OK))
		SKIP(return, "no CONFIG_UCLAMP_TASK_GROUP");
	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->a, CG_LO, 1,
						 self->cpu, &pid)));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, &pid, 1, variant->sysctl ?
					 self->group_a : "/dstest/lo", 1)));
	REQUIRE(EXPECT_EQ(1024, uclamp_max_of(pid)));
	ASSERT_EQ(0, tt_write_str(CG_LO "/cpu.uclamp.max", "50"));
	/* The clamp is applied at the task's next enqueue; it spins. */
	for (i = 0; i < 40 && v != 512; i++) {
		tt_sleep(0.05);
		v = uclamp_max_of(pid);
	}
	EXPECT_EQ(512, v);
}

/*
 * Renicing a terminal weighs its group against its siblings inside the
 * cgroup: nice 10 (weight 110) against nice 0 (1024), one hog each.
 */
TEST_F(nest, renice_inside_cgroup)
{
	double share, busy;
	pid_t pids[2], term;

	term = start_terminal_hogs(_metadata, &self->a, CG_LO, 1, self->cpu, pids);
	REQUIRE(EXPECT_LT(0, term));
	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->b, CG_LO, 1,
						 self->cpu, pids + 1)));
	REQUIRE(EXPECT_EQ(0, tt_proc_ttygroup_write(term, "10")));
	REQUIRE(EXPECT_EQ(10, tt_groups_nice(self->a.name)));

	share = first_share(pids, 2, &busy);
	ksft_print_msg("terminal at nice 10 vs 0 in /dstest/lo, sysctl %d: share %.4f (ideal %s)\n",
		       variant->sysctl, share, variant->sysctl ? "0.097" : "0.50");
	EXPECT_GT(busy, 0.5);
	if (variant->sysctl) {
		EXPECT_LE(share, 0.25);
	} else {
		EXPECT_GE(share, 0.30);
	}
}

/*
 * A cgroup whose tasks left can be removed, and its tty groups go with
 * it; the terminal keeps its group in the root cgroup.
 */
TEST_F(nest, rmdir_takes_groups)
{
	pid_t pids[1], term;

	term = start_terminal_hogs(_metadata, &self->a, CG_LO, 1, self->cpu, pids);
	REQUIRE(EXPECT_LT(0, term));
	REQUIRE(EXPECT_EQ(1, groups_list(&self->a, self->group_a, 1)));
	REQUIRE(EXPECT_EQ(1, groups_list(&self->a, self->a.group, 1)));

	REQUIRE(EXPECT_EQ(0, tt_cgroup_move(TT_CGROOT, term)));
	REQUIRE(EXPECT_EQ(0, tt_cgroup_move(TT_CGROOT, pids[0])));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, pids, 1, variant->sysctl ?
					 self->a.group : NULL, 1)));
	REQUIRE(EXPECT_EQ(0, rmdir(CG_LO)));
	EXPECT_EQ(0, groups_list(&self->a, self->group_a, 0));
	EXPECT_EQ(1, groups_list(&self->a, self->a.group, 1));
}

/*
 * Turning the cpu controller off in the parent under running tasks moves
 * them, nested groups and all, to the parent's; on again, back.
 */
TEST_F(nest, controller_off_under_tasks)
{
	char parent_group[TT_PATH_MAX + 16];
	pid_t pids[2];

	snprintf(parent_group, sizeof(parent_group), "/dstest%s", self->a.group);
	REQUIRE(EXPECT_LT(0, start_terminal_hogs(_metadata, &self->a, CG_LO, 2,
						 self->cpu, pids)));
	REQUIRE(EXPECT_EQ(0, check_sched(_metadata, pids, 2, variant->sysctl ?
					 self->group_a : "/dstest/lo", 1)));

	REQUIRE(EXPECT_EQ(0, tt_write_str(TT_CGROUP "/cgroup.subtree_control", "-cpu")));
	EXPECT_EQ(0, check_sched(_metadata, pids, 2, variant->sysctl ?
				 parent_group : "/dstest", 1));
	EXPECT_EQ(0, groups_list(&self->a, self->group_a, 0));
	EXPECT_EQ(1, groups_list(&self->a, parent_group, 1));

	REQUIRE(EXPECT_EQ(0, tt_write_str(TT_CGROUP "/cgroup.subtree_control", "+cpu")));
	EXPECT_EQ(0, check_sched(_metadata, pids, 2, variant->sysctl ?
				 self->group_a : "/dstest/lo", 1));
}

TEST_HARNESS_MAIN

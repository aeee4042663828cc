// SPDX-License-Identifier: GPL-2.0
/*
 * Churn: thousands of ptys opened, taken as controlling terminal by a
 * fresh session leader and torn down again in all the ways a tty goes
 * away (exit, TIOCNOTTY, vhangup, master closed under a live leader,
 * renice, fork, threads being created as the terminal goes), while
 * another process flips the sysctl and a third reads the debugfs files. Afterwards no group may be left and the
 * feature must still work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"

TT_FIXTURE(churn);

#define ITERATIONS	2000
#define MAX_SECONDS	30.0
#define MIN_ITERATIONS	200

enum { K_EXIT, K_NOTTY, K_VHANGUP, K_FORK, K_NICE, K_MASTER, K_SCTTY,
       K_THREADS, NR_KINDS };
static const char *const kind_name[] = {
	"exit", "tiocnotty", "vhangup", "fork", "renice", "master-close",
	"tiocsctty", "threads",
};

struct shared {
	volatile int stop;
	volatile long flips, reads;
};

/* In a leader: does /proc/self/ttygroup read the group of @name? */
static int has_group(const char *name)
{
	char buf[128], want[64];

	snprintf(want, sizeof(want), "/ttygroup-%s nice ", name);
	return tt_proc_ttygroup(getpid(), buf, sizeof(buf)) > 0 &&
	       !strncmp(buf, want, strlen(want));
}

static int is_empty(void)
{
	char buf[128];

	return tt_proc_ttygroup(getpid(), buf, sizeof(buf)) == 0;
}

static volatile int spawning;

static void *briefly_spin(void *arg)
{
	double end = mono_seconds() + 0.001;

	while (mono_seconds() < end)
		;
	return arg;
}

/*
 * Threads created while the session loses its terminal: one created in
 * that window must not stay in the group, which goes with the tty while
 * such a thread still runs.
 */
static void *spawn_threads(void *arg)
{
	pthread_t t;

	while (spawning) {
		if (pthread_create(&t, NULL, briefly_spin, NULL) ||
		    pthread_join(t, NULL))
			return (void *)1;
	}
	return arg;
}

static int threads_as_tty_goes(int fd, int ready_fd)
{
	pthread_t spawner;
	void *spawn_failed;
	int ret = 0;

	spawning = 1;
	if (pthread_create(&spawner, NULL, spawn_threads, NULL))
		return 1;
	tt_sleep(0.003);
	/* With the slave closed, the parent's master close frees the tty. */
	if (ioctl(fd, TIOCNOTTY) || close(fd) || !is_empty() ||
	    write(ready_fd, "r", 1) != 1)
		ret = 1;
	else
		tt_sleep(0.010);
	spawning = 0;
	if (pthread_join(spawner, &spawn_failed) || spawn_failed)
		ret = 1;
	return ret;
}

/* The session leader of one iteration; its exit status is the verdict. */
static void __attribute__((noreturn))
leader(int kind, int i, const char *slave, const char *name, int ready_fd)
{
	char buf[16];
	double end;
	pid_t pid;
	int fd, st;

	signal(SIGHUP, SIG_IGN);
	if (setsid() < 0)
		_exit(10);
	fd = open(slave, O_RDWR | (kind == K_SCTTY ? O_NOCTTY : 0));
	if (fd < 0)
		_exit(11);
	if (kind == K_SCTTY && ioctl(fd, TIOCSCTTY, 0))
		_exit(12);
	if (!has_group(name))
		_exit(13);

	switch (kind) {
	case K_NOTTY:
		if (ioctl(fd, TIOCNOTTY) || !is_empty())
			_exit(20);
		break;
	case K_VHANGUP:
		if (vhangup() || !is_empty())
			_exit(21);
		break;
	case K_FORK:
		pid = fork();
		if (!pid)
			_exit(has_group(name) ? 0 : 1);
		if (pid < 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st))
			_exit(22);
		break;
	case K_NICE:
		/* Root has CAP_SYS_ADMIN: no rate limit. */
		snprintf(buf, sizeof(buf), "%d", i % 40 - 20);
		if (tt_proc_ttygroup_write(getpid(), buf))
			_exit(23);
		break;
	case K_MASTER:
		/* The parent closes the master; the hangup takes the tty. */
		if (write(ready_fd, "r", 1) != 1)
			_exit(24);
		end = mono_seconds() + 5;
		while (!is_empty())
			if (mono_seconds() > end)
				_exit(25);
			else
				tt_sleep(0.002);
		break;
	case K_THREADS:
		if (threads_as_tty_goes(fd, ready_fd))
			_exit(26);
		break;
	}
	_exit(0);
}

static void __attribute__((noreturn)) flipper(struct shared *sh)
{
	int v = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!sh->stop) {
		if (tt_sysctl_set(v))
			_exit(1);
		v = !v;
		sh->flips++;
		tt_sleep(0.002);
	}
	_exit(0);
}

static void __attribute__((noreturn)) reader(struct shared *sh)
{
	char buf[8192];
	double last = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!sh->stop) {
		if (tt_read_file(TT_GROUPS, buf, sizeof(buf)) < 0)
			_exit(1);
		/* sched/debug is big; not too often under TCG. */
		if (mono_seconds() - last > 0.5) {
			pid_t self = getpid();
			char out[1][TT_PATH_MAX];

			if (tt_sched_groups(&self, 1, out) < 0)
				_exit(2);
			last = mono_seconds();
		}
		sh->reads++;
		tt_sleep(0.001);
	}
	_exit(0);
}

TEST_F_TIMEOUT(churn, churn, 150)
{
	int fails[NR_KINDS] = { }, done[NR_KINDS] = { };
	int i, kind, st, pfd[2], n, total_fails = 0;
	pid_t fpid, rpid, pid, sp;
	struct shared *sh;
	struct tt_pty p;
	double start;
	char c;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	fflush(stdout);
	fflush(stderr);
	fpid = fork();
	if (!fpid)
		flipper(sh);
	ASSERT_GT(fpid, 0);
	tt_register(fpid);
	rpid = fork();
	if (!rpid)
		reader(sh);
	ASSERT_GT(rpid, 0);
	tt_register(rpid);

	start = mono_seconds();
	for (i = 0; i < ITERATIONS && mono_seconds() - start < MAX_SECONDS; i++) {
		kind = i % NR_KINDS;
		ASSERT_EQ(0, tt_pty_open(&p));
		ASSERT_EQ(0, pipe2(pfd, O_CLOEXEC));
		pid = fork();
		if (!pid) {
			close(p.master);
			close(pfd[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			leader(kind, i, p.slave, p.name, pfd[1]);
		}
		ASSERT_GT(pid, 0);
		tt_register(pid);
		close(pfd[1]);
		/* The master goes while the leader (or its threads) runs. */
		if ((kind == K_MASTER || kind == K_THREADS) &&
		    read(pfd[0], &c, 1) == 1)
			tt_pty_close(&p);
		st = tt_wait(pid, 10);
		close(pfd[0]);
		tt_pty_close(&p);
		done[kind]++;
		if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			if (!fails[kind]++)
				TH_LOG("iteration %d (%s): leader status %#x",
				       i, kind_name[kind], st);
			total_fails++;
		}
	}
	sh->stop = 1;
	st = tt_wait(fpid, 10);
	EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = tt_wait(rpid, 10);
	EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	ksft_print_msg("churn: %d iterations in %.1f s, %ld sysctl flips, %ld debugfs reads\n",
		       i, mono_seconds() - start, sh->flips, sh->reads);
	for (kind = 0; kind < NR_KINDS; kind++)
		ksft_print_msg("  %-12s %5d done, %d failed\n",
			       kind_name[kind], done[kind], fails[kind]);
	EXPECT_EQ(0, total_fails);
	EXPECT_GE(i, MIN_ITERATIONS);
	EXPECT_GT(sh->flips, 10);

	/* Back to the boot value; every group must go. */
	ASSERT_EQ(0, tt_sysctl_set(self->st.boot_sysctl));
	tt_kill_all();
	n = tt_groups_wait_count(self->st.base_groups, 10);
	if (n != self->st.base_groups)
		TH_LOG("%d tty groups left after the churn", n - self->st.base_groups);
	ASSERT_EQ(self->st.base_groups, n);

	/* And the feature still works. */
	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	sp = start_spinner(_metadata, 0, tt_first_cpu());
	ASSERT_GT(sp, 0);
	ASSERT_EQ(0, check_proc(_metadata, &sp, 1, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, &sp, 1, p.group, 0));
	ASSERT_EQ(self->st.base_groups + 1, tt_groups_count());
}

/*
 * A session leader that has its controlling terminal opens 40 more pty
 * slaves, which cannot become its controlling terminal: only the first
 * gets a group. It made 41 (228-324 kB of slab), and a user could make
 * as many as it could open ttys.
 */
#define EXTRA_SLAVES	40

TEST_F(churn, extra_slaves_no_groups)
{
	struct tt_pty p[EXTRA_SLAVES + 1];
	int i, fds[2], n;
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, tt_sysctl_set(1));
	for (i = 0; i <= EXTRA_SLAVES; i++)
		ASSERT_EQ(0, tt_pty_open(&p[i]));
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(fds[0]);
		if (setsid() < 0)
			_exit(1);
		for (i = 0; i <= EXTRA_SLAVES; i++)
			if (open(p[i].slave, O_RDWR) < 0)
				_exit(2);
		if (!has_group(p[0].name) || write(fds[1], "x", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(fds[1]);
	EXPECT_EQ(1, read(fds[0], &c, 1));
	close(fds[0]);
	n = tt_groups_count();
	TH_LOG("%d tty groups for 1 controlling terminal and %d other ttys",
	       n - self->st.base_groups, EXTRA_SLAVES);
	EXPECT_EQ(self->st.base_groups + 1, n);
	kill(pid, SIGKILL);
	tt_wait(pid, 10);
	for (i = 0; i <= EXTRA_SLAVES; i++)
		tt_pty_close(&p[i]);
	EXPECT_EQ(self->st.base_groups, tt_groups_wait_count(self->st.base_groups, 10));
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Group reservations (CONFIG_SCHED_DEADLINE_GROUP): cpu.dl.reserve gives
 * all the fair tasks of a cgroup one deadline reservation.
 *
 * The file: what it accepts, what it refuses (EINVAL, and EBUSY over the
 * caps), the bandwidth it admits and charges, and that rmdir gives both
 * back. The budget: /dstest/app at cpu.weight 1 against /dstest/hogs at
 * 10000, with four hogs on two CPUs, runs about its runtime per period
 * and no more, whether it is one thread, two, or twenty processes forked
 * inside; within the reservation, not beside it, as cpu.max still caps
 * it; and a hostile user toggling the file gets no extra time. What the
 * group ran is read from its cpu.stat, outside of it.
 *
 * The bounds are on CPU time consumed, with margins for TCG: the group
 * must get at least half of its reservation (its fair share is 1/10001)
 * and at most its reservation plus a tick per CPU and period.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"
#include "dltest.h"

#define CG_APP		TT_CGROUP "/app"
#define CG_APP2		TT_CGROUP "/app2"
#define CG_HOGS		TT_CGROUP "/hogs"
#define RESERVE(cg)	cg "/cpu.dl.reserve"
#define PERIOD_US	100000
#define SECONDS		3.0
#define U1		TT_UID1

FIXTURE(dl_group) {
	struct tt_state tt;
	struct dt_state dt;
};

/* A cgroup below /dstest owned by @uid, as a delegated one would be. */
static int make_cgroup(const char *path, uid_t uid)
{
	static const char *const files[] = {
		"", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control",
		"/cpu.dl.reserve", "/cpu.weight",
	};
	char file[256];
	unsigned int i;

	if (mkdir(path, 0755))
		return -errno;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(file, sizeof(file), "%s%s", path, files[i]);
		if (chown(file, uid, uid))
			return -errno;
	}
	return 0;
}

static void remove_cgroup(const char *path)
{
	char buf[4096], *line, *save = NULL;
	int i;

	if (tt_read_file(path, buf, 1) < 0 && errno == ENOENT)
		return;
	snprintf(buf, sizeof(buf), "%s/cgroup.procs", path);
	if (tt_read_file(buf, buf, sizeof(buf)) > 0)
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			tt_write_str(TT_CGROOT "/cgroup.procs", line);
	for (i = 0; i < 60 && rmdir(path) && errno == EBUSY; i++)
		tt_sleep(0.05);
}

FIXTURE_SETUP(dl_group)
{
	char err[256];
	int ret = tt_setup(&self->tt, err, sizeof(err));

	if (!ret)
		ret = dt_setup(&self->dt, err, sizeof(err));
	if (ret)
		TH_LOG("setup: %s", err);
	ASSERT_EQ(0, ret);
	/* What a test that failed an ASSERT left: its teardown was skipped. */
	remove_cgroup(CG_APP);
	remove_cgroup(CG_APP2);
	remove_cgroup(CG_HOGS);
	ASSERT_EQ(0, tt_cgroup_create(&self->tt));
	ASSERT_EQ(0, tt_write_str(TT_CGROUP "/cgroup.subtree_control", "+cpu"));
	ASSERT_EQ(0, make_cgroup(CG_APP, U1));
	ASSERT_EQ(0, make_cgroup(CG_APP2, U1));
	ASSERT_EQ(0, make_cgroup(CG_HOGS, 0));
	ASSERT_EQ(0, tt_write_str(CG_HOGS "/cpu.weight", "10000"));
	ASSERT_EQ(0, tt_write_str(CG_APP "/cpu.weight", "1"));
}

FIXTURE_TEARDOWN(dl_group)
{
	char err[256];
	int bad = 0;

	tt_kill_all();
	remove_cgroup(CG_APP);
	remove_cgroup(CG_APP2);
	remove_cgroup(CG_HOGS);
	if (tt_teardown(&self->tt, err, sizeof(err))) {
		TH_LOG("teardown: %s", err);
		bad = 1;
	}
	if (dt_teardown(&self->dt, err, sizeof(err))) {
		TH_LOG("teardown: %s", err);
		bad = 1;
	}
	EXPECT_EQ(0, bad);
}

/* Write @s to @path as @uid (0: as root): 0 or -errno. */
static int write_as(uid_t uid, const char *path, const char *s)
{
	int fds[2], ret = 0;
	pid_t pid;

	if (!uid)
		return tt_write_str(path, s);
	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		ret = tt_drop_privs(uid);
		if (!ret)
			ret = tt_write_str(path, s);
		if (write(fds[1], &ret, sizeof(ret)) != sizeof(ret))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EIO;
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return ret;
}

static int reserve_as(uid_t uid, const char *cg, long runtime_us, long period_us)
{
	char path[256], s[64];

	snprintf(path, sizeof(path), "%s/cpu.dl.reserve", cg);
	snprintf(s, sizeof(s), "%ld %ld\n", runtime_us, period_us);
	return write_as(uid, path, s);
}

static int read_reserve(const char *cg, char *buf, size_t len)
{
	char path[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cpu.dl.reserve", cg);
	n = tt_read_file(path, buf, len);
	if (n < 0)
		return -errno;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* usage_usec of @cg's cpu.stat, in seconds, or -1. */
static double usage_s(const char *cg)
{
	char path[256], buf[1024], *p;

	snprintf(path, sizeof(path), "%s/cpu.stat", cg);
	if (tt_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "usage_usec ");
	return p ? strtoull(p + 11, NULL, 10) / 1e6 : -1;
}

static void *spin_thread(void *arg)
{
	(void)arg;
	for (;;)
		;
	return NULL;
}

/*
 * A process in @cg, as @uid, spinning in @threads threads and forking
 * @children more spinners after it joined: all of them in the group.
 */
static pid_t start_spinners(const char *cg, uid_t uid, int threads,
			    int children)
{
	pid_t pid = fork();
	pthread_t t;
	int i;

	if (pid)
		return pid;
	setpgid(0, 0);
	if (tt_cgroup_move(cg, getpid()))
		_exit(2);
	if (uid && tt_drop_privs(uid))
		_exit(3);
	for (i = 0; i < children; i++)
		if (!fork())
			break;
	for (i = 1; i < threads; i++)
		pthread_create(&t, NULL, spin_thread, NULL);
	spin_thread(NULL);
	_exit(0);
}

/*
 * A process in @cg as @uid whose @threads threads each burn @burn_us of
 * CPU time every 100 ms, as a player's threads decode their frames.
 */
static void *periodic_thread(void *arg)
{
	long burn_ns = (long)arg * 1000;
	struct timespec next, t0, t;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		do
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		       (t.tv_nsec - t0.tv_nsec) < burn_ns);
		next.tv_nsec += PERIOD_US * 1000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

static pid_t start_periodic(const char *cg, uid_t uid, int threads, long burn_us)
{
	pid_t pid = fork();
	pthread_t t;
	int i;

	if (pid)
		return pid;
	if (tt_cgroup_move(cg, getpid()))
		_exit(2);
	if (uid && tt_drop_privs(uid))
		_exit(3);
	for (i = 1; i < threads; i++)
		pthread_create(&t, NULL, periodic_thread, (void *)burn_us);
	periodic_thread((void *)burn_us);
	_exit(0);
}

static void stop_spinners(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * The CPU time in seconds per second that @cg ran over SECONDS, with four
 * hogs in /dstest/hogs and the spinners of start_spinners() in @cg; with
 * @start, counted from when it returns, once the spinners run.
 */
static double measure_after(const char *cg, uid_t uid, int threads,
			    int children, void (*start)(void))
{
	pid_t hogs = start_spinners(CG_HOGS, 0, 4, 0);
	pid_t app = start_spinners(cg, uid, threads, children);
	double before, after;

	tt_register(hogs);
	tt_register(app);
	tt_sleep(0.5);
	if (start)
		start();
	before = usage_s(cg);
	tt_sleep(SECONDS);
	after = usage_s(cg);
	/* The hogs first: at a weight of 1 the group would take long to die. */
	stop_spinners(hogs);
	stop_spinners(app);
	tt_unregister(app);
	tt_unregister(hogs);
	if (before < 0 || after < 0)
		return -1;
	return (after - before) / SECONDS;
}

static double measure(const char *cg, uid_t uid, int threads, int children)
{
	return measure_after(cg, uid, threads, children, NULL);
}

/* What the file refuses changes nothing; what it takes reads back. */
TEST_F(dl_group, file_validated)
{
	static const char *const bad[] = {
		"\n", "abc\n", "10000\n", "0 100000\n", "-1 100000\n",
		"200000 100000\n",		/* runtime over period */
		"50 50\n",			/* period under the minimum */
		"1 100000\n",			/* runtime under 1024 ns */
		"100000 5000000\n",		/* period over the maximum */
		"10000 100000 x\n", "10000 100000 1\n",
		"99999999999999999999 100000\n", "10000 18446744073709552\n",
		"max 100000\n", "none 100000\n", "10000 100000 autox\n",
		"10000 100000 auto 1\n", "auto 100000\n",
	};
	char buf[64];
	unsigned int i;

	ASSERT_EQ(0, read_reserve(CG_APP, buf, sizeof(buf)));
	ASSERT_STREQ("none", buf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, write_as(0, RESERVE(CG_APP), bad[i]))
			TH_LOG("accepted \"%s\"", bad[i]);
		ASSERT_EQ(0, read_reserve(CG_APP, buf, sizeof(buf)));
		EXPECT_STREQ("none", buf);
	}
	EXPECT_EQ(self->dt.base_total_bw, dt_total_bw());

	ASSERT_EQ(0, write_as(0, RESERVE(CG_APP), "10000 100000\n"));
	ASSERT_EQ(0, read_reserve(CG_APP, buf, sizeof(buf)));
	EXPECT_STREQ("10000 100000", buf);
	EXPECT_EQ(-EINVAL, write_as(0, RESERVE(CG_APP), "abc\n"));
	ASSERT_EQ(0, read_reserve(CG_APP, buf, sizeof(buf)));
	EXPECT_STREQ("10000 100000", buf);
	ASSERT_EQ(0, write_as(0, RESERVE(CG_APP), "20000 100000 auto\n"));
	ASSERT_EQ(0, read_reserve(CG_APP, buf, sizeof(buf)));
	EXPECT_STREQ("20000 100000 auto 20000", buf);
	ASSERT_EQ(0, write_as(0, RESERVE(CG_APP), "none\n"));
	ASSERT_EQ(0, read_reserve(CG_APP, buf, sizeof(buf)));
	EXPECT_STREQ("none", buf);
	EXPECT_EQ(self->dt.base_total_bw, dt_total_bw());
	/* No file on the root cgroup. */
	EXPECT_NE(0, access(TT_CGROOT "/cpu.dl.reserve", F_OK));
}

/*
 * Admitted once, not per CPU: the root domain grows by the group's
 * bandwidth (its per-CPU shares round up by at most one unit each).
 * Root's groups are not charged to a uid.
 */
TEST_F(dl_group, admitted_once)
{
	int64_t bw = dt_bw(20 * DT_MS, 100 * DT_MS), grown;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	ASSERT_EQ(0, reserve_as(0, CG_APP, 20000, PERIOD_US));
	grown = dt_total_bw() - self->dt.base_total_bw;
	EXPECT_GE(grown, bw);
	EXPECT_LE(grown, bw + ncpus);
	EXPECT_EQ(0, dt_users_count());
	ASSERT_EQ(0, reserve_as(0, CG_APP, 10000, PERIOD_US));
	grown = dt_total_bw() - self->dt.base_total_bw;
	EXPECT_GE(grown, bw / 2);
	EXPECT_LE(grown, bw / 2 + ncpus);
	/* Over what the root domain holds: EBUSY, the old one stays. */
	ASSERT_EQ(0, reserve_as(0, CG_APP2, 990000, 1000000));
	grown = dt_total_bw();
	EXPECT_EQ(-EBUSY, reserve_as(0, CG_APP, 990000, 1000000));
	EXPECT_EQ(grown, dt_total_bw());
	ASSERT_EQ(0, write_as(0, RESERVE(CG_APP2), "none\n"));
	grown = dt_total_bw() - self->dt.base_total_bw;
	EXPECT_GE(grown, bw / 2);
	EXPECT_LE(grown, bw / 2 + ncpus);
}

/*
 * An ordinary user's group is charged to the uid, together with its
 * tasks' reservations, under the same caps; periods under 1 ms are not
 * for unprivileged users.
 */
TEST_F(dl_group, user_charged_and_capped)
{
	unsigned int res, cap;

	ASSERT_EQ(0, reserve_as(U1, CG_APP, 20000, PERIOD_US));
	ASSERT_EQ(1, dt_user(U1, &res, &cap));
	EXPECT_EQ(2000U, res);
	EXPECT_EQ(3000U, cap);
	/* 20% + 20% is over the 30% cap: the second group is refused. */
	EXPECT_EQ(-EBUSY, reserve_as(U1, CG_APP2, 20000, PERIOD_US));
	EXPECT_EQ(0, reserve_as(U1, CG_APP2, 10000, PERIOD_US));
	ASSERT_EQ(1, dt_user(U1, &res, &cap));
	EXPECT_EQ(3000U, res);
	/* A task's reservation counts against the same cap. */
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	EXPECT_EQ(-EBUSY, tt_cmd(0, TT_OP_DL, 1000, PERIOD_US));
	/* Growing within the cap passes, shrinking always does. */
	EXPECT_EQ(0, reserve_as(U1, CG_APP2, 5000, PERIOD_US));
	EXPECT_EQ(0, tt_cmd(0, TT_OP_DL, 5000, PERIOD_US));
	EXPECT_EQ(-EINVAL, reserve_as(U1, CG_APP, 90, 900));
	EXPECT_EQ(0, reserve_as(U1, CG_APP, 100, 1000));
	ASSERT_EQ(1, dt_user(U1, &res, &cap));
	EXPECT_EQ(2000U, res);
	EXPECT_EQ(0, tt_cmd(0, TT_OP_OTHER, 0, 0));
	/* Both caps at 0: unprivileged reservations are off. */
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, 0));
	EXPECT_EQ(-EPERM, reserve_as(U1, CG_APP, 1000, PERIOD_US));
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, self->dt.user_pct));
	EXPECT_EQ(0, reserve_as(U1, CG_APP, 1000, PERIOD_US));
	EXPECT_EQ(0, write_as(U1, RESERVE(CG_APP), "none\n"));
	EXPECT_EQ(0, write_as(U1, RESERVE(CG_APP2), "none\n"));
	EXPECT_EQ(0, dt_users_wait_empty(2));
}

/*
 * rmdir gives back the bandwidth and the charge as soon as the cgroup
 * goes offline, which the cgroup core does right after rmdir returns.
 */
TEST_F(dl_group, rmdir_releases)
{
	ASSERT_EQ(0, reserve_as(U1, CG_APP2, 20000, PERIOD_US));
	ASSERT_EQ(1, dt_users_count());
	ASSERT_EQ(0, rmdir(CG_APP2));
	EXPECT_EQ(0, dt_users_wait_empty(0.5));
	EXPECT_EQ(self->dt.base_total_bw, dt_total_bw_wait(self->dt.base_total_bw, 0.5));
}

/* Without a reservation the group runs its fair share, next to nothing. */
TEST_F(dl_group, no_reservation_no_time)
{
	double used = measure(CG_APP, U1, 2, 0);

	TH_LOG("used %.4f CPU", used);
	ASSERT_GE(used, 0);
	EXPECT_LT(used, 0.02);
}

/*
 * 20 ms every 100 ms, 0.2 CPU: the bound for one thread, for two on two
 * CPUs (servers that did not share one budget would give 0.4), and for
 * twenty processes forked inside the group.
 */
static void check_budget(struct __test_metadata *_metadata, int threads,
			 int children)
{
	double used;

	ASSERT_EQ(0, reserve_as(U1, CG_APP, 20000, PERIOD_US));
	used = measure(CG_APP, U1, threads, children);
	TH_LOG("%d threads, %d children: used %.4f CPU of 0.2 reserved",
	       threads, children, used);
	EXPECT_GE(used, 0.1);
	EXPECT_LE(used, 0.2 + 2 * 0.004 * 10 + 0.01);
}

TEST_F(dl_group, budget_one_thread)
{
	check_budget(_metadata, 1, 0);
}

TEST_F(dl_group, budget_shared_by_threads)
{
	check_budget(_metadata, 2, 0);
}

TEST_F(dl_group, budget_shared_by_children)
{
	check_budget(_metadata, 1, 20);
}

/* cpu.max still caps a reserved group: 5% allowed, 20% reserved. */
TEST_F(dl_group, cpu_max_still_bounds)
{
	double used;

	ASSERT_EQ(0, tt_write_str(CG_APP "/cpu.max", "5000 100000"));
	ASSERT_EQ(0, reserve_as(U1, CG_APP, 20000, PERIOD_US));
	used = measure(CG_APP, U1, 2, 0);
	TH_LOG("used %.4f CPU, cpu.max 0.05", used);
	EXPECT_LE(used, 0.05 + 0.02);
}

/*
 * Beyond its budget a group runs as fair tasks: at the hogs' weight, two
 * spinners keep about their fair half of the machine, reservation or not.
 */
TEST_F(dl_group, fair_beyond_budget)
{
	double used;

	ASSERT_EQ(0, tt_write_str(CG_APP "/cpu.weight", "10000"));
	ASSERT_EQ(0, reserve_as(U1, CG_APP, 10000, PERIOD_US));
	used = measure(CG_APP, U1, 2, 0);
	TH_LOG("used %.4f CPU of 2, fair share 1", used);
	EXPECT_GE(used, 0.7);
}

/*
 * Beside a root SCHED_FIFO hog on every CPU, fair tasks run only on the
 * fair servers, 50 ms a second per CPU. A reserved group runs on servers
 * of its own, ahead of the hogs: what it runs there is not the fair
 * servers' time, or a group spinning on 0.8 CPU would use that up and
 * leave the fair tasks outside it nothing for as long as it spins (a
 * killed process outside could not even exit).
 */
TEST_F(dl_group, fair_servers_left_to_others)
{
	struct sched_param fifo = { .sched_priority = 50 }, other = { 0 };
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), i;
	pid_t hogs[2] = { 0 }, app, outsider;
	double before, after, used;

	ASSERT_GE(ncpus, 2);
	ASSERT_EQ(0, reserve_as(0, CG_APP, 80000, PERIOD_US));
	app = start_spinners(CG_APP, U1, 2, 0);
	outsider = start_spinners(CG_APP2, U1, 1, 0);
	tt_register(app);
	tt_register(outsider);
	/* Above the hogs, so that the samples are taken on time. */
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo));
	for (i = 0; i < 2; i++)
		hogs[i] = dt_fifo_hog(i);
	tt_sleep(1.0);
	before = usage_s(CG_APP2);
	tt_sleep(SECONDS);
	after = usage_s(CG_APP2);
	for (i = 0; i < 2; i++)
		if (hogs[i] > 0)
			stop_spinners(hogs[i]);
	EXPECT_EQ(0, sched_setscheduler(0, SCHED_OTHER, &other));
	stop_spinners(outsider);
	stop_spinners(app);
	tt_unregister(outsider);
	tt_unregister(app);
	ASSERT_GT(hogs[0], 0);
	ASSERT_GT(hogs[1], 0);
	ASSERT_GE(before, 0);
	used = (after - before) / SECONDS;
	TH_LOG("outside the group: %.4f CPU, the fair servers give 0.1 in all",
	       used);
	EXPECT_GE(used, 0.01);
}

/*
 * A hostile user drops and restores the reservation as fast as it can,
 * hoping for a fresh budget each time: the pool stays, the bound holds.
 */
TEST_F(dl_group, toggling_gives_nothing)
{
	pid_t toggler;
	double used;

	ASSERT_EQ(0, reserve_as(U1, CG_APP, 20000, PERIOD_US));
	toggler = fork();
	ASSERT_GE(toggler, 0);
	if (!toggler) {
		if (tt_drop_privs(U1))
			_exit(1);
		for (;;) {
			tt_write_str(RESERVE(CG_APP), "none\n");
			tt_write_str(RESERVE(CG_APP), "20000 100000\n");
		}
	}
	tt_register(toggler);
	used = measure(CG_APP, U1, 2, 0);
	kill(toggler, SIGKILL);
	waitpid(toggler, NULL, 0);
	tt_unregister(toggler);
	TH_LOG("used %.4f CPU of 0.2 reserved", used);
	EXPECT_LE(used, 0.2 + 2 * 0.004 * 10 + 0.01);
	EXPECT_EQ(0, write_as(U1, RESERVE(CG_APP), "none\n"));
}

/*
 * A reservation written while the group runs, tasks that never sleep
 * included, serves them from then on: 10% first, then 20% measured.
 */
static int rewrite_err[2];

static void rewrite(void)
{
	rewrite_err[0] = reserve_as(U1, CG_APP, 10000, PERIOD_US);
	tt_sleep(0.5);
	rewrite_err[1] = reserve_as(U1, CG_APP, 20000, PERIOD_US);
	tt_sleep(0.3);
}

TEST_F(dl_group, rewrite_while_running)
{
	double used = measure_after(CG_APP, U1, 2, 0, rewrite);

	EXPECT_EQ(0, rewrite_err[0]);
	EXPECT_EQ(0, rewrite_err[1]);
	TH_LOG("used %.4f CPU of 0.2 reserved", used);
	EXPECT_GE(used, 0.1);
	EXPECT_LE(used, 0.2 + 2 * 0.004 * 10 + 0.01);
	EXPECT_EQ(0, write_as(U1, RESERVE(CG_APP), "none\n"));
}

/*
 * Self-tuned: from a ceiling of 25%, a group whose threads burn 5 ms
 * every 100 ms each learns about their sum plus a quarter, beside the
 * hogs, and its uid is charged what it learned. One thread, then two.
 */
static void check_learned(struct __test_metadata *_metadata, int threads)
{
	long want = threads * 5000, learned;
	unsigned int res, cap;
	char buf[64];
	pid_t hogs, app;

	ASSERT_EQ(0, write_as(U1, RESERVE(CG_APP), "25000 100000 auto\n"));
	hogs = start_spinners(CG_HOGS, 0, 4, 0);
	tt_register(hogs);
	app = start_periodic(CG_APP, U1, threads, 5000);
	tt_register(app);
	tt_sleep(3);
	/* Stopped first: an idle group learns nothing more. */
	stop_spinners(hogs);
	stop_spinners(app);
	tt_unregister(app);
	tt_unregister(hogs);
	tt_sleep(0.3);
	ASSERT_EQ(0, read_reserve(CG_APP, buf, sizeof(buf)));
	ASSERT_EQ(1, dt_user(U1, &res, &cap));
	TH_LOG("%d threads of 5 ms: %s, charged %u.%02u%%", threads, buf,
	       res / 100, res % 100);
	ASSERT_EQ(1, sscanf(buf, "25000 100000 auto %ld", &learned));
	EXPECT_GE(learned, want);
	EXPECT_LE(learned, want * 2);
	EXPECT_LE(abs((int)dt_hundredths(dt_bw(learned * 1000ULL,
					       PERIOD_US * 1000ULL)) - (int)res), 1);
	EXPECT_EQ(0, write_as(U1, RESERVE(CG_APP), "none\n"));
}

TEST_F(dl_group, autotune_learns_one_thread)
{
	check_learned(_metadata, 1);
}

TEST_F(dl_group, autotune_learns_the_sum_of_threads)
{
	check_learned(_metadata, 2);
}

TEST_HARNESS_MAIN

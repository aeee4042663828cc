// SPDX-License-Identifier: GPL-2.0
/*
 * Elastic SCHED_DEADLINE reservations (CONFIG_SCHED_DEADLINE_ELASTIC):
 * never refused for bandwidth, scaled by one factor per pool so that the
 * grants fit every cap, grown back when bandwidth returns, waiting under
 * SCHED_OTHER below the minimum grant; hard reservations keep theirs.
 *
 * Grants are read back with sched_getattr() and /proc/<pid>/sched. The
 * kernel rounds a scaled runtime down, so grants are compared within
 * TOL_US of the exact figure; every sum is checked against its cap
 * exactly. The agents sleep: nothing here depends on timing, but growth
 * after a reservation ends is asynchronous (a worker, and the 0-lag time
 * of the bandwidth given back), so it is polled for up to GROW_S seconds.
 *
 * Self-tuned requests (SCHED_FLAG_DL_AUTOTUNE) are checked on periodic
 * jobs that burn CPU time: the learned request, in /proc/<pid>/sched, must
 * come within bounds of the demand, follow a step up and down, and leave
 * every grant within the ceiling and the caps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"
#include "dltest.h"
#include "proc.h"

#define PERIOD_US	100000
#define TOL_US		20		/* rounding of the scale factor */
#define GROW_S		5.0
#define U1		TT_UID1
#define U2		TT_UID2

DT_FIXTURE(dl_elastic);

/* Agent @i asks for @pct percent of one CPU every 100 ms, with @flags. */
static int request(int i, unsigned int flags, int pct)
{
	int ret = tt_cmd(i, TT_OP_DLFLAGS, flags, 0);

	return ret ? ret : tt_cmd(i, TT_OP_DL, pct * PERIOD_US / 100, PERIOD_US);
}

static int elastic(int i, int pct)
{
	return request(i, SCHED_FLAG_DL_ELASTIC, pct);
}

static int hard(int i, int pct)
{
	return request(i, 0, pct);
}

static pid_t pid_of(int i)
{
	return tt_agent(i)->pid;
}

/* The runtime granted to agent @i, in us; -1: not DL. */
static long granted_us(int i)
{
	struct sched_attr a;
	long long g;

	if (dt_getattr(pid_of(i), &a) || a.sched_policy != SCHED_DEADLINE)
		return -1;
	/* A hard reservation's grant is what it asked for. */
	g = proc_sched_field(pid_of(i), "dl.elastic_granted");
	return (g < 0 ? (long long)a.sched_runtime : g) / 1000;
}

/* Poll until agent @i is granted @want_us (-1: waits under SCHED_OTHER). */
static long wait_granted(int i, long want_us, double seconds)
{
	double end = mono_seconds() + seconds;
	long got;

	for (;;) {
		got = granted_us(i);
		if (want_us < 0 ? got < 0 : labs(got - want_us) <= TOL_US)
			return got;
		if (mono_seconds() > end)
			return got;
		tt_sleep(0.02);
	}
}

#define EXPECT_GRANT(i, want_us, seconds)				\
	do {								\
		long __got = wait_granted(i, want_us, seconds);		\
									\
		if ((want_us) < 0) {					\
			EXPECT_EQ(-1, __got)				\
				TH_LOG("agent %d granted %ld us, want waiting", i, __got); \
		} else {						\
			EXPECT_GE(TOL_US, labs(__got - (want_us)))	\
				TH_LOG("agent %d granted %ld us, want %ld", \
				       i, __got, (long)(want_us));	\
		}							\
	} while (0)

/* hundredths of a percent held by @uid, 0 if not listed, -1 on error */
static int reserved(unsigned int uid)
{
	unsigned int res, cap;
	int ret = dt_user(uid, &res, &cap);

	return ret < 0 ? -1 : ret ? (int)res : 0;
}

static long us(int pct_times_10)
{
	return (long)pct_times_10 * PERIOD_US / 1000;
}

/* The flag only with an explicit SCHED_DEADLINE request that sets params. */
TEST_F(dl_elastic, bad_combinations_einval)
{
	static const struct { int policy; uint64_t flags, rt, dl; } bad[] = {
		{ SCHED_OTHER, SCHED_FLAG_DL_ELASTIC, 0, 0 },
		{ SCHED_BATCH, SCHED_FLAG_DL_ELASTIC, 0, 0 },
		{ SCHED_DEADLINE, SCHED_FLAG_DL_ELASTIC | SCHED_FLAG_KEEP_POLICY,
		  10 * DT_MS, 100 * DT_MS },
		/* runtime > deadline: the usual parameter check */
		{ SCHED_DEADLINE, SCHED_FLAG_DL_ELASTIC, 200 * DT_MS, 100 * DT_MS },
		/* self-tuned, but not elastic */
		{ SCHED_DEADLINE, SCHED_FLAG_DL_AUTOTUNE, 10 * DT_MS, 100 * DT_MS },
		{ SCHED_OTHER, SCHED_FLAG_DL_AUTOTUNE, 0, 0 },
		{ SCHED_OTHER, SCHED_FLAG_DL_ELASTIC | SCHED_FLAG_DL_AUTOTUNE, 0, 0 },
		/* the next bit is still unknown */
		{ SCHED_DEADLINE, SCHED_FLAG_DL_AUTOTUNE << 1, 10 * DT_MS, 100 * DT_MS },
	};
	unsigned int k;
	pid_t pid;

	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	pid = pid_of(0);
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		EXPECT_EQ(-EINVAL, dt_setattr(pid, bad[k].policy, bad[k].rt,
					      bad[k].dl, bad[k].dl, bad[k].flags))
			TH_LOG("case %u accepted", k);
		EXPECT_EQ(SCHED_OTHER, dt_policy(pid));
		EXPECT_EQ(-1, proc_sched_field(pid, "dl.elastic_runtime"));
	}
	EXPECT_EQ(0, dt_users_count());
}

/*
 * Three requests of 20% under a user cap of 30%: none refused, all scaled
 * to 10%, the uid holding its cap. A hard request that would push them
 * below their minimum is EBUSY.
 */
TEST_F(dl_elastic, scaled_not_refused)
{
	struct sched_attr a;
	int i;

	ASSERT_EQ(0, tt_agents_init(4));
	for (i = 0; i < 4; i++)
		start_as(_metadata, i, U1);
	ASSERT_EQ(0, elastic(0, 20));
	EXPECT_GRANT(0, us(200), 0);
	ASSERT_EQ(0, elastic(1, 20));
	EXPECT_GRANT(0, us(150), 0);
	EXPECT_GRANT(1, us(150), 0);
	ASSERT_EQ(0, elastic(2, 20));
	for (i = 0; i < 3; i++)
		EXPECT_GRANT(i, us(100), 0);
	EXPECT_GE(3000, reserved(U1));
	EXPECT_LE(2990, reserved(U1));
	/* A hard 25% would leave them 5% of 60%: under their 10% minimum. */
	EXPECT_EQ(-EBUSY, hard(3, 25));
	EXPECT_EQ(SCHED_OTHER, dt_policy(pid_of(3)));
	for (i = 0; i < 3; i++)
		EXPECT_GRANT(i, us(100), 0);

	ASSERT_EQ(0, dt_getattr(pid_of(0), &a));
	EXPECT_EQ((uint64_t)SCHED_FLAG_DL_ELASTIC,
		  a.sched_flags & SCHED_FLAG_DL_ELASTIC);
	EXPECT_EQ(100 * DT_MS, a.sched_period);
	/* The request reads back, not the grant: a round trip keeps it. */
	EXPECT_EQ(20 * DT_MS, a.sched_runtime);
	EXPECT_EQ(0, dt_setattr(pid_of(0), SCHED_DEADLINE, a.sched_runtime,
				a.sched_deadline, a.sched_period, a.sched_flags));
	/* So does a change that keeps the parameters, flags read back. */
	EXPECT_EQ(0, dt_setattr(pid_of(0), SCHED_DEADLINE, 0, 0, 0,
				a.sched_flags | SCHED_FLAG_KEEP_PARAMS));
	EXPECT_EQ((long long)(20 * DT_MS), proc_sched_field(pid_of(0), "dl.elastic_runtime"));
	EXPECT_EQ(500, proc_sched_field(pid_of(0), "dl.elastic_scale"));
	EXPECT_EQ(0, proc_sched_field(pid_of(0), "dl.elastic_waiting"));
}

/* Shrink on arrival, grow back on departure: by exit and by leaving. */
TEST_F(dl_elastic, grows_back)
{
	int64_t want;
	int i;

	ASSERT_EQ(0, tt_agents_init(3));
	for (i = 0; i < 3; i++) {
		start_as(_metadata, i, U1);
		ASSERT_EQ(0, elastic(i, 20));
	}
	EXPECT_GRANT(0, us(100), 0);
	tt_cmd(2, TT_OP_EXIT, 0, 0);
	EXPECT_GRANT(0, us(150), GROW_S);
	EXPECT_GRANT(1, us(150), GROW_S);
	ASSERT_EQ(0, tt_cmd(1, TT_OP_OTHER, 0, 0));
	EXPECT_GRANT(0, us(200), GROW_S);
	EXPECT_EQ(2000, reserved(U1));
	want = self->dt.base_total_bw + (int64_t)dt_bw(20 * DT_MS, 100 * DT_MS);
	EXPECT_EQ(want, dt_total_bw_wait(want, GROW_S));
}

/*
 * A hard reservation keeps what it was admitted with; a new hard request
 * may take from the elastic ones down to their minimum (10%), not below.
 */
TEST_F(dl_elastic, hard_untouched)
{
	int i;

	ASSERT_EQ(0, tt_agents_init(4));
	for (i = 0; i < 4; i++)
		start_as(_metadata, i, U1);
	ASSERT_EQ(0, hard(0, 20));
	ASSERT_EQ(0, elastic(1, 20));
	EXPECT_GRANT(0, us(200), 0);
	EXPECT_GRANT(1, us(100), 0);
	/* 25% hard leaves 5% for a request of 20%: above its 2% minimum. */
	ASSERT_EQ(0, hard(2, 5));
	EXPECT_GRANT(0, us(200), 0);
	EXPECT_GRANT(1, us(50), 0);
	/* 29% hard would leave 1%, under the minimum: refused, nothing moved. */
	EXPECT_EQ(-EBUSY, hard(3, 4));
	EXPECT_EQ(SCHED_OTHER, dt_policy(pid_of(3)));
	EXPECT_GRANT(1, us(50), 0);
	EXPECT_EQ(3000, reserved(U1));
	tt_cmd(2, TT_OP_EXIT, 0, 0);
	EXPECT_GRANT(1, us(100), GROW_S);
	EXPECT_GRANT(0, us(200), 0);
}

/*
 * Below the minimum grant a request is accepted and waits under
 * SCHED_OTHER, visibly; it becomes SCHED_DEADLINE when bandwidth returns.
 */
TEST_F(dl_elastic, waits_below_minimum)
{
	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	ASSERT_EQ(0, hard(0, 28));
	ASSERT_EQ(0, elastic(1, 25));
	EXPECT_EQ(SCHED_OTHER, dt_policy(pid_of(1)));
	EXPECT_EQ(1, proc_sched_field(pid_of(1), "dl.elastic_waiting"));
	EXPECT_EQ(0, proc_sched_field(pid_of(1), "dl.elastic_scale"));
	EXPECT_EQ((long long)(25 * DT_MS), proc_sched_field(pid_of(1), "dl.elastic_runtime"));
	EXPECT_EQ(2800, reserved(U1));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OTHER, 0, 0));
	EXPECT_GRANT(1, us(250), GROW_S);
	EXPECT_EQ(0, proc_sched_field(pid_of(1), "dl.elastic_waiting"));
	EXPECT_EQ(2500, reserved(U1));
}

/*
 * A request waiting as SCHED_NORMAL narrows its affinity to one CPU, which
 * a direct request may not have (EPERM): when bandwidth returns, the grant
 * is held to the same rule and the task goes on waiting.
 */
TEST_F(dl_elastic, waiting_narrowed_affinity_not_granted)
{
	double end;
	cpu_set_t one;

	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	ASSERT_EQ(0, hard(0, 28));
	ASSERT_EQ(0, elastic(1, 25));
	ASSERT_EQ(SCHED_OTHER, dt_policy(pid_of(1)));
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ASSERT_EQ(0, sched_setaffinity(pid_of(1), sizeof(one), &one));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OTHER, 0, 0));
	for (end = mono_seconds() + 2; mono_seconds() < end; tt_sleep(0.02))
		if (dt_policy(pid_of(1)) != SCHED_OTHER)
			break;
	ASSERT_EQ(SCHED_OTHER, dt_policy(pid_of(1)))
		TH_LOG("granted SCHED_DEADLINE pinned to CPU 1");
	EXPECT_EQ(1, proc_sched_field(pid_of(1), "dl.elastic_waiting"));
}

/*
 * Every elastic request is in every plan, and a waiting one is charged
 * nothing: a uid may hold 64, granted or waiting; the 65th is EAGAIN.
 */
TEST_F(dl_elastic, requests_bounded_per_user)
{
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	ASSERT_EQ(0, tt_cmd(0, TT_OP_DLFLAGS, SCHED_FLAG_DL_ELASTIC, 0));
	EXPECT_EQ(64, tt_cmd(0, TT_OP_DLTHREADS, 64, 1000));
	EXPECT_EQ(-EAGAIN, tt_cmd(0, TT_OP_DLTHREADS, 1, 1000));
}

/* The newest request waits first: older ones keep at least the minimum. */
TEST_F(dl_elastic, newest_waits_first)
{
	int i;

	ASSERT_EQ(0, tt_agents_init(4));
	for (i = 0; i < 4; i++) {
		start_as(_metadata, i, U1);
		ASSERT_EQ(0, elastic(i, 100));
	}
	for (i = 0; i < 3; i++)
		EXPECT_GRANT(i, us(100), 0);
	EXPECT_GRANT(3, -1, 0);
	tt_cmd(0, TT_OP_EXIT, 0, 0);
	for (i = 1; i < 4; i++)
		EXPECT_GRANT(i, us(100), GROW_S);
}

/*
 * Pools: each uid is scaled within its own cap, and all of them within
 * the cap of all unprivileged users; a grant is the smaller factor.
 */
TEST_F(dl_elastic, user_and_unpriv_pools)
{
	int i;

	ASSERT_EQ(0, tt_agents_init(4));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	start_as(_metadata, 2, U2);
	start_as(_metadata, 3, U2);
	ASSERT_EQ(0, elastic(0, 30));
	ASSERT_EQ(0, elastic(1, 30));
	ASSERT_EQ(0, elastic(2, 20));
	/* U1 at its cap (2 x 15%), U2 untouched: 50% in all, the limit. */
	EXPECT_GRANT(0, us(150), 0);
	EXPECT_GRANT(1, us(150), 0);
	EXPECT_GRANT(2, us(200), 0);
	/* 100% asked of 50%: everybody at half. */
	ASSERT_EQ(0, elastic(3, 20));
	for (i = 0; i < 2; i++)
		EXPECT_GRANT(i, us(150), 0);
	for (i = 2; i < 4; i++)
		EXPECT_GRANT(i, us(100), 0);
	EXPECT_GE(3000, reserved(U1));
	EXPECT_GE(2000, reserved(U2));
	EXPECT_LE(4990, reserved(U1) + reserved(U2));
}

/*
 * Privileged elastic reservations are scaled within the root domain: the
 * root domain's total stays within its limit, and a hard request makes
 * the elastic ones shrink instead of failing.
 */
TEST_F(dl_elastic, root_domain_pool)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t limit = dt_bw(95 * DT_MS, 100 * DT_MS) * ncpus, free_bw;
	long share;
	int i;

	free_bw = limit - self->dt.base_total_bw;
	ASSERT_LT(0, free_bw);
	ASSERT_EQ(0, tt_agents_init(4));
	for (i = 0; i < 4; i++)
		start_as(_metadata, i, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, elastic(i, 90));
	share = (long)(free_bw * PERIOD_US / 3 >> 20);
	for (i = 0; i < 3; i++)
		EXPECT_GRANT(i, share, 0);
	EXPECT_GE(limit, dt_total_bw());
	EXPECT_EQ(0, dt_users_count());

	ASSERT_EQ(0, hard(3, 50));
	EXPECT_GRANT(3, us(500), 0);
	share = (long)((free_bw - dt_bw(50 * DT_MS, 100 * DT_MS)) * PERIOD_US / 3 >> 20);
	for (i = 0; i < 3; i++)
		EXPECT_GRANT(i, share, 0);
	EXPECT_GE(limit, dt_total_bw());
}

/*
 * A lowered cap shrinks elastic reservations (hard ones are never
 * revoked); back up, they grow again.
 */
TEST_F(dl_elastic, follows_the_cap)
{
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	ASSERT_EQ(0, elastic(0, 20));
	EXPECT_GRANT(0, us(200), 0);
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, 10));
	EXPECT_GRANT(0, us(100), GROW_S);
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, 30));
	EXPECT_GRANT(0, us(200), GROW_S);
}

/*
 * A changed request keeps its place and is replanned; a request that goes
 * hard is admitted as hard; every way out ends with exact accounting (the
 * fixture checks that nothing is left).
 */
TEST_F(dl_elastic, change_and_leave)
{
	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	ASSERT_EQ(0, elastic(0, 20));
	ASSERT_EQ(0, elastic(1, 20));
	EXPECT_GRANT(0, us(150), 0);
	ASSERT_EQ(0, elastic(0, 10));
	EXPECT_GRANT(0, us(100), 0);
	EXPECT_GRANT(1, us(200), GROW_S);
	/* Hard 15% beside elastic 20%: the elastic one keeps 15%. */
	ASSERT_EQ(0, hard(0, 15));
	EXPECT_GRANT(0, us(150), 0);
	EXPECT_GRANT(1, us(150), 0);
	EXPECT_EQ(-1, proc_sched_field(pid_of(0), "dl.elastic_runtime"));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OTHER, 0, 0));
	EXPECT_GRANT(1, us(200), GROW_S);
	tt_cmd(1, TT_OP_EXIT, 0, 0);
}

/* ---- dying elastic reservations ---------------------------------- */

/* A child of @uid (0: root) that sleeps under SCHED_OTHER; -1 on error. */
static pid_t sleeper(uid_t uid)
{
	int pipefd[2];
	char ok = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		if (uid && setresuid(uid, uid, uid))
			_exit(1);
		if (write(pipefd[1], "y", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (pid > 0 && read(pipefd[0], &ok, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(pipefd[0]);
	return pid;
}

/*
 * As @uid, give each of @pids a request of @runtime every 100 ms with
 * @flags, from another task: the sleepers never run on their reservations
 * before they are killed. The number of requests that failed.
 */
static int reserve_as(uid_t uid, const pid_t *pids, int n, uint64_t runtime,
		      uint64_t flags)
{
	int i, status, bad = 0;
	pid_t pid;

	if (!uid) {
		for (i = 0; i < n; i++)
			bad += !!dt_set_dl(pids[i], runtime, PERIOD_US * 1000ULL, flags);
		return bad;
	}
	pid = fork();
	if (pid == 0) {
		if (setresuid(uid, uid, uid))
			_exit(255);
		_exit(reserve_as(0, pids, n, runtime, flags));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return n;
	return WEXITSTATUS(status);
}

/*
 * A dead task may hold its bandwidth until its 0-lag time: PERIOD * ran /
 * runtime after it woke to die, where ran is the CPU time it took on the
 * way out (stock's rule, which bounds the CPU time of a kill loop; a debt
 * forgiven on the way out holds it only to the end of the period, which
 * comes sooner). The slack covers the timer, the reaping before the last
 * context switch, and the polling under TCG: a fork and a few syscalls for
 * the admission, reads of debugfs sched/debug for the bandwidth left.
 * A grant held to the end of its period (100 ms) fails the admission
 * where the tasks ran a small part of their grants on the way out.
 */
#define ADMIT_SLACK_S	0.02
#define FREE_SLACK_S	0.1

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

/* The CPU time @pid has used so far, in ns, or -1. */
static int64_t cpu_ns(pid_t pid)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) || clock_gettime(clk, &ts))
		return -1;
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The runtime granted to @pid, in ns, or -1 if it is not SCHED_DEADLINE. */
static int64_t grant_ns(pid_t pid)
{
	struct sched_attr a;
	long long g;

	if (dt_getattr(pid, &a) || a.sched_policy != SCHED_DEADLINE)
		return -1;
	g = proc_sched_field(pid, "dl.elastic_granted");
	return g < 0 ? (int64_t)a.sched_runtime : g;
}

/*
 * Kill and reap @n tasks: when the last was reaped, and in *@hold_s the
 * latest 0-lag time of what each that had a reservation ran on the way
 * out, after the reaping (every task woke to die before it was reaped);
 * -1 if the CPU time of one could not be read.
 */
static double kill_and_reap(const pid_t *pids, int n, double *hold_s)
{
	int64_t *ran = calloc(n, sizeof(*ran)), *runtime = calloc(n, sizeof(*runtime));
	double hold = ran && runtime ? 0 : -1, reaped;
	struct rusage ru;
	int i;

	for (i = 0; i < n && hold == 0; i++) {
		runtime[i] = grant_ns(pids[i]);
		ran[i] = cpu_ns(pids[i]);
		if (ran[i] < 0)
			hold = -1;
	}
	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++) {
		if (wait4(pids[i], NULL, 0, &ru) != pids[i])
			hold = -1;
		/* One that waits under SCHED_OTHER holds nothing. */
		if (hold < 0 || runtime[i] <= 0)
			continue;
		ran[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL - ran[i];
		hold = max_d(hold, 1e-9 * PERIOD_US * 1000 * ran[i] / runtime[i]);
	}
	reaped = mono_seconds();
	free(ran);
	free(runtime);
	*hold_s = hold;
	return reaped;
}

/*
 * As @uid, give each of @pids a hard reservation of @pct percent of a CPU,
 * retrying what is refused, with no sleep, for up to @seconds. When the
 * last of them was admitted, 0 if one never was; *@at_once tells if all
 * were admitted at the first try.
 */
static double admitted_at(uid_t uid, const pid_t *pids, int n, int pct,
			  double seconds, bool *at_once)
{
	double *at = mmap(NULL, 2 * sizeof(*at), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0), when;
	int i, left, tries = 0;
	bool done[2] = { false, false };
	pid_t pid;

	*at_once = false;
	if (at == MAP_FAILED || n > 2)
		return 0;
	at[0] = at[1] = 0;
	pid = fork();
	if (pid == 0) {
		double end = mono_seconds() + seconds;

		if (uid && setresuid(uid, uid, uid))
			_exit(1);
		do {
			for (i = 0, left = 0; i < n; i++) {
				if (!done[i])
					done[i] = !dt_set_dl(pids[i], pct * PERIOD_US * 10ULL,
							     PERIOD_US * 1000ULL, 0);
				left += !done[i];
			}
			tries++;
		} while (left && mono_seconds() < end);
		if (!left) {
			at[0] = mono_seconds();
			at[1] = tries == 1;
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	when = at[0];
	*at_once = at[1];
	munmap(at, 2 * sizeof(*at));
	return when;
}

/*
 * Poll with no sleep until total_bw is @base_bw and @uid (if not root)
 * is charged nothing, up to @until: when, or 0 if not by then.
 */
static double freed_at(int64_t base_bw, uid_t uid, double until)
{
	do {
		if (dt_total_bw() == base_bw && (!uid || !reserved(uid)))
			return mono_seconds();
	} while (mono_seconds() < until);
	return 0;
}

/*
 * @rounds times: @n sleeping elastic reservations of @uid asking @runtime
 * each, more than their pools hold, so that the grants fill them; the
 * first changed @changes times; all killed and reaped. Right after, with
 * no sleep, root's 1% is admitted; what they held is free to what a user
 * would try (@nr_probes hard reservations of @probe_pct each for
 * @probe_uid, all at once) by the latest 0-lag time of what they ran on
 * the way out; and once the probes are reaped too, nothing is held by
 * their 0-lag times. How much is still held at the reaping depends on
 * what they ran (under TCG 0.2 to 1 ms a task, of grants of 1.8 ms), so
 * it is not asserted: what fails is a grant kept after death for longer
 * than the task's run earns (a ghost), or never given back (a leak).
 */
static void kill_and_probe(struct __test_metadata *_metadata, int64_t base_bw,
			   uid_t uid, int n, uint64_t runtime, int changes,
			   uid_t probe_uid, int probe_pct, int nr_probes, int rounds)
{
	double reaped, hold, at, done, probe_hold, until, freed;
	pid_t *pids = calloc(n, sizeof(*pids)), probes[3];
	bool at_once;
	int r, i;

	ASSERT_NE(NULL, pids);
	ASSERT_GE(2, nr_probes);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++) {
			pids[i] = sleeper(uid);
			ASSERT_LT(0, pids[i]);
		}
		for (i = 0; i < nr_probes; i++) {
			probes[i] = sleeper(probe_uid);
			ASSERT_LT(0, probes[i]);
		}
		/* Root's 1%: the last probe. */
		probes[nr_probes] = sleeper(0);
		ASSERT_LT(0, probes[nr_probes]);
		ASSERT_EQ(0, reserve_as(uid, pids, n, runtime, SCHED_FLAG_DL_ELASTIC));
		for (i = 0; i < changes; i++)
			ASSERT_EQ(0, reserve_as(uid, pids, 1, i % 2 ? runtime : runtime * 9 / 10,
						SCHED_FLAG_DL_ELASTIC));
		EXPECT_EQ(SCHED_DEADLINE, dt_policy(pids[0]));

		reaped = kill_and_reap(pids, n, &hold);
		EXPECT_LE(0, hold);
		EXPECT_EQ(0, dt_set_dl(probes[nr_probes], PERIOD_US * 10ULL, PERIOD_US * 1000ULL, 0))
			TH_LOG("round %d: root's 1%% refused right after the reaping", r);
		at = admitted_at(probe_uid, probes, nr_probes, probe_pct, 2, &at_once);
		EXPECT_LT(0, at)
			TH_LOG("round %d: %d x %d%% for uid %d never admitted",
			       r, nr_probes, probe_pct, probe_uid);
		EXPECT_GE(hold + ADMIT_SLACK_S, at - reaped)
			TH_LOG("round %d: held past the 0-lag times", r);

		done = kill_and_reap(probes, nr_probes + 1, &probe_hold);
		EXPECT_LE(0, probe_hold);
		until = max_d(reaped + hold, done + probe_hold) + FREE_SLACK_S;
		freed = freed_at(base_bw, uid, until);
		EXPECT_LT(0, freed)
			TH_LOG("round %d: total_bw %lld (base %lld), uid %d's charge %d, %.1f ms after the reaping",
			       r, (long long)dt_total_bw(), (long long)base_bw, uid,
			       uid ? reserved(uid) : 0, 1000 * (mono_seconds() - reaped));
		TH_LOG("round %d: %d x %d%% admitted %s %.1f ms after the reaping (the last 0-lag time %.1f ms); all free %s%.1f ms after (the probes' 0-lag time %.1f ms)",
		       r, nr_probes, probe_pct, at_once ? "at once," : "later,",
		       1000 * (at - reaped), 1000 * hold, freed ? "" : "not by ",
		       1000 * ((freed ? freed : until) - reaped),
		       1000 * (done + probe_hold - reaped));
	}
	free(pids);
}

/*
 * 100 of root's elastic reservations, asked for 300% and scaled to fill
 * the root domain: once reaped, what they held is free. Root can have
 * 160% at once beside the fair servers' 10% (of 190%).
 */
TEST_F(dl_elastic, dead_grants_leave_at_once)
{
	kill_and_probe(_metadata, self->dt.base_total_bw, 0, 100, 3 * DT_MS, 0, 0, 80, 2, 3);
}

/*
 * The same with 10 grants of 18 ms: a task runs some 5% of its grant on
 * its way out, so its bandwidth must be free some 5 ms after it died,
 * well before the end of its period.
 */
TEST_F(dl_elastic, dead_grants_held_for_what_they_ran)
{
	kill_and_probe(_metadata, self->dt.base_total_bw, 0, 10, 30 * DT_MS, 0, 0, 80, 2, 3);
}

/* The same for one uid's pool: 20% of its 30% cap is free again. */
TEST_F(dl_elastic, dead_grants_leave_the_user_at_once)
{
	kill_and_probe(_metadata, self->dt.base_total_bw, U1, 20, 5 * DT_MS, 0, U1, 20, 1, 3);
}

/* And with 3 grants of 10 ms of the user's 30%. */
TEST_F(dl_elastic, dead_grants_leave_the_user_for_what_they_ran)
{
	kill_and_probe(_metadata, self->dt.base_total_bw, U1, 3, 15 * DT_MS, 0, U1, 20, 1, 3);
}

/*
 * 1000 of root's elastic reservations of 1 ms every 100 ms (1000% asked),
 * one of them changed 200 times, all killed and reaped, five times over:
 * the machine goes on (a hang fails the boot), and what they held is free.
 */
TEST_F_TIMEOUT(dl_elastic, thousand_killed_no_hang, 300)
{
	kill_and_probe(_metadata, self->dt.base_total_bw, 0, 1000, DT_MS, 200, 0, 88, 1, 5);
}

/* ---- self-tuned requests ------------------------------------------ */

#define JOB_PERIOD_US	50000

static int64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * A periodic job of uid U1, self-tuned with the period as ceiling ("I do
 * not know"): every JOB_PERIOD_US it burns *@work_us of CPU time, then
 * sleeps until the next period (at least a little, so that every job
 * ends). The pid, or -1.
 */
static pid_t start_job(volatile long *work_us)
{
	int64_t release, end;
	struct timespec ts;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		goto out;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (tt_drop_privs(U1) ||
	    dt_set_dl(0, JOB_PERIOD_US * 1000ULL, JOB_PERIOD_US * 1000ULL,
		      SCHED_FLAG_DL_ELASTIC | SCHED_FLAG_DL_AUTOTUNE))
		_exit(1);
	release = now_ns(CLOCK_MONOTONIC);
	for (;;) {
		end = now_ns(CLOCK_THREAD_CPUTIME_ID) + *work_us * 1000LL;
		while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
			;
		release += JOB_PERIOD_US * 1000LL;
		if (release < now_ns(CLOCK_MONOTONIC) + 100000)
			release = now_ns(CLOCK_MONOTONIC) + 100000;
		ts.tv_sec = release / 1000000000LL;
		ts.tv_nsec = release % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
	}
out:
	if (pid > 0)
		tt_register(pid);
	return pid;
}

/* What a job is doing, for the log of a failed test. */
static void dump_task(pid_t pid)
{
	static const char *const files[] = { "sched", "stack", "wchan", "stat" };
	char path[64], buf[4096], *line, *save;
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		if (tt_read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		save = NULL;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (i || !strncmp(line, "dl.", 3) || strstr(line, "policy") ||
			    strstr(line, "nr_switches") || strstr(line, "sum_exec"))
				ksft_print_msg("%s: %s\n", files[i], line);
	}
}

/* The work of a job's next periods, which the test changes as it runs. */
static volatile long *shared_work(void)
{
	return mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

/* Kill the job of a test, after logging what it was doing if it failed. */
static void stop_job(struct __test_metadata *_metadata, pid_t pid,
		     volatile long *work_us)
{
	if (!__test_passed(_metadata))
		dump_task(pid);
	kill(pid, SIGKILL);
	tt_wait(pid, 3);
	munmap((void *)work_us, sizeof(*work_us));
}

/* Poll the learned request of @pid, in us, until in [@lo, @hi]. */
static long wait_request(pid_t pid, long lo, long hi, double seconds)
{
	double end = mono_seconds() + seconds;
	long got;

	for (;;) {
		got = (long)(proc_sched_field(pid, "dl.elastic_runtime") / 1000);
		if ((got >= lo && got <= hi) || mono_seconds() > end)
			return got;
		tt_sleep(0.05);
	}
}

#define EXPECT_REQUEST(pid, lo, hi, seconds, what)			\
	do {								\
		long __got = wait_request(pid, lo, hi, seconds);	\
									\
		ksft_print_msg("%s: request %ld us (want %ld..%ld), estimate %lld us, state %c, CPU %.0f ms\n", \
			       what, __got, (long)(lo), (long)(hi),	\
			       proc_sched_field(pid, "dl.elastic_estimate") / 1000, \
			       tt_proc_state(pid), tt_cpu_ns(pid) / 1e6); \
		EXPECT_LE(lo, __got);					\
		EXPECT_GE(hi, __got);					\
	} while (0)

/* Mean CPU time per job of @pid over @seconds, in us. */
static long demand_us(pid_t pid, double seconds)
{
	double cpu = tt_cpu_ns(pid);

	tt_sleep(seconds);
	return (long)((tt_cpu_ns(pid) - cpu) / 1000 /
		      (seconds * 1e6 / JOB_PERIOD_US));
}

/*
 * 5 ms of work every 50 ms, asked with a 50 ms ceiling ("I do not know"):
 * the request comes down to the demand plus a margin (the largest job of
 * the last eight plus a quarter; TCG makes some jobs cost much more than
 * the mean), rises when the work becomes 20 ms (more than the user's cap
 * of 15 ms grants: the jobs still count whole) and comes back down when
 * it is 5 ms again. Each phase is checked against the mean demand it
 * measured. The ceiling stays what was asked, and the grant is never
 * above the request.
 */
TEST_F(dl_elastic, autotune_follows_demand)
{
	volatile long *work_us = shared_work();
	struct sched_attr a;
	long mean;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, work_us);
	*work_us = 5000;
	pid = start_job(work_us);
	ASSERT_LT(0, pid);
	tt_sleep(0.2);
	ASSERT_EQ(0, dt_getattr(pid, &a));
	ASSERT_EQ(SCHED_DEADLINE, (int)a.sched_policy);
	EXPECT_EQ((uint64_t)(SCHED_FLAG_DL_ELASTIC | SCHED_FLAG_DL_AUTOTUNE),
		  a.sched_flags & (SCHED_FLAG_DL_ELASTIC | SCHED_FLAG_DL_AUTOTUNE));
	EXPECT_EQ(JOB_PERIOD_US * 1000LL, proc_sched_field(pid, "dl.elastic_ceiling"));

	tt_sleep(2);
	mean = demand_us(pid, 1);
	EXPECT_REQUEST(pid, mean, 2 * mean + 1000, 2, "5 ms jobs");

	*work_us = 20000;
	tt_sleep(1);
	mean = demand_us(pid, 1);
	EXPECT_REQUEST(pid, mean, JOB_PERIOD_US, 1, "20 ms jobs");

	*work_us = 5000;
	tt_sleep(3);
	mean = demand_us(pid, 1);
	EXPECT_REQUEST(pid, mean, 2 * mean + 1000, 2, "5 ms jobs again");

	ASSERT_EQ(0, dt_getattr(pid, &a));
	/* The ceiling reads back; the grant is at most the learned request. */
	EXPECT_EQ(JOB_PERIOD_US * 1000ULL, a.sched_runtime);
	EXPECT_GE(proc_sched_field(pid, "dl.elastic_runtime"),
		  proc_sched_field(pid, "dl.elastic_granted"));
	stop_job(_metadata, pid, work_us);
}

/*
 * The ceiling a self-tuned request starts from is a guess, not a job that
 * was seen: the request comes down from it within the first window of
 * jobs. 5 ms of work every 50 ms from a 50 ms ceiling, read 0.6 s (12
 * jobs) after the start: within the demand and twice it plus 1 ms (it
 * falling an eighth of the difference per job, that took 1.2 s: 14 ms
 * at 0.6 s).
 */
TEST_F(dl_elastic, autotune_settles_within_window)
{
	volatile long *work_us = shared_work();
	long mean;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, work_us);
	*work_us = 5000;
	pid = start_job(work_us);
	ASSERT_LT(0, pid);
	tt_sleep(0.3);
	mean = demand_us(pid, 0.3);
	EXPECT_REQUEST(pid, mean, 2 * mean + 1000, 0.05, "0.6 s after the start");
	stop_job(_metadata, pid, work_us);
}

/*
 * A task that falls behind its work does not sleep, so its job does not
 * end: the request must rise while the job runs, not when it ends. 5 ms
 * every 50 ms, learned; then jobs of 1 s of CPU time, which under the
 * cap of 15 ms a period take seconds: within 1 s the request is at least
 * twice what the 5 ms jobs had (it rises towards the cap, where the
 * grant stops following it).
 */
TEST_F(dl_elastic, autotune_rises_within_a_long_job)
{
	volatile long *work_us = shared_work();
	long learned;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, work_us);
	*work_us = 5000;
	pid = start_job(work_us);
	ASSERT_LT(0, pid);
	tt_sleep(1.5);
	learned = (long)(proc_sched_field(pid, "dl.elastic_runtime") / 1000);
	ASSERT_LT(0, learned);
	*work_us = 1000000;
	EXPECT_REQUEST(pid, 2 * learned, JOB_PERIOD_US, 1, "a job of 1 s");
	stop_job(_metadata, pid, work_us);
}

#define TRACING		"/sys/kernel/tracing"
#define AUTOTUNE_EVENT	TRACING "/events/sched/sched_dl_autotune/enable"

/*
 * The changes of a self-tuned request are traced (sched_dl_autotune): a
 * job of 5 ms every 50 ms, asked with a 50 ms ceiling, for 2 s. Its
 * events carry its pid, requests within [100 us, ceiling], the last one
 * covers the demand measured meanwhile, and some come near it (within
 * twice the demand and 1 ms: one slow job, as TCG and the debug kernel
 * make some, keeps the request above that for eight jobs).
 */
TEST_F(dl_elastic, autotune_traced)
{
	volatile long *work_us = shared_work();
	long long request, last = -1, lo = 100000, hi = JOB_PERIOD_US * 1000LL;
	char want[32], *line, *p;
	int events = 0, bad = 0, near = 0;
	long mean;
	size_t len = 0;
	FILE *f;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, work_us);
	if (access(TRACING "/events", F_OK))
		mount("nodev", TRACING, "tracefs", 0, NULL);
	ASSERT_EQ(0, access(AUTOTUNE_EVENT, W_OK))
		TH_LOG("no sched_dl_autotune event: %s", strerror(errno));
	ASSERT_EQ(0, dt_knob_write(TRACING "/trace", ""));
	ASSERT_EQ(0, dt_knob_write(AUTOTUNE_EVENT, "1"));
	*work_us = 5000;
	pid = start_job(work_us);
	ASSERT_LT(0, pid);
	tt_sleep(1);
	mean = demand_us(pid, 1);
	EXPECT_EQ(0, dt_knob_write(AUTOTUNE_EVENT, "0"));
	kill(pid, SIGKILL);
	tt_wait(pid, 3);

	snprintf(want, sizeof(want), " pid=%d ", pid);
	f = fopen(TRACING "/trace", "r");
	ASSERT_NE(NULL, f);
	line = NULL;
	while (getline(&line, &len, f) > 0) {
		if (!strstr(line, "sched_dl_autotune:") || !strstr(line, want))
			continue;
		p = strstr(line, " request=");
		if (!p || sscanf(p, " request=%lld", &request) != 1)
			continue;
		events++;
		bad += request < lo || request > hi;
		near += request >= mean * 1000LL &&
			request <= (2 * mean + 1000) * 1000LL;
		last = request;
	}
	free(line);
	fclose(f);
	ksft_print_msg("%d events, %d near the demand, last request %lld us, mean demand %ld us\n",
		       events, near, last / 1000, mean);
	EXPECT_LT(0, events);
	EXPECT_EQ(0, bad);
	EXPECT_LT(0, near);
	EXPECT_LE(mean * 1000LL, last);
	munmap((void *)work_us, sizeof(*work_us));
}

/*
 * Three self-tuned jobs of 20 ms every 50 ms (40% each) under a user cap
 * of 30%: their requests grow to their demand and stay within their
 * ceiling, and what the uid is granted stays within the cap.
 */
TEST_F(dl_elastic, autotune_within_cap)
{
	volatile long *work_us = shared_work();
	long long req;
	pid_t pids[3];
	int i, held;

	ASSERT_NE(MAP_FAILED, work_us);
	*work_us = 20000;
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, 30));
	for (i = 0; i < 3; i++) {
		pids[i] = start_job(work_us);
		ASSERT_LT(0, pids[i]);
	}
	tt_sleep(2);
	held = reserved(U1);
	ksft_print_msg("three 40%% jobs under a 30%% cap: uid %d holds %d.%02d%%\n",
		       U1, held / 100, held % 100);
	EXPECT_LE(held, 3000);
	EXPECT_LT(0, held);
	for (i = 0; i < 3; i++) {
		req = proc_sched_field(pids[i], "dl.elastic_runtime");
		ksft_print_msg("job %d: request %lld us\n", i, req / 1000);
		EXPECT_LE(req, JOB_PERIOD_US * 1000LL);
		EXPECT_LE(20000 * 1000LL, req);
	}
	for (i = 0; i < 3; i++) {
		kill(pids[i], SIGKILL);
		tt_wait(pids[i], 3);
	}
	munmap((void *)work_us, sizeof(*work_us));
}

TEST_HARNESS_MAIN

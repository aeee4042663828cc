// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_DEADLINE for unprivileged users (CONFIG_SCHED_DEADLINE_USER):
 * admission under the per-uid and the global cap, isolation between uids,
 * the knobs, what unprivileged tasks may not ask for, and exact accounting
 * on every way a reservation ends or changes hands.
 *
 * Reservations use periods of 100 ms and tasks that sleep: nothing here
 * depends on timing. The fixture checks on every exit path that no uid is
 * left in /proc/sched_deadline_users and that the root domain's total_bw
 * is back to its value before the test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"
#include "dltest.h"

#define PERIOD_US	100000
#define U1		TT_UID1
#define U2		TT_UID2

DT_FIXTURE(dl_user);

/* Reserve @pct percent of one CPU every 100 ms in agent @i. */
static int reserve(int i, int pct)
{
	return tt_cmd(i, TT_OP_DL, pct * PERIOD_US / 100, PERIOD_US);
}

/* hundredths reserved by @uid as listed, 0 if not listed, -1 on error */
static int reserved(unsigned int uid)
{
	unsigned int res, cap;
	int ret = dt_user(uid, &res, &cap);

	return ret < 0 ? -1 : ret ? (int)res : 0;
}

static unsigned int hund(int pct)
{
	return dt_hundredths(dt_bw(pct * PERIOD_US / 100 * 1000ULL,
				   PERIOD_US * 1000ULL));
}

static int64_t bw_of(int pct)
{
	return dt_bw(pct * PERIOD_US / 100 * 1000ULL, PERIOD_US * 1000ULL);
}

/* The defaults, and only 0..100 * possible CPUs as a decimal number. */
TEST_F(dl_user, knobs_validated)
{
	static const char *const bad[] = {
		"-1\n", "abc\n", "\n", "1.5\n", "99999999999999999999\n",
		"4294967296\n",
	};
	const char *knobs[] = { DT_USER_PCT, DT_UNPRIV_PCT };
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), max = 100 * ncpus;
	char buf[32];
	unsigned int i, k;

	ASSERT_EQ(30, self->dt.user_pct);
	ASSERT_EQ(50, self->dt.unpriv_pct);
	for (k = 0; k < 2; k++) {
		long before = dt_knob_get(knobs[k]);

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			EXPECT_EQ(-EINVAL, dt_knob_write(knobs[k], bad[i]))
				TH_LOG("%s accepted %s", knobs[k], bad[i]);
			EXPECT_EQ(before, dt_knob_get(knobs[k]));
		}
		snprintf(buf, sizeof(buf), "%ld\n", max + 1);
		EXPECT_EQ(-EINVAL, dt_knob_write(knobs[k], buf));
		EXPECT_EQ(before, dt_knob_get(knobs[k]));
		ASSERT_EQ(0, dt_knob_set(knobs[k], max));
		EXPECT_EQ(max, dt_knob_get(knobs[k]));
		ASSERT_EQ(0, dt_knob_set(knobs[k], 0));
		EXPECT_EQ(0, dt_knob_get(knobs[k]));
		ASSERT_EQ(0, dt_knob_set(knobs[k], before));
	}
}

/*
 * A plain user gets a reservation, listed under its uid with the cap;
 * the root domain's total grows by exactly that bandwidth.
 */
TEST_F(dl_user, unprivileged_admitted)
{
	unsigned int res, cap;
	pid_t pid;

	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	pid = tt_agent(0)->pid;
	ASSERT_EQ(0, reserve(0, 5));
	ASSERT_EQ(SCHED_DEADLINE, dt_policy(pid));
	ASSERT_EQ(1, dt_user(U1, &res, &cap));
	EXPECT_EQ(500U, res);
	EXPECT_EQ(3000U, cap);
	EXPECT_EQ(1, dt_users_count());
	EXPECT_EQ(self->dt.base_total_bw + bw_of(5),
		  dt_total_bw_wait(self->dt.base_total_bw + bw_of(5), 2));
}

/* Over the per-uid cap: EBUSY, and nothing changed. */
TEST_F(dl_user, over_user_cap_refused)
{
	int64_t total;

	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	ASSERT_EQ(0, reserve(0, 25));
	total = dt_total_bw();
	ASSERT_EQ(-EBUSY, reserve(1, 10));
	EXPECT_EQ(SCHED_OTHER, dt_policy(tt_agent(1)->pid));
	EXPECT_EQ((int)hund(25), reserved(U1));
	EXPECT_EQ(total, dt_total_bw());
	/* What is left still fits. */
	ASSERT_EQ(0, reserve(1, 5));
	EXPECT_EQ((int)hund(25) + (int)hund(5), reserved(U1));
}

/* One uid at its cap does not stop another. */
TEST_F(dl_user, users_isolated)
{
	ASSERT_EQ(0, dt_knob_set(DT_UNPRIV_PCT, 100));
	ASSERT_EQ(0, tt_agents_init(3));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	start_as(_metadata, 2, U2);
	ASSERT_EQ(0, reserve(0, 30));
	ASSERT_EQ(-EBUSY, reserve(1, 1));
	ASSERT_EQ(0, reserve(2, 30));
	EXPECT_EQ((int)hund(30), reserved(U1));
	EXPECT_EQ((int)hund(30), reserved(U2));
}

/* The sum over all uids is capped too. */
TEST_F(dl_user, global_cap)
{
	ASSERT_EQ(0, dt_knob_set(DT_UNPRIV_PCT, 40));
	ASSERT_EQ(0, tt_agents_init(3));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U2);
	start_as(_metadata, 2, U2);
	ASSERT_EQ(0, reserve(0, 30));
	ASSERT_EQ(-EBUSY, reserve(1, 20));
	EXPECT_EQ(0, reserved(U2));
	ASSERT_EQ(0, reserve(2, 10));
	EXPECT_EQ((int)hund(10), reserved(U2));
}

/* A cap of 0 turns unprivileged use off: EPERM, as on a stock kernel. */
TEST_F(dl_user, disabled_by_zero)
{
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, 0));
	EXPECT_EQ(-EPERM, reserve(0, 5));
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, self->dt.user_pct));
	ASSERT_EQ(0, dt_knob_set(DT_UNPRIV_PCT, 0));
	EXPECT_EQ(-EPERM, reserve(0, 5));
	ASSERT_EQ(0, dt_knob_set(DT_UNPRIV_PCT, self->dt.unpriv_pct));
	EXPECT_EQ(0, reserve(0, 5));
}

/* Root keeps mainline semantics: admitted, not charged, not capped. */
TEST_F(dl_user, privileged_not_charged)
{
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, 0);
	ASSERT_EQ(0, reserve(0, 60));
	EXPECT_EQ(0, dt_users_count());
	EXPECT_EQ(self->dt.base_total_bw + bw_of(60),
		  dt_total_bw_wait(self->dt.base_total_bw + bw_of(60), 2));
}

/*
 * A privileged caller that replaces a user's reservation takes it over:
 * the charge goes. The task, changing it again itself, is charged anew.
 */
TEST_F(dl_user, privileged_takes_over)
{
	pid_t pid;

	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	pid = tt_agent(0)->pid;
	ASSERT_EQ(0, reserve(0, 10));
	EXPECT_EQ((int)hund(10), reserved(U1));
	ASSERT_EQ(0, dt_set_dl(pid, 50 * DT_MS, 100 * DT_MS, 0));
	EXPECT_EQ(0, dt_users_count());
	EXPECT_EQ(SCHED_DEADLINE, dt_policy(pid));
	EXPECT_EQ(self->dt.base_total_bw + bw_of(50),
		  dt_total_bw_wait(self->dt.base_total_bw + bw_of(50), 2));
	/* 50% is over U1's cap: its own change must fit, and nothing moves. */
	EXPECT_EQ(-EBUSY, tt_cmd(0, TT_OP_DL, 40000, PERIOD_US));
	EXPECT_EQ(0, dt_users_count());
	ASSERT_EQ(0, reserve(0, 20));
	EXPECT_EQ((int)hund(20), reserved(U1));
}

/*
 * What an unprivileged task may not ask for: SCHED_FLAG_RECLAIM, periods
 * under 1 ms (EPERM); invalid parameters stay EINVAL. DL_OVERRUN is fine.
 */
TEST_F(dl_user, unprivileged_bounds)
{
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	ASSERT_EQ(0, tt_cmd(0, TT_OP_DLFLAGS, SCHED_FLAG_RECLAIM, 0));
	EXPECT_EQ(-EPERM, reserve(0, 5));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_DLFLAGS, 0, 0));
	EXPECT_EQ(-EPERM, tt_cmd(0, TT_OP_DL, 100, 999));
	EXPECT_EQ(-EINVAL, tt_cmd(0, TT_OP_DL, 2000, 1000));
	EXPECT_EQ(0, dt_users_count());
	EXPECT_EQ(0, tt_cmd(0, TT_OP_DL, 100, 1000));
	EXPECT_EQ(1000, reserved(U1));
	/*
	 * Overrunning 100 us, which TCG can make it do, would kill it with
	 * SIGXCPU once the flag is on: start afresh.
	 */
	ASSERT_EQ(0, dt_set_other(tt_agent(0)->pid));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_DLFLAGS, SCHED_FLAG_DL_OVERRUN, 0));
	EXPECT_EQ(0, reserve(0, 5));
	EXPECT_EQ((int)hund(5), reserved(U1));
}

/*
 * A reservation whose bandwidth rounds to zero would be free of every cap:
 * 2 us every 4.19 s is refused to a user (EPERM), 8 us (two units of
 * 2^-20) is charged; root may still have the former. Made for sleeping
 * children: an agent with such a budget could answer hours later.
 */
TEST_F(dl_user, zero_bandwidth_refused)
{
	long period_us = dt_knob_get("/proc/sys/kernel/sched_deadline_period_max_us");
	int i, sleeper;

	ASSERT_LT(0, period_us);
	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, 0);
	for (i = 0; i < 2; i++) {
		sleeper = tt_cmd(i, TT_OP_FORKSLEEP, 0, 0);
		ASSERT_LT(0, sleeper);
		ASSERT_EQ(0, tt_cmd(i, TT_OP_DLTARGET, sleeper, 0));
	}
	EXPECT_EQ(-EPERM, tt_cmd(0, TT_OP_DL, 2, period_us));
	EXPECT_EQ(0, dt_users_count());
	EXPECT_EQ(0, tt_cmd(0, TT_OP_DL, 8, period_us));
	EXPECT_EQ(1, dt_users_count());
	EXPECT_EQ(0, tt_cmd(1, TT_OP_DL, 2, period_us));
}

/*
 * Changing runtime: up within the cap, up over it (EBUSY, unchanged),
 * down; leaving SCHED_DEADLINE drops the charge when the root domain
 * gives the bandwidth back, by the task's 0-lag time (within a period:
 * this task is not in debt; dl_hostile.left_in_debt_stays_charged).
 */
TEST_F(dl_user, change_and_leave)
{
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	ASSERT_EQ(0, reserve(0, 10));
	ASSERT_EQ(0, reserve(0, 20));
	EXPECT_EQ((int)hund(20), reserved(U1));
	ASSERT_EQ(-EBUSY, reserve(0, 40));
	EXPECT_EQ((int)hund(20), reserved(U1));
	ASSERT_EQ(0, reserve(0, 5));
	EXPECT_EQ((int)hund(5), reserved(U1));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OTHER, 0, 0));
	EXPECT_EQ(0, dt_users_wait_empty(3));
	EXPECT_EQ(self->dt.base_total_bw,
		  dt_total_bw_wait(self->dt.base_total_bw, 3));
}

/*
 * Exit and SIGKILL both give everything back, the charge with the
 * bandwidth: by the end of the task's period.
 */
TEST_F(dl_user, exit_and_kill)
{
	int i;

	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	ASSERT_EQ(0, reserve(0, 10));
	ASSERT_EQ(0, reserve(1, 10));
	EXPECT_EQ((int)hund(10) * 2, reserved(U1));
	tt_cmd(0, TT_OP_EXIT, 0, 0);
	EXPECT_LE(0, tt_agent_wait(0, 5));
	for (i = 0; i < 100 && reserved(U1) != (int)hund(10); i++)
		usleep(10000);
	EXPECT_EQ((int)hund(10), reserved(U1));
	ASSERT_EQ(0, kill(tt_agent(1)->pid, SIGKILL));
	EXPECT_LE(0, tt_agent_wait(1, 5));
	EXPECT_EQ(0, dt_users_wait_empty(2));
	EXPECT_EQ(self->dt.base_total_bw,
		  dt_total_bw_wait(self->dt.base_total_bw, 3));
}

/* The charge stays with the uid that reserved, whatever setresuid does. */
TEST_F(dl_user, setresuid_keeps_charge)
{
	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, 0);
	/* Unprivileged as U1, with U2 as saved uid to switch to later. */
	ASSERT_EQ(0, tt_cmd(0, TT_OP_SETRESUID, U1, U2));
	ASSERT_EQ(0, reserve(0, 20));
	EXPECT_EQ((int)hund(20), reserved(U1));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_SETRESUID, U2, U2));
	EXPECT_EQ((int)hund(20), reserved(U1));
	EXPECT_EQ(0, reserved(U2));
	/* U2's own cap is untouched by it. */
	start_as(_metadata, 1, U2);
	EXPECT_EQ(0, reserve(1, 30));
	EXPECT_EQ((int)hund(30), reserved(U2));
	/* A change by the task, now U2, moves the charge to U2: over cap. */
	EXPECT_EQ(-EBUSY, reserve(0, 10));
	EXPECT_EQ((int)hund(20), reserved(U1));
}

/* Exec of a setuid-root binary keeps the charge until the task dies. */
TEST_F(dl_user, setuid_exec_keeps_charge)
{
	static char *argv[] = { "/tmp/sleep", "1000", NULL };
	pid_t pid;

	ASSERT_EQ(0, system("cp /bin/busybox /tmp/sleep && chown 0:0 /tmp/sleep && chmod 4755 /tmp/sleep"));
	tt_exec_argv = argv;
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	pid = tt_agent(0)->pid;
	ASSERT_EQ(0, reserve(0, 10));
	/* No reply when exec works: give it a moment, then look. */
	tt_cmd(0, TT_OP_EXEC, 0, 0);
	tt_sleep(0.5);
	EXPECT_EQ(SCHED_DEADLINE, dt_policy(pid));
	EXPECT_EQ((int)hund(10), reserved(U1));
	EXPECT_EQ(0, reserved(0));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	EXPECT_EQ(0, dt_users_wait_empty(3));
	unlink("/tmp/sleep");
}

/* However many threads: no more than the cap; all back at exit. */
TEST_F(dl_user, threads_bounded)
{
	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	EXPECT_EQ(6, tt_cmd(0, TT_OP_DLTHREADS, 10, 5 * PERIOD_US / 100));
	EXPECT_EQ((int)hund(5) * 6, reserved(U1));
	ASSERT_EQ(0, kill(tt_agent(0)->pid, SIGKILL));
	EXPECT_EQ(0, dt_users_wait_empty(3));
}

/*
 * Spinning threads get what they reserved and no more: ten threads of 5%
 * each, six admitted, use about 30% of one CPU, not the two CPUs they
 * would take as normal tasks. Wide bounds: TCG timing is coarse.
 */
TEST_F(dl_user, cpu_use_bounded)
{
	double cpu0, cpu1, t0, t1, used;
	pid_t pid;

	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	pid = tt_agent(0)->pid;
	ASSERT_EQ(6, tt_cmd(0, TT_OP_DLSPIN, 10, 5 * PERIOD_US / 100));
	cpu0 = tt_cpu_ns(pid);
	t0 = mono_seconds();
	tt_sleep(3);
	cpu1 = tt_cpu_ns(pid);
	t1 = mono_seconds();
	ASSERT_LE(0, cpu0);
	used = (cpu1 - cpu0) / 1e9 / (t1 - t0);
	TH_LOG("6 threads of 5%% used %.1f%% of one CPU", used * 100);
	EXPECT_LT(used, 0.30 * 1.5);
	EXPECT_GT(used, 0.30 * 0.5);
}

/* fork of a deadline task: EAGAIN, unless reset-on-fork (child not charged) */
TEST_F(dl_user, fork_rules)
{
	pid_t child;

	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	ASSERT_EQ(0, reserve(0, 10));
	EXPECT_EQ(-EAGAIN, tt_cmd(0, TT_OP_FORKSLEEP, 0, 0));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_DLFLAGS, SCHED_FLAG_RESET_ON_FORK, 0));
	ASSERT_EQ(0, reserve(0, 10));
	child = tt_cmd(0, TT_OP_FORKSLEEP, 0, 0);
	ASSERT_LT(0, child);
	EXPECT_EQ(SCHED_OTHER, dt_policy(child));
	EXPECT_EQ((int)hund(10), reserved(U1));
	ASSERT_EQ(0, kill(tt_agent(0)->pid, SIGKILL));
	EXPECT_LE(0, tt_agent_wait(0, 5));
	EXPECT_EQ(0, dt_users_wait_empty(3));
	kill(child, SIGKILL);
}

/*
 * Lowering the cap below what is reserved keeps the reservations; only
 * increases are refused until the uid is back under the cap.
 */
TEST_F(dl_user, lower_cap_keeps_running)
{
	unsigned int res, cap;

	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, U1);
	ASSERT_EQ(0, reserve(0, 20));
	ASSERT_EQ(0, dt_knob_set(DT_USER_PCT, 10));
	EXPECT_EQ(SCHED_DEADLINE, dt_policy(tt_agent(0)->pid));
	ASSERT_EQ(1, dt_user(U1, &res, &cap));
	EXPECT_EQ(hund(20), res);
	EXPECT_EQ(1000U, cap);
	EXPECT_EQ(-EBUSY, reserve(1, 1));
	EXPECT_EQ(-EBUSY, reserve(0, 25));
	EXPECT_EQ(0, reserve(0, 15));
	EXPECT_EQ((int)hund(15), reserved(U1));
}

/*
 * Reading the rt limits changes nothing; rewriting them, and taking a
 * CPU down and up again (root domain rebuilds) keep the root domain's
 * total and the per-uid figures.
 */
TEST_F(dl_user, rebuilds_keep_accounting)
{
	char buf[64];
	int64_t total;
	int fd;

	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, U1);
	start_as(_metadata, 1, 0);
	ASSERT_EQ(0, reserve(0, 10));
	ASSERT_EQ(0, reserve(1, 10));
	total = dt_total_bw_wait(self->dt.base_total_bw + 2 * bw_of(10), 2);
	ASSERT_EQ(self->dt.base_total_bw + 2 * bw_of(10), total);

	ASSERT_LT(0, tt_read_file(DT_RT_RUNTIME, buf, sizeof(buf)));
	ASSERT_LT(0, tt_read_file("/proc/sys/kernel/sched_rt_period_us", buf,
				  sizeof(buf)));
	EXPECT_EQ(total, dt_total_bw());

	ASSERT_EQ(0, dt_knob_set(DT_RT_RUNTIME, self->dt.rt_runtime));
	EXPECT_EQ(total, dt_total_bw());

	fd = access("/sys/devices/system/cpu/cpu1/online", W_OK);
	ASSERT_EQ(0, fd);
	ASSERT_EQ(0, tt_write_str("/sys/devices/system/cpu/cpu1/online", "0"));
	ASSERT_EQ(0, tt_write_str("/sys/devices/system/cpu/cpu1/online", "1"));
	EXPECT_EQ(total, dt_total_bw());
	EXPECT_EQ((int)hund(10), reserved(U1));
}

/*
 * A deadline task that exits or leaves SCHED_DEADLINE holds its bandwidth
 * until its 0-lag time, where a root domain rebuild cannot see it: the
 * rebuild drops that bandwidth. It must then not be given back a second
 * time at the 0-lag time, nor when the task returns to SCHED_DEADLINE
 * before then. 400 ms every 2 s with 300 ms used puts the 0-lag time
 * 1.5 s after the start of the period: the rebuild comes well before it,
 * the check 2.5 s later well after it.
 */
TEST_F(dl_user, rebuild_before_zero_lag)
{
	const int64_t base = self->dt.base_total_bw;
	const int64_t bw = dt_bw(400 * DT_MS, 2000 * DT_MS);
	static const char *const how[] = { "exit", "leave", "leave and return" };
	int i;

	for (i = 0; i < 3; i++) {
		TH_LOG("%s", how[i]);
		ASSERT_EQ(0, tt_agents_init(1));
		start_as(_metadata, 0, 0);
		ASSERT_EQ(0, tt_cmd(0, TT_OP_DL, 400000, 2000000));
		ASSERT_EQ(0, tt_cmd(0, TT_OP_BURN, 300, 0));
		if (i == 0) {
			tt_cmd(0, TT_OP_EXIT, 0, 0);
			ASSERT_LE(0, tt_agent_wait(0, 5));
		} else {
			ASSERT_EQ(0, tt_cmd(0, TT_OP_OTHER, 0, 0));
		}
		ASSERT_EQ(0, dt_rebuild_domains(self->dt.rt_runtime, 1000));
		if (i == 2) {
			ASSERT_EQ(0, tt_cmd(0, TT_OP_DL, 400000, 2000000));
			EXPECT_EQ(base + bw, dt_total_bw());
		}
		tt_sleep(2.5);
		EXPECT_EQ(i == 2 ? base + bw : base, dt_total_bw());
		if (i) {
			tt_cmd(0, TT_OP_EXIT, 0, 0);
			ASSERT_LE(0, tt_agent_wait(0, 5));
		}
		EXPECT_EQ(base, dt_total_bw_wait(base, 3));
	}
}

/* Moving a charged task between cpusets leaves the figures alone. */
TEST_F(dl_user, cpuset_move)
{
	int64_t total;
	pid_t pid;

	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	pid = tt_agent(0)->pid;
	ASSERT_EQ(0, reserve(0, 10));
	total = dt_total_bw();
	ASSERT_EQ(0, tt_write_str(TT_CGROOT "/cgroup.subtree_control", "+cpuset"));
	ASSERT_EQ(0, tt_cgroup_create(&self->tt));
	ASSERT_EQ(0, tt_write_str(TT_CGROUP "/cpuset.cpus", "0-1"));
	ASSERT_EQ(0, tt_cgroup_move(TT_CGROUP, pid));
	EXPECT_EQ(total, dt_total_bw());
	EXPECT_EQ((int)hund(10), reserved(U1));
	ASSERT_EQ(0, tt_cgroup_move(TT_CGROOT, pid));
	EXPECT_EQ(total, dt_total_bw());
	EXPECT_EQ((int)hund(10), reserved(U1));
	ASSERT_EQ(0, rmdir(TT_CGROUP));
	EXPECT_EQ(0, tt_write_str(TT_CGROOT "/cgroup.subtree_control", "-cpuset"));
}

/*
 * Another process ends the reservation of a sleeping deadline task: its
 * bandwidth must come back (at the latest at the 0-lag time).
 */
TEST_F(dl_user, sleeping_task_leaves)
{
	pid_t pid;

	ASSERT_EQ(0, tt_agents_init(1));
	start_as(_metadata, 0, U1);
	pid = tt_agent(0)->pid;
	ASSERT_EQ(0, reserve(0, 10));
	/* The agent sleeps in recv(): well past its 0-lag time. */
	tt_sleep(0.5);
	ASSERT_EQ(0, dt_set_other(pid));
	EXPECT_EQ(0, dt_users_count());
	EXPECT_EQ(self->dt.base_total_bw,
		  dt_total_bw_wait(self->dt.base_total_bw, 3));
}

/*
 * SCHED_FLAG_KEEP_PARAMS keeps policy and parameters (only the clamps may
 * change): a request for SCHED_DEADLINE with it changes nothing, so it
 * must not take bandwidth, from root or from a user.
 */
TEST_F(dl_user, keep_params_takes_nothing)
{
	ASSERT_EQ(0, tt_agents_init(2));
	start_as(_metadata, 0, 0);
	start_as(_metadata, 1, U1);
	ASSERT_EQ(0, tt_cmd(0, TT_OP_DLFLAGS, 0x10, 0));
	ASSERT_EQ(0, tt_cmd(1, TT_OP_DLFLAGS, 0x10, 0));
	tt_cmd(0, TT_OP_DL, 10000, PERIOD_US);
	tt_cmd(1, TT_OP_DL, 10000, PERIOD_US);
	EXPECT_EQ(SCHED_OTHER, dt_policy(tt_agent(0)->pid));
	EXPECT_EQ(SCHED_OTHER, dt_policy(tt_agent(1)->pid));
	EXPECT_EQ(0, dt_users_count());
	EXPECT_EQ(self->dt.base_total_bw, dt_total_bw());
}

/*
 * An exited, unreaped deadline task has given its bandwidth back; a new
 * reservation for the zombie, by root or by its user, must not be
 * admitted and then never given back.
 */
TEST_F(dl_user, zombie_setattr_no_leak)
{
	int i, ret;
	pid_t pid;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, tt_agents_init(1));
		start_as(_metadata, 0, i ? U1 : 0);
		pid = tt_agent(0)->pid;
		ASSERT_EQ(0, reserve(0, 10));
		tt_cmd(0, TT_OP_EXIT, 0, 0);
		/* A zombie until reaped: wait for it without reaping it. */
		while (!strchr("ZX", tt_proc_state(pid)))
			tt_sleep(0.02);
		ret = dt_set_dl(pid, 20 * DT_MS, 100 * DT_MS, 0);
		EXPECT_EQ(-ESRCH, ret);
		EXPECT_LE(0, tt_agent_wait(0, 5));
		EXPECT_EQ(self->dt.base_total_bw,
			  dt_total_bw_wait(self->dt.base_total_bw, 3));
		EXPECT_EQ(0, dt_users_wait_empty(2));
	}
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the SCHED_DEADLINE guest tests (tests/guest/dl_*.c): the
 * syscalls (glibc 2.36 has no wrappers), the knobs of unprivileged
 * deadline use, /proc/sched_deadline_users, and the root domain's
 * dl_bw->total_bw from debugfs sched/debug.
 *
 * Bandwidths are in the kernel's fixed point: runtime / period << 20.
 */
#ifndef DESKSCHED_DLTEST_H
#define DESKSCHED_DLTEST_H

#include <stdint.h>
#include <sys/types.h>
#include <sched.h>
#include <linux/sched/types.h>

#define DT_USER_PCT	"/proc/sys/kernel/sched_deadline_user_bw_pct"
#define DT_UNPRIV_PCT	"/proc/sys/kernel/sched_deadline_unpriv_bw_pct"
#define DT_USERS	"/proc/sched_deadline_users"
#define DT_RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#define SCHED_FLAG_RECLAIM		0x02
#define SCHED_FLAG_DL_OVERRUN		0x04
#endif
#ifndef SCHED_FLAG_KEEP_POLICY
#define SCHED_FLAG_KEEP_POLICY		0x08
#define SCHED_FLAG_KEEP_PARAMS		0x10
#endif
#ifndef SCHED_FLAG_DL_ELASTIC
#define SCHED_FLAG_DL_ELASTIC		0x100
#endif
#ifndef SCHED_FLAG_DL_AUTOTUNE
#define SCHED_FLAG_DL_AUTOTUNE		0x200
#endif

#define DT_MS		1000000ULL	/* ns */

/* sched_setattr(2) of @pid (0: self): 0 or -errno. */
int dt_setattr(pid_t pid, int policy, uint64_t runtime, uint64_t deadline,
	       uint64_t period, uint64_t flags);
/* SCHED_DEADLINE with deadline = period. */
int dt_set_dl(pid_t pid, uint64_t runtime, uint64_t period, uint64_t flags);
int dt_set_other(pid_t pid);
int dt_getattr(pid_t pid, struct sched_attr *attr);	/* 0 or -errno */
int dt_policy(pid_t pid);				/* or -errno */

/* The kernel's to_ratio(period, runtime). */
uint64_t dt_bw(uint64_t runtime, uint64_t period);
/* A bandwidth in hundredths of a percent of one CPU, as the kernel rounds. */
unsigned int dt_hundredths(uint64_t bw);

/* A knob: its value, or -errno. */
long dt_knob_get(const char *path);
/* Write @s verbatim: 0 or -errno. */
int dt_knob_write(const char *path, const char *s);
int dt_knob_set(const char *path, long v);
/*
 * Rebuild the root domains: lower the rt limit by @lower_us, then put
 * @rt_runtime back (always). 0 or the first -errno.
 */
int dt_rebuild_domains(long rt_runtime, long lower_us);

/*
 * The line of @uid in /proc/sched_deadline_users: 1 and its reserved
 * bandwidth and cap in hundredths of a percent, 0 if not listed, -errno
 * if unreadable or malformed.
 */
int dt_user(unsigned int uid, unsigned int *reserved, unsigned int *cap);
/* Number of lines, or -errno. */
int dt_users_count(void);
/* Poll up to @seconds until no uid is listed. The last count. */
int dt_users_wait_empty(double seconds);

/*
 * The root domain's dl_bw->total_bw, from two reads of sched/debug that
 * agree (the value changes under us when reservations come and go), or
 * -1 when debugfs is missing.
 */
int64_t dt_total_bw(void);
/* Poll up to @seconds until total_bw == @want; the last value read. */
int64_t dt_total_bw_wait(int64_t want, double seconds);

/*
 * A root SCHED_FIFO busy loop (priority 1) pinned to @cpu, or -1: beside
 * one on every CPU, a SCHED_NORMAL task runs only on the fair servers and
 * a deadline task only on its budget.
 */
pid_t dt_fifo_hog(int cpu);

/* What the deadline fixtures restore and check on every exit path. */
struct dt_state {
	long user_pct, unpriv_pct, rt_runtime;
	int64_t base_total_bw;
};

int dt_setup(struct dt_state *st, char *err, size_t errlen);
/* Restore the knobs, then wait for an empty users file and base total_bw. */
int dt_teardown(struct dt_state *st, char *err, size_t errlen);

/*
 * The fixture of the deadline tests, to be expanded after including
 * kselftest_harness.h: the tty test fixture (registry, subreaper, kill
 * and reap everything at the end) plus dt_setup()/dt_teardown().
 */
#define DT_FIXTURE(name)						\
	FIXTURE(name) {							\
		struct tt_state tt;					\
		struct dt_state dt;					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		char err[256];						\
		int ret = tt_setup(&self->tt, err, sizeof(err));	\
									\
		if (!ret)						\
			ret = dt_setup(&self->dt, err, sizeof(err));	\
		if (ret)						\
			TH_LOG("setup: %s", err);			\
		ASSERT_EQ(0, ret);					\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		char err[256];						\
		int bad = 0;						\
									\
		if (tt_teardown(&self->tt, err, sizeof(err))) {	\
			TH_LOG("teardown: %s", err);			\
			bad = 1;					\
		}							\
		if (dt_teardown(&self->dt, err, sizeof(err))) {	\
			TH_LOG("teardown: %s", err);			\
			bad = 1;					\
		}							\
		EXPECT_EQ(0, bad);					\
	}

#endif

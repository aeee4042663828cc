/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks shared by the guest tests, for use inside TEST_F() bodies (they
 * log through TH_LOG and so need the harness's _metadata). Include after
 * tt_harness.h and ttytest.h. Each returns 0 if the check held, else -1
 * after saying what was seen; wrap them in ASSERT_EQ(0, ...).
 */
#ifndef DESKSCHED_TT_CHECKS_H
#define DESKSCHED_TT_CHECKS_H

#include <string.h>

#include "tt_harness.h"
#include "ttytest.h"

#define TT_MAX_CHECK	64

/*
 * All @n tasks are scheduled in @want (a group path; NULL: each in its
 * tt_fallback_group()). @wait 0: from a single look at sched/debug, for
 * "at once"; else poll up to @wait seconds.
 */
static inline int check_sched(struct __test_metadata *_metadata,
			      const pid_t *pids, int n, const char *want,
			      double wait)
{
	char out[TT_MAX_CHECK][TT_PATH_MAX], exp[TT_MAX_CHECK][TT_PATH_MAX];
	double end = mono_seconds() + wait;
	int i, bad;

	if (n > TT_MAX_CHECK)
		n = TT_MAX_CHECK;
	for (;;) {
		for (i = 0; i < n; i++) {
			if (want)
				snprintf(exp[i], TT_PATH_MAX, "%s", want);
			else if (tt_fallback_group(pids[i], exp[i]))
				snprintf(exp[i], TT_PATH_MAX,
					 "(no /proc/%d/autogroup)", pids[i]);
		}
		if (tt_sched_groups(pids, n, out) < 0) {
			TH_LOG("cannot read %s", TT_SCHED_DEBUG);
			return -1;
		}
		for (bad = 0, i = 0; i < n; i++)
			bad += strcmp(out[i], exp[i]) != 0;
		if (!bad || mono_seconds() >= end)
			break;
		tt_sleep(0.05);
	}
	for (i = 0; i < n; i++)
		if (strcmp(out[i], exp[i]))
			TH_LOG("task %d is scheduled in '%s', expected '%s'",
			       pids[i], out[i][0] ? out[i] : "(not listed)",
			       exp[i]);
	return bad ? -1 : 0;
}

/*
 * /proc/<pid>/ttygroup of each of the @n processes reads exactly @want
 * ("" = empty), polling up to @wait seconds.
 */
static inline int check_proc(struct __test_metadata *_metadata,
			     const pid_t *pids, int n, const char *want,
			     double wait)
{
	double end = mono_seconds() + wait;
	char buf[256];
	int i, bad;
	ssize_t len;

	for (;;) {
		for (bad = 0, i = 0; i < n; i++) {
			len = tt_proc_ttygroup(pids[i], buf, sizeof(buf));
			bad += len < 0 || strcmp(buf, want);
		}
		if (!bad || mono_seconds() >= end)
			break;
		tt_sleep(0.05);
	}
	for (i = 0; i < n; i++) {
		len = tt_proc_ttygroup(pids[i], buf, sizeof(buf));
		if (len < 0)
			TH_LOG("read /proc/%d/ttygroup: %s", pids[i],
			       strerror(-len));
		else if (strcmp(buf, want))
			TH_LOG("/proc/%d/ttygroup reads '%.*s' (%zd bytes), expected '%.*s'",
			       pids[i], (int)strcspn(buf, "\n"), buf, len,
			       (int)strcspn(want, "\n"), want);
	}
	return bad ? -1 : 0;
}

/*
 * Start agent @i as a session leader with @p as its controlling tty
 * (opened without O_NOCTTY), and check the kernel agrees it has one.
 */
static inline int start_terminal(struct __test_metadata *_metadata, int i,
				 const struct tt_pty *p, int flags)
{
	int ret;

	if (tt_agent_start(i, flags) < 0) {
		TH_LOG("fork agent %d: %s", i, strerror(errno));
		return -1;
	}
	ret = tt_cmd(i, TT_OP_SETSID, 0, 0);
	if (!ret)
		ret = tt_cmd(i, TT_OP_OPEN, p->num, 0);
	if (ret) {
		TH_LOG("agent %d: setsid/open %s: %d", i, p->slave, ret);
		return -1;
	}
	ret = tt_cmd(i, TT_OP_GETTTY, 0, 0);
	if (ret <= 0) {
		TH_LOG("agent %d: no controlling tty after opening %s (tty_nr %d)",
		       i, p->slave, ret);
		return -1;
	}
	return 0;
}

/* Start agent @i in a new session without a controlling tty. */
static inline int start_ttyless(struct __test_metadata *_metadata, int i)
{
	int ret;

	if (tt_agent_start(i, 0) < 0) {
		TH_LOG("fork agent %d: %s", i, strerror(errno));
		return -1;
	}
	ret = tt_cmd(i, TT_OP_SETSID, 0, 0);
	if (ret) {
		TH_LOG("agent %d: setsid: %d", i, ret);
		return -1;
	}
	ret = tt_cmd(i, TT_OP_GETTTY, 0, 0);
	if (ret != 0) {
		TH_LOG("agent %d: tty_nr %d after setsid", i, ret);
		return -1;
	}
	return 0;
}

/* Agent @i forks a spinner on CPU @cpu; its pid, or -1. */
static inline pid_t start_spinner(struct __test_metadata *_metadata, int i,
				  int cpu)
{
	int pid = tt_cmd(i, TT_OP_SPIN, cpu, 0);

	if (pid <= 0) {
		TH_LOG("agent %d: spinner: %d", i, pid);
		return -1;
	}
	return pid;
}

/* Start agent @i and drop it to @uid (0: it stays root). */
static inline int start_as(struct __test_metadata *_metadata, int i, uid_t uid)
{
	ASSERT_LT(0, tt_agent_start(i, 0));
	if (uid)
		ASSERT_EQ(0, tt_cmd(i, TT_OP_DROP, uid, 0));
	return 0;
}

#endif

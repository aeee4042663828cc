// SPDX-License-Identifier: GPL-2.0
/*
 * Tty groups next to autogroup (a boot without noautogroup): a task with
 * a controlling tty runs in its tty group, one without in its session's
 * autogroup, and with the sysctl off the terminal's tasks fall back to
 * their autogroup.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"

TT_FIXTURE(autogroup);

/* The autogroup path of @pid as sched/debug shows it; 0 or -1. */
static int autogroup_of(struct __test_metadata *_metadata, pid_t pid,
			char *out)
{
	if (tt_fallback_group(pid, out) || strncmp(out, "/autogroup-", 11)) {
		TH_LOG("process %d has no autogroup of its own ('%s')", pid,
		       out);
		return -1;
	}
	return 0;
}

TEST_F(autogroup, ctty_vs_autogroup)
{
	char ag_term[TT_PATH_MAX], ag_less[TT_PATH_MAX];
	int cpu = tt_first_cpu(), round;
	struct tt_pty p;
	pid_t term, less;

	if (!tt_autogroup_enabled())
		SKIP(return, "autogroup is disabled (booted with noautogroup)");
	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	ASSERT_EQ(0, start_ttyless(_metadata, 1));
	term = start_spinner(_metadata, 0, cpu);
	less = start_spinner(_metadata, 1, cpu);
	ASSERT_GT(term, 0);
	ASSERT_GT(less, 0);
	/* Both sessions got an autogroup from setsid(), different ones. */
	ASSERT_EQ(0, autogroup_of(_metadata, term, ag_term));
	ASSERT_EQ(0, autogroup_of(_metadata, less, ag_less));
	ASSERT_STRNE(ag_term, ag_less);
	ksft_print_msg("terminal %s (autogroup %s), tty-less autogroup %s\n",
		       p.group, ag_term, ag_less);

	ASSERT_EQ(0, check_sched(_metadata, &term, 1, p.group, 0));
	ASSERT_EQ(0, check_sched(_metadata, &less, 1, ag_less, 0));
	ASSERT_EQ(0, check_proc(_metadata, &less, 1, "", 0));

	for (round = 0; round < 2; round++) {
		ASSERT_EQ(0, tt_sysctl_set(0));
		ASSERT_EQ(0, check_sched(_metadata, &term, 1, ag_term, 0));
		ASSERT_EQ(0, check_sched(_metadata, &less, 1, ag_less, 0));
		ASSERT_EQ(0, check_proc(_metadata, &term, 1, p.line, 0));
		ASSERT_EQ(0, tt_sysctl_set(1));
		ASSERT_EQ(0, check_sched(_metadata, &term, 1, p.group, 0));
		ASSERT_EQ(0, check_sched(_metadata, &less, 1, ag_less, 0));
	}
}

/* Losing the tty (TIOCNOTTY by the leader) lands in the autogroup. */
TEST_F(autogroup, notty_falls_back_to_autogroup)
{
	char ag[TT_PATH_MAX];
	int cpu = tt_first_cpu();
	struct tt_pty p;
	pid_t sp;

	if (!tt_autogroup_enabled())
		SKIP(return, "autogroup is disabled (booted with noautogroup)");
	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	sp = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(sp, 0);
	ASSERT_EQ(0, autogroup_of(_metadata, sp, ag));
	ASSERT_EQ(0, check_sched(_metadata, &sp, 1, p.group, 0));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_NOTTY, 0, 0));
	ASSERT_EQ(0, check_sched(_metadata, &sp, 1, ag, 1));
	ASSERT_EQ(0, check_proc(_metadata, &sp, 1, "", 0));
}

/*
 * Run ttyshare --hogs 1,10 with @detached sessions without a terminal,
 * with the sysctl at 1 and at 0: the first terminal's one hog must get
 * about half each time.
 */
static void half_both_ways(struct __test_metadata *_metadata, const char *detached)
{
	char cpu[16], out[4096];
	char *argv[] = { "/usr/local/bin/ttyshare", "--hogs", "1,10",
			 "--detached", (char *)detached, "--seconds", "2",
			 "--cpu", cpu, NULL };
	double share;
	int v, status;

	if (!tt_autogroup_enabled())
		SKIP(return, "autogroup is disabled (booted with noautogroup)");
	snprintf(cpu, sizeof(cpu), "%d", tt_first_cpu());
	for (v = 1; v >= 0; v--) {
		ASSERT_EQ(0, tt_sysctl_set(v));
		status = tt_run(argv, out, sizeof(out), 60);
		if (status)
			TH_LOG("ttyshare: status %#x, output:\n%s", status, out);
		ASSERT_EQ(0, status);
		share = tt_field(out, "first_hog_share");
		ksft_print_msg("sysctl %d, %s detached: first_hog_share %.4f (ideal 0.50)\n",
			       v, detached, share);
		EXPECT_GE(share, 0.30);
		EXPECT_LE(share, 0.70);
	}
}

/*
 * With autogroup, ttyshare's terminals are separate sessions anyway, so
 * 1 vs 10 hogs is even with the sysctl off (autogroups) and on (tty
 * groups); tty-less sessions too.
 */
TEST_F(autogroup, share_with_autogroup)
{
	half_both_ways(_metadata, "0");
}

/*
 * A terminal with one hog beside a job of ten detached with setsid, in
 * the root cgroup: the job's session has an autogroup of its own, so the
 * terminal gets about half, with the sysctl at 1 (its tty group) as at 0
 * (its autogroup). Below a cgroup, where autogroup does not reach, the
 * same terminal gets 1/11 (ttygroup_cgroup: nest.detached_job_is_not_grouped).
 */
TEST_F(autogroup, detached_job_in_root_cgroup)
{
	half_both_ways(_metadata, "1");
}

TEST_HARNESS_MAIN

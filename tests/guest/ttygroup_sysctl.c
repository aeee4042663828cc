// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.sched_tty_sched_enabled: its boot value (ttysched=), moving all
 * existing tasks at once when written, rejecting bad input and
 * unprivileged writers, and leaving tasks in admin-made cgroups alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"

TT_FIXTURE(sysctl);

/*
 * What the sysctl must read after boot: the last valid ttysched= on the
 * kernel command line, else the default 1. @bad gets the last invalid
 * value ("" if none).
 */
static int cmdline_expect(char *bad, size_t len)
{
	char buf[4096], *tok, *save = NULL;
	int want = 1;

	bad[0] = '\0';
	if (tt_read_file("/proc/cmdline", buf, sizeof(buf)) <= 0)
		return -1;
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (strncmp(tok, "ttysched=", 9))
			continue;
		if (!strcmp(tok + 9, "0"))
			want = 0;
		else if (!strcmp(tok + 9, "1"))
			want = 1;
		else
			snprintf(bad, len, "%s", tok);
	}
	return want;
}

/* A kernel log line about ttysched= other than the command line echo. */
static int klog_mentions_ttysched(char *line, size_t len)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *l, *save = NULL;
	int n, found = 0;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strstr(l, "ttysched") && !strstr(l, "command line")) {
			snprintf(line, len, "%s", l);
			found = 1;
			break;
		}
	}
	free(buf);
	return found;
}

/* The sysctl holds the value the command line asked for (or default 1). */
TEST_F(sysctl, boot_value)
{
	char bad[128], line[512];
	int want;

	want = cmdline_expect(bad, sizeof(bad));
	ASSERT_GE(want, 0);
	ksft_print_msg("command line wants %d%s%s, sysctl reads %d\n", want,
		       bad[0] ? ", ignoring " : "", bad, self->st.boot_sysctl);
	EXPECT_EQ(want, self->st.boot_sysctl);
	if (bad[0]) {
		/* An invalid value is not silently ignored. */
		ASSERT_EQ(1, klog_mentions_ttysched(line, sizeof(line)));
		ksft_print_msg("kernel said: %s\n", line);
	}
}

/*
 * Whatever the boot value, spinners of a terminal are where it says, and
 * writing the other value, then the boot value again, moves them.
 */
TEST_F(sysctl, boot_value_applies)
{
	int cpu = tt_first_cpu(), boot = self->st.boot_sysctl, i, v;
	struct tt_pty p;
	pid_t pids[3];

	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	pids[0] = tt_agent(0)->pid;
	for (i = 1; i < 3; i++) {
		pids[i] = start_spinner(_metadata, 0, cpu);
		ASSERT_GT(pids[i], 0);
	}
	/* The group exists whether or not it is used. */
	ASSERT_EQ(0, check_proc(_metadata, pids, 3, p.line, 0));

	for (i = 0; i < 3; i++) {
		v = i == 1 ? !boot : boot;
		if (i)
			ASSERT_EQ(0, tt_sysctl_set(v));
		ASSERT_EQ(v, tt_sysctl_get());
		ksft_print_msg("sysctl %d: expecting %s\n", v,
			       v ? p.group : "no tty group");
		ASSERT_EQ(0, check_sched(_metadata, pids, 3, v ? p.group : NULL,
					 0));
		ASSERT_EQ(0, check_proc(_metadata, pids, 3, p.line, 0));
	}
}

/*
 * Writing 0 moves every task of a terminal (spinners and the sleeping
 * leader) out of its group before write(2) returns, writing 1 moves them
 * back; /proc/<pid>/ttygroup does not depend on the sysctl.
 */
TEST_F(sysctl, runtime_flip_moves)
{
	int cpu = tt_first_cpu(), round, i;
	struct tt_pty p;
	pid_t pids[5];

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	pids[0] = tt_agent(0)->pid;
	for (i = 1; i < 4; i++) {
		pids[i] = start_spinner(_metadata, 0, cpu);
		ASSERT_GT(pids[i], 0);
	}
	/* A second process of the session, itself an agent. */
	pids[4] = tt_cmd(0, TT_OP_FORK, 1, 0);
	ASSERT_GT(pids[4], 0);
	ASSERT_EQ(0, check_sched(_metadata, pids, 5, p.group, 0));

	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, tt_sysctl_set(0));
		ASSERT_EQ(0, check_sched(_metadata, pids, 5, NULL, 0));
		ASSERT_EQ(0, check_proc(_metadata, pids, 5, p.line, 0));
		ASSERT_EQ(0, tt_sysctl_set(1));
		ASSERT_EQ(0, check_sched(_metadata, pids, 5, p.group, 0));
		ASSERT_EQ(0, check_proc(_metadata, pids, 5, p.line, 0));
	}
	/* Writing the current value again changes nothing. */
	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, check_sched(_metadata, pids, 5, p.group, 0));
}

/* Share of the first pid of @a against all of @a and @b, over @seconds. */
static double measure(const pid_t *a, int na, const pid_t *b, int nb,
		      double seconds, double *total_ms)
{
	double start[16], sa = 0, sb = 0, v;
	int i;

	*total_ms = 0;
	for (i = 0; i < na + nb; i++)
		start[i] = tt_cpu_ns(i < na ? a[i] : b[i - na]);
	tt_sleep(seconds);
	for (i = 0; i < na + nb; i++) {
		v = tt_cpu_ns(i < na ? a[i] : b[i - na]);
		if (v < 0 || start[i] < 0)
			return -1;
		if (i < na)
			sa += v - start[i];
		else
			sb += v - start[i];
	}
	*total_ms = (sa + sb) / 1e6;
	return sa + sb > 0 ? sa / (sa + sb) : -1;
}

/*
 * The share effect of flipping the sysctl while the hogs run: 1 hog in
 * terminal A, 10 in terminal B, all on one CPU.
 */
TEST_F(sysctl, runtime_flip_share)
{
	static const int phase[] = { 1, 0, 1 };
	int cpu = tt_first_cpu(), i;
	double share, total = 0;
	struct tt_pty pa, pb;
	pid_t a[1], b[10];

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&pa));
	ASSERT_EQ(0, tt_pty_open(&pb));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &pa, 0));
	ASSERT_EQ(0, start_terminal(_metadata, 1, &pb, 0));
	a[0] = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(a[0], 0);
	for (i = 0; i < 10; i++) {
		b[i] = start_spinner(_metadata, 1, cpu);
		ASSERT_GT(b[i], 0);
	}
	ASSERT_EQ(0, check_sched(_metadata, a, 1, pa.group, 2));
	ASSERT_EQ(0, check_sched(_metadata, b, 10, pb.group, 2));

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, tt_sysctl_set(phase[i]));
		tt_sleep(0.5);
		share = measure(a, 1, b, 10, 2.5, &total);
		ksft_print_msg("sysctl %d: hog of A gets %.4f (ideal %s), hogs used %.0f ms\n",
			       phase[i], share, phase[i] ? "0.50" : "0.09",
			       total);
		ASSERT_GT(total, 750.0);
		if (phase[i]) {
			EXPECT_GE(share, 0.30);
			EXPECT_LE(share, 0.70);
		} else {
			EXPECT_LT(share, 0.20);
			EXPECT_GT(share, 0.01);
		}
	}
}

/*
 * Everything but 0 and 1 is EINVAL, and the value stays as it was. The
 * empty value is what `echo "" >` writes, "\n": a write(2) of 0 bytes
 * is a no-op that succeeds for every proc_douintvec sysctl, so for it
 * only the value is checked.
 */
TEST_F(sysctl, bad_values)
{
	static const char *const bad[] = {
		"2", "-1", "abc", "1abc", "\n", "2\n", " ", "10",
		"4294967297", "1x", "-0",
	};
	static const char *const good[] = { "0", "1", "0\n", "1\n", " 1\n" };
	unsigned int i;
	int start, ret;

	for (start = 1; start >= 0; start--) {
		ASSERT_EQ(0, tt_sysctl_set(start));
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ret = tt_write_file(TT_SYSCTL, bad[i], strlen(bad[i]));
			if (ret != -EINVAL)
				TH_LOG("writing '%s' (%zu bytes) to %d: %s", bad[i],
				       strlen(bad[i]), start,
				       ret ? strerror(-ret) : "accepted");
			EXPECT_EQ(-EINVAL, ret);
			EXPECT_EQ(start, tt_sysctl_get());
		}
		ret = tt_write_file(TT_SYSCTL, "", 0);
		EXPECT_TRUE(ret == 0 || ret == -EINVAL);
		EXPECT_EQ(start, tt_sysctl_get());
	}
	/* The same path does accept the valid values. */
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ret = tt_write_str(TT_SYSCTL, good[i]);
		EXPECT_EQ(0, ret);
		EXPECT_EQ(good[i][strspn(good[i], " ")] - '0', tt_sysctl_get());
	}
}

/* uid 1000 can read the sysctl, not write it. */
TEST_F(sysctl, unprivileged_write_denied)
{
	struct stat sb;
	int v, ret;

	ASSERT_EQ(0, stat(TT_SYSCTL, &sb));
	EXPECT_EQ(0644U, sb.st_mode & 07777);
	EXPECT_EQ((uid_t)0, sb.st_uid);

	for (v = 0; v <= 1; v++) {
		ASSERT_EQ(0, tt_sysctl_set(v));
		ASSERT_EQ(0, tt_agents_init(1));
		ASSERT_GT(tt_agent_start(0, 0), 0);
		ASSERT_EQ(0, tt_cmd(0, TT_OP_DROP, TT_UID1, 0));
		ret = tt_cmd(0, TT_OP_SYSCTL, !v, 0);
		if (ret != -EACCES && ret != -EPERM)
			TH_LOG("uid %d writing %d: %d", TT_UID1, !v, ret);
		EXPECT_TRUE(ret == -EACCES || ret == -EPERM);
		EXPECT_EQ(v, tt_sysctl_get());
		tt_cmd(0, TT_OP_EXIT, 0, 0);
		tt_agent_wait(0, 5);
	}
}

/*
 * A task the administrator moved into a cgroup with the cpu controller
 * stays inside it whatever the sysctl says: in its terminal's group below
 * the cgroup with the sysctl at 1, in the cgroup's own group at 0. Back in
 * the root cgroup it is in its terminal's group at the top again.
 */
TEST_F(sysctl, cgroup_task_nests)
{
	char nested[TT_PATH_MAX + 16], nested_line[TT_PATH_MAX + 16];
	int cpu = tt_first_cpu(), round;
	struct tt_pty p;
	pid_t s[2];
	int ret;

	ASSERT_EQ(0, tt_sysctl_set(1));
	ret = tt_cgroup_create(&self->st);
	if (ret)
		TH_LOG("creating %s with +cpu: %s", TT_CGROUP, strerror(-ret));
	ASSERT_EQ(0, ret);

	ASSERT_EQ(0, tt_pty_open(&p));
	snprintf(nested, sizeof(nested), "/dstest%s", p.group);
	snprintf(nested_line, sizeof(nested_line), "/dstest%s", p.line);
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	s[0] = start_spinner(_metadata, 0, cpu);
	s[1] = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(s[0], 0);
	ASSERT_GT(s[1], 0);
	ASSERT_EQ(0, check_sched(_metadata, s, 2, p.group, 0));

	ASSERT_EQ(0, tt_cgroup_move(TT_CGROUP, s[0]));
	ASSERT_EQ(0, check_sched(_metadata, s, 1, nested, 0));
	ASSERT_EQ(0, check_sched(_metadata, s + 1, 1, p.group, 0));
	/* /proc shows the group of the terminal in the task's cgroup. */
	ASSERT_EQ(0, check_proc(_metadata, s, 1, nested_line, 0));
	ASSERT_EQ(0, check_proc(_metadata, s + 1, 1, p.line, 0));

	for (round = 0; round < 2; round++) {
		ASSERT_EQ(0, tt_sysctl_set(0));
		ASSERT_EQ(0, check_sched(_metadata, s, 1, "/dstest", 0));
		ASSERT_EQ(0, check_sched(_metadata, s + 1, 1, NULL, 0));
		ASSERT_EQ(0, tt_sysctl_set(1));
		ASSERT_EQ(0, check_sched(_metadata, s, 1, nested, 0));
		ASSERT_EQ(0, check_sched(_metadata, s + 1, 1, p.group, 0));
	}

	ASSERT_EQ(0, tt_cgroup_move(TT_CGROOT, s[0]));
	ASSERT_EQ(0, check_sched(_metadata, s, 2, p.group, 0));
	/* And with the sysctl off it follows the others out. */
	ASSERT_EQ(0, tt_sysctl_set(0));
	ASSERT_EQ(0, check_sched(_metadata, s, 2, NULL, 0));
}

TEST_HARNESS_MAIN

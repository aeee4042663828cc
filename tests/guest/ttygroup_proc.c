// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/ttygroup and debugfs sched/ttygroups: what they read, when
 * a group exists, renicing a terminal group and who may do it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"

TT_FIXTURE(proc);

/* "/ttygroup-ptsN nice N\n" */
static void line_for(const struct tt_pty *p, int nice, char *buf, size_t len)
{
	snprintf(buf, len, "/ttygroup-%s nice %d\n", p->name, nice);
}

/*
 * A terminal process reads "/ttygroup-ptsN nice 0\n" whatever the sysctl
 * says; debugfs lists the group once.
 */
TEST_F(proc, read_format)
{
	struct tt_pty p;
	char buf[256];
	pid_t pid;
	int v;

	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	pid = tt_agent(0)->pid;
	for (v = 0; v <= 1; v++) {
		ASSERT_EQ(0, tt_sysctl_set(v));
		ASSERT_EQ((ssize_t)strlen(p.line),
			  tt_proc_ttygroup(pid, buf, sizeof(buf)));
		ASSERT_STREQ(p.line, buf);
		ASSERT_EQ(self->st.base_groups + 1, tt_groups_count());
		ASSERT_EQ(0, tt_groups_nice(p.name));
	}
}

/*
 * Opening a pty creates no group; neither does a session leader opening
 * the slave with O_NOCTTY. The group appears when a session takes the tty
 * as its controlling terminal, and there is only one per tty.
 */
TEST_F(proc, group_created_on_ctty)
{
	int base = self->st.base_groups, fd;
	struct tt_pty p;
	pid_t pid;

	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(base, tt_groups_count());
	/* Not a session leader: can not acquire it, creates nothing. */
	fd = open(p.slave, O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(base, tt_groups_count());

	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_ttyless(_metadata, 0));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OPEN, p.num, 1));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_GETTTY, 0, 0));
	ASSERT_EQ(base, tt_groups_count());

	ASSERT_EQ(0, start_ttyless(_metadata, 1));
	ASSERT_EQ(0, tt_cmd(1, TT_OP_OPEN, p.num, 0));
	ASSERT_GT(tt_cmd(1, TT_OP_GETTTY, 0, 0), 0);
	pid = tt_agent(1)->pid;
	ASSERT_EQ(0, check_proc(_metadata, &pid, 1, p.line, 0));
	ASSERT_EQ(base + 1, tt_groups_count());

	/* Another session's controlling tty can not be taken (no steal). */
	ASSERT_EQ(-EPERM, tt_cmd(0, TT_OP_SCTTY, 0, 0));
	pid = tt_agent(0)->pid;
	ASSERT_EQ(0, check_proc(_metadata, &pid, 1, "", 0));
	ASSERT_EQ(base + 1, tt_groups_count());
}

/*
 * A session without a controlling tty: /proc/<pid>/ttygroup is empty and
 * its tasks run in the fallback group ("/" with noautogroup, their own
 * autogroup otherwise), whatever the sysctl.
 */
TEST_F(proc, no_ctty_session)
{
	int cpu = tt_first_cpu(), v;
	char fb[TT_PATH_MAX];
	pid_t pids[2];

	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_ttyless(_metadata, 0));
	pids[0] = tt_agent(0)->pid;
	pids[1] = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(pids[1], 0);
	ASSERT_EQ(0, tt_fallback_group(pids[1], fb));
	ksft_print_msg("autogroup %s, tty-less spinner expected in %s\n",
		       tt_autogroup_enabled() ? "enabled" : "disabled", fb);
	if (tt_autogroup_enabled())
		ASSERT_EQ(0, strncmp(fb, "/autogroup-", 11));
	for (v = 1; v >= 0; v--) {
		ASSERT_EQ(0, tt_sysctl_set(v));
		ASSERT_EQ(0, check_proc(_metadata, pids, 2, "", 0));
		ASSERT_EQ(0, check_sched(_metadata, pids + 1, 1, fb, 0));
	}
	ASSERT_EQ(self->st.base_groups, tt_groups_count());
}

/*
 * Root renices a terminal group through any member's file; every member
 * reads the new nice, debugfs agrees, other terminals are untouched.
 */
TEST_F(proc, renice_root)
{
	static const struct { const char *w; int nice; } seq[] = {
		{ "19", 19 }, { "-5", -5 }, { " 7\n", 7 }, { "-20", -20 },
		{ "0", 0 },
	};
	struct tt_pty p, q;
	char want[128];
	unsigned int i;
	pid_t pids[2], other;

	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_pty_open(&q));
	ASSERT_EQ(0, tt_agents_init(3));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	ASSERT_EQ(0, start_terminal(_metadata, 2, &q, 0));
	pids[0] = tt_agent(0)->pid;
	pids[1] = tt_cmd(0, TT_OP_FORK, 1, 0);
	other = tt_agent(2)->pid;
	ASSERT_GT(pids[1], 0);

	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		ASSERT_EQ(0, tt_proc_ttygroup_write(pids[i % 2], seq[i].w));
		line_for(&p, seq[i].nice, want, sizeof(want));
		ASSERT_EQ(0, check_proc(_metadata, pids, 2, want, 0));
		ASSERT_EQ(seq[i].nice, tt_groups_nice(p.name));
		ASSERT_EQ(0, check_proc(_metadata, &other, 1, q.line, 0));
		ASSERT_EQ(0, tt_groups_nice(q.name));
	}
}

/* Out-of-range and non-numeric nice values: EINVAL, nothing changes. */
TEST_F(proc, renice_bad_values)
{
	static const char *const bad[] = {
		"20", "-21", "100", "abc", "", "\n", "1abc", "5 5",
		"--1", "0x", "+-3",
	};
	struct tt_pty p;
	char want[128];
	unsigned int i;
	pid_t pid;
	int ret;

	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	pid = tt_agent(0)->pid;
	ASSERT_EQ(0, tt_proc_ttygroup_write(pid, "3"));
	line_for(&p, 3, want, sizeof(want));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = tt_proc_ttygroup_write(pid, bad[i]);
		if (ret != -EINVAL)
			TH_LOG("writing '%s': %s", bad[i],
			       ret ? strerror(-ret) : "accepted");
		EXPECT_EQ(-EINVAL, ret);
		EXPECT_EQ(0, check_proc(_metadata, &pid, 1, want, 0));
	}
	EXPECT_EQ(3, tt_groups_nice(p.name));
}

/*
 * An unprivileged user: its file is its own (0644); it may raise its
 * terminal's nice but not lower it below 0 (EPERM), at most once per
 * 100 ms (EAGAIN), and not touch another user's terminal (EACCES).
 */
TEST_F(proc, renice_unprivileged)
{
	struct tt_pty p, q;
	char want[128], path[64];
	int try, r1, r2, limited = 0;
	pid_t pid, other;
	struct stat sb;
	double t0, t1;

	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_pty_open(&q));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	ASSERT_EQ(0, start_terminal(_metadata, 1, &q, 0));
	pid = tt_agent(0)->pid;
	other = tt_agent(1)->pid;
	ASSERT_EQ(0, tt_cmd(0, TT_OP_DROP, TT_UID1, 0));
	ASSERT_EQ(0, tt_cmd(1, TT_OP_DROP, TT_UID2, 0));

	snprintf(path, sizeof(path), "/proc/%d/ttygroup", pid);
	ASSERT_EQ(0, stat(path, &sb));
	EXPECT_EQ(0644U, sb.st_mode & 07777);
	EXPECT_EQ((uid_t)TT_UID1, sb.st_uid);

	tt_sleep(0.15);
	ASSERT_EQ(-EPERM, tt_cmd(0, TT_OP_NICE, 0, -1));
	ASSERT_EQ(0, check_proc(_metadata, &pid, 1, p.line, 0));

	for (try = 0; try < 3 && !limited; try++) {
		tt_sleep(0.15);
		t0 = mono_seconds();
		r1 = tt_cmd(0, TT_OP_NICE, 0, 5);
		r2 = tt_cmd(0, TT_OP_NICE, 0, 6);
		t1 = mono_seconds();
		ASSERT_EQ(0, r1);
		if (r2 == -EAGAIN) {
			limited = 1;
			break;
		}
		/* Only a guest stalled for 100 ms may excuse a success. */
		TH_LOG("second renice %.3f s after the first: %d", t1 - t0, r2);
		ASSERT_GE(t1 - t0, 0.08);
	}
	ASSERT_TRUE(limited);
	line_for(&p, 5, want, sizeof(want));
	ASSERT_EQ(0, check_proc(_metadata, &pid, 1, want, 0));
	ASSERT_EQ(5, tt_groups_nice(p.name));

	/* Back to 0 is no negative nice: allowed after the rate limit. */
	tt_sleep(0.15);
	ASSERT_EQ(0, tt_cmd(0, TT_OP_NICE, 0, 0));
	ASSERT_EQ(0, check_proc(_metadata, &pid, 1, p.line, 0));

	tt_sleep(0.15);
	ASSERT_EQ(-EACCES, tt_cmd(0, TT_OP_NICE, other, 3));
	ASSERT_EQ(0, check_proc(_metadata, &other, 1, q.line, 0));
	/* And the other user can renice its own. */
	tt_sleep(0.15);
	ASSERT_EQ(0, tt_cmd(1, TT_OP_NICE, 0, 2));
	line_for(&q, 2, want, sizeof(want));
	ASSERT_EQ(0, check_proc(_metadata, &other, 1, want, 0));
}

/* No tty, no group to renice: ENOENT, for root and for the process. */
TEST_F(proc, enoent_without_tty)
{
	pid_t pid;

	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_ttyless(_metadata, 0));
	pid = tt_agent(0)->pid;
	EXPECT_EQ(-ENOENT, tt_proc_ttygroup_write(pid, "0"));
	EXPECT_EQ(-ENOENT, tt_proc_ttygroup_write(pid, "19"));
	EXPECT_EQ(-ENOENT, tt_cmd(0, TT_OP_NICE, 0, 10));
	EXPECT_EQ(0, check_proc(_metadata, &pid, 1, "", 0));
	EXPECT_EQ(self->st.base_groups, tt_groups_count());
}

TEST_HARNESS_MAIN

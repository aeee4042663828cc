// SPDX-License-Identifier: GPL-2.0
/*
 * The tty group follows the controlling terminal through every way a
 * process gains or loses one: setsid(), TIOCSCTTY, TIOCNOTTY, vhangup(),
 * hangup by the pty master closing, the session leader exiting, the tty
 * being freed under its users, fork() and threads.
 *
 * Checked from the outside through /proc/<pid>/ttygroup and, for the
 * tasks' actual scheduling, sched/debug (spinners, pinned to one CPU).
 * "Fallback" is where a task goes without a tty group: "/" with
 * noautogroup, its autogroup otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tt_harness.h"
#include "ttytest.h"
#include "tt_checks.h"

TT_FIXTURE(trans);

#define FALLBACK	NULL

/* setsid() in a member leaves the terminal's group; the leader stays. */
TEST_F(trans, setsid_leaves)
{
	int cpu = tt_first_cpu();
	pid_t leader, member, sp[2];
	struct tt_pty p;

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	leader = tt_agent(0)->pid;
	member = tt_cmd(0, TT_OP_FORK, 1, 0);
	ASSERT_GT(member, 0);
	ASSERT_EQ(0, check_proc(_metadata, &member, 1, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, &member, 1, p.group, 0));

	ASSERT_EQ(0, tt_cmd(1, TT_OP_SETSID, 0, 0));
	ASSERT_EQ(0, tt_cmd(1, TT_OP_GETTTY, 0, 0));
	ASSERT_EQ(0, check_proc(_metadata, &member, 1, "", 0));
	ASSERT_EQ(0, check_sched(_metadata, &member, 1, FALLBACK, 0));
	ASSERT_EQ(0, check_proc(_metadata, &leader, 1, p.line, 0));

	sp[0] = start_spinner(_metadata, 1, cpu);	/* new session's */
	sp[1] = start_spinner(_metadata, 0, cpu);	/* terminal's */
	ASSERT_GT(sp[0], 0);
	ASSERT_GT(sp[1], 0);
	ASSERT_EQ(0, check_proc(_metadata, sp, 1, "", 0));
	ASSERT_EQ(0, check_sched(_metadata, sp, 1, FALLBACK, 0));
	ASSERT_EQ(0, check_proc(_metadata, sp + 1, 1, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, sp + 1, 1, p.group, 0));
}

/*
 * A session leader that opened the slave with O_NOCTTY has no group, and
 * no group exists yet; TIOCSCTTY makes the tty its controlling terminal
 * and puts it (and what it forks later) in the new group. A child forked
 * before keeps no tty.
 */
TEST_F(trans, tiocsctty_joins)
{
	int cpu = tt_first_cpu();
	pid_t leader, early, late;
	struct tt_pty p;

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_ttyless(_metadata, 0));
	leader = tt_agent(0)->pid;
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OPEN, p.num, 1));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_GETTTY, 0, 0));
	ASSERT_EQ(0, check_proc(_metadata, &leader, 1, "", 0));
	ASSERT_EQ(self->st.base_groups, tt_groups_count());
	early = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(early, 0);
	ASSERT_EQ(0, check_sched(_metadata, &early, 1, FALLBACK, 0));

	ASSERT_EQ(0, tt_cmd(0, TT_OP_SCTTY, 0, 0));
	ASSERT_GT(tt_cmd(0, TT_OP_GETTTY, 0, 0), 0);
	ASSERT_EQ(0, check_proc(_metadata, &leader, 1, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, &leader, 1, p.group, 0));
	ASSERT_EQ(self->st.base_groups + 1, tt_groups_count());
	ASSERT_EQ(0, tt_groups_nice(p.name));

	late = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(late, 0);
	ASSERT_EQ(0, check_proc(_metadata, &late, 1, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, &late, 1, p.group, 0));
	ASSERT_EQ(0, check_proc(_metadata, &early, 1, "", 0));
	ASSERT_EQ(0, check_sched(_metadata, &early, 1, FALLBACK, 0));
}

/* TIOCNOTTY in a member: only the member leaves. */
TEST_F(trans, tiocnotty_member)
{
	int cpu = tt_first_cpu();
	pid_t leader, member, sp[2];
	struct tt_pty p;

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	leader = tt_agent(0)->pid;
	member = tt_cmd(0, TT_OP_FORK, 1, 0);
	ASSERT_GT(member, 0);
	sp[0] = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(sp[0], 0);
	ASSERT_EQ(0, check_proc(_metadata, &member, 1, p.line, 0));

	ASSERT_EQ(0, tt_cmd(1, TT_OP_NOTTY, 0, 0));
	ASSERT_EQ(0, tt_cmd(1, TT_OP_GETTTY, 0, 0));
	ASSERT_GT(tt_cmd(0, TT_OP_GETTTY, 0, 0), 0);
	ASSERT_EQ(0, check_proc(_metadata, &member, 1, "", 0));
	ASSERT_EQ(0, check_sched(_metadata, &member, 1, FALLBACK, 0));
	ASSERT_EQ(0, check_proc(_metadata, &leader, 1, p.line, 0));
	ASSERT_EQ(0, check_proc(_metadata, sp, 1, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, sp, 1, p.group, 0));

	sp[1] = start_spinner(_metadata, 1, cpu);
	ASSERT_GT(sp[1], 0);
	ASSERT_EQ(0, check_proc(_metadata, sp + 1, 1, "", 0));
	ASSERT_EQ(0, check_sched(_metadata, sp + 1, 1, FALLBACK, 0));
}

/*
 * Set up a terminal for the tests that take the tty from a whole session:
 * leader (agent 0), a member agent (agent 1, @member_flags) and a spinner
 * of each. pids[] = leader, member, spinner of leader, spinner of member.
 */
static int session_of_four(struct __test_metadata *_metadata,
			   struct tt_pty *p, int member_flags, pid_t *pids)
{
	int cpu = tt_first_cpu();

	if (tt_sysctl_set(1) || tt_pty_open(p) || tt_agents_init(2) ||
	    start_terminal(_metadata, 0, p, 0))
		return -1;
	pids[0] = tt_agent(0)->pid;
	pids[1] = tt_cmd(0, TT_OP_FORK, 1, member_flags);
	pids[2] = start_spinner(_metadata, 0, cpu);
	pids[3] = start_spinner(_metadata, 1, cpu);
	if (pids[1] <= 0 || pids[2] <= 0 || pids[3] <= 0)
		return -1;
	if (check_proc(_metadata, pids, 4, p->line, 0) ||
	    check_sched(_metadata, pids, 4, p->group, 0))
		return -1;
	return 0;
}

/* After the session lost its tty: nobody has it, nobody is in the group. */
static int session_lost_tty(struct __test_metadata *_metadata,
			    const pid_t *pids, int n, int first_agent)
{
	int i, nr;

	if (check_proc(_metadata, pids, n, "", 2) ||
	    check_sched(_metadata, pids, n, FALLBACK, 1))
		return -1;
	for (i = first_agent; i < 2; i++) {
		nr = tt_cmd(i, TT_OP_GETTTY, 0, 0);
		if (nr) {
			TH_LOG("agent %d still has tty_nr %d", i, nr);
			return -1;
		}
	}
	return 0;
}

/* TIOCNOTTY in the session leader takes the tty from the whole session. */
TEST_F(trans, tiocnotty_leader)
{
	struct tt_pty p;
	pid_t pids[4];

	ASSERT_EQ(0, session_of_four(_metadata, &p, 0, pids));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_NOTTY, 0, 0));
	ASSERT_EQ(0, session_lost_tty(_metadata, pids, 4, 0));
}

/* vhangup() by the leader takes the tty from every member. */
TEST_F(trans, vhangup_session)
{
	struct tt_pty p;
	pid_t pids[4];

	ASSERT_EQ(0, session_of_four(_metadata, &p, 0, pids));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_VHANGUP, 0, 0));
	ASSERT_EQ(0, session_lost_tty(_metadata, pids, 4, 0));
}

/* Closing the pty master hangs up the slave: same effect. */
TEST_F(trans, master_close_hangup)
{
	struct tt_pty p;
	pid_t pids[4];

	ASSERT_EQ(0, session_of_four(_metadata, &p, 0, pids));
	tt_pty_close(&p);
	ASSERT_EQ(0, session_lost_tty(_metadata, pids, 4, 0));
}

/* The session leader exits: the members that stay lose the tty. */
TEST_F(trans, leader_exit)
{
	struct tt_pty p;
	pid_t pids[4];
	int status;

	ASSERT_EQ(0, session_of_four(_metadata, &p, TT_NO_PDEATHSIG, pids));
	/* The leader's spinner dies with it (PDEATHSIG); the member's not. */
	ASSERT_EQ(0, tt_cmd(0, TT_OP_EXIT, 0, 0));
	status = tt_agent_wait(0, 5);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, tt_cmd(1, TT_OP_PING, 0, 0));
	pids[0] = pids[1];
	pids[1] = pids[3];
	ASSERT_EQ(0, session_lost_tty(_metadata, pids, 2, 1));
}

/*
 * The tty is closed and freed while processes still have it as their
 * controlling terminal: no open fd anywhere, then the master closes. They
 * keep running without it, the leader can take a new tty, and once they
 * are gone no group is left.
 */
TEST_F(trans, freed_while_referenced)
{
	int cpu = tt_first_cpu(), n;
	struct tt_pty p, q;
	pid_t pids[3], sp;

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	pids[0] = tt_agent(0)->pid;
	pids[1] = tt_cmd(0, TT_OP_FORK, 1, 0);
	ASSERT_GT(pids[1], 0);
	pids[2] = start_spinner(_metadata, 1, cpu);
	ASSERT_GT(pids[2], 0);

	/* The leader's fd was the last one on the slave. */
	ASSERT_EQ(0, tt_cmd(0, TT_OP_CLOSE, 0, 0));
	ASSERT_GT(tt_cmd(0, TT_OP_GETTTY, 0, 0), 0);
	ASSERT_EQ(0, check_proc(_metadata, pids, 3, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, pids, 3, p.group, 0));

	tt_pty_close(&p);
	ASSERT_EQ(0, session_lost_tty(_metadata, pids, 3, 0));
	/* Renicing a group that is gone. */
	ASSERT_EQ(-ENOENT, tt_cmd(0, TT_OP_NICE, 0, 5));
	n = tt_groups_wait_count(self->st.base_groups, 3);
	ksft_print_msg("tty groups with the processes still alive: %d (baseline %d)\n",
		       n, self->st.base_groups);

	/* Life goes on: the leader takes another tty, then a new group. */
	ASSERT_EQ(0, tt_pty_open(&q));
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OPEN, q.num, 0));
	ASSERT_GT(tt_cmd(0, TT_OP_GETTTY, 0, 0), 0);
	ASSERT_EQ(0, check_proc(_metadata, pids, 1, q.line, 0));
	sp = start_spinner(_metadata, 0, cpu);
	ASSERT_GT(sp, 0);
	ASSERT_EQ(0, check_sched(_metadata, &sp, 1, q.group, 0));
	/* The member had the old tty, it gets no new one. */
	ASSERT_EQ(0, check_proc(_metadata, pids + 1, 2, "", 0));

	tt_kill_all();
	tt_pty_close(&q);
	ASSERT_EQ(self->st.base_groups,
		  tt_groups_wait_count(self->st.base_groups, 5));
}

/*
 * Children inherit the terminal group, also when forked while the sysctl
 * is off (and then join it once it is on again).
 */
TEST_F(trans, fork_inherits)
{
	int cpu = tt_first_cpu();
	struct tt_pty p;
	pid_t pids[4];

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(2));
	ASSERT_EQ(0, start_terminal(_metadata, 0, &p, 0));
	pids[0] = tt_cmd(0, TT_OP_FORK, 1, 0);		/* child */
	ASSERT_GT(pids[0], 0);
	pids[1] = start_spinner(_metadata, 0, cpu);	/* child */
	pids[2] = start_spinner(_metadata, 1, cpu);	/* grandchild */
	ASSERT_GT(pids[1], 0);
	ASSERT_GT(pids[2], 0);
	ASSERT_EQ(0, check_proc(_metadata, pids, 3, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, pids, 3, p.group, 0));

	ASSERT_EQ(0, tt_sysctl_set(0));
	pids[3] = start_spinner(_metadata, 1, cpu);
	ASSERT_GT(pids[3], 0);
	ASSERT_EQ(0, check_proc(_metadata, pids + 3, 1, p.line, 0));
	ASSERT_EQ(0, check_sched(_metadata, pids, 4, FALLBACK, 0));
	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, check_sched(_metadata, pids, 4, p.group, 0));
}

/* Poll until process @pid has @want threads; the count seen. */
static int wait_tids(pid_t pid, pid_t *tids, int want)
{
	double end = mono_seconds() + 3;
	int n;

	for (;;) {
		n = tt_tids(pid, tids, 16);
		if (n == want || mono_seconds() > end)
			return n;
		tt_sleep(0.02);
	}
}

/*
 * Every thread of a process is in the group: threads that existed before
 * the process took the tty, threads started after; all leave together.
 */
TEST_F(trans, threads_in_group)
{
	int cpu = tt_first_cpu();
	struct tt_pty p;
	pid_t tids[16], leader;

	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, tt_pty_open(&p));
	ASSERT_EQ(0, tt_agents_init(1));
	ASSERT_EQ(0, start_ttyless(_metadata, 0));
	leader = tt_agent(0)->pid;
	ASSERT_EQ(0, tt_cmd(0, TT_OP_THREADS, 2, cpu));
	ASSERT_EQ(3, wait_tids(leader, tids, 3));
	ASSERT_EQ(0, check_sched(_metadata, tids, 3, FALLBACK, 0));

	/* Taking the tty moves the existing threads. */
	ASSERT_EQ(0, tt_cmd(0, TT_OP_OPEN, p.num, 0));
	ASSERT_GT(tt_cmd(0, TT_OP_GETTTY, 0, 0), 0);
	ASSERT_EQ(0, check_sched(_metadata, tids, 3, p.group, 0));

	ASSERT_EQ(0, tt_cmd(0, TT_OP_THREADS, 2, cpu));
	ASSERT_EQ(5, wait_tids(leader, tids, 5));
	ASSERT_EQ(0, check_sched(_metadata, tids, 5, p.group, 0));

	ASSERT_EQ(0, tt_sysctl_set(0));
	ASSERT_EQ(0, check_sched(_metadata, tids, 5, FALLBACK, 0));
	ASSERT_EQ(0, tt_sysctl_set(1));
	ASSERT_EQ(0, check_sched(_metadata, tids, 5, p.group, 0));

	ASSERT_EQ(0, tt_cmd(0, TT_OP_NOTTY, 0, 0));
	ASSERT_EQ(0, check_sched(_metadata, tids, 5, FALLBACK, 0));
	ASSERT_EQ(0, check_proc(_metadata, &leader, 1, "", 0));
}

TEST_HARNESS_MAIN

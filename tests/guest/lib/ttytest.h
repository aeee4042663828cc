/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the desksched guest tests (tests/guest/ttygroup_*.c).
 *
 * The tests run as root inside the QEMU guest booted with the patched
 * kernel, never on the build host. They drive "agents": forked helper
 * processes that execute commands (setsid, open a pty slave, TIOCSCTTY,
 * TIOCNOTTY, vhangup, fork another agent, start spinners, drop privileges,
 * write /proc files, ...) sent over a socket, so that a test can move
 * processes between sessions and terminals step by step and look at them
 * from the outside (/proc/<pid>/ttygroup, sched/debug) in between.
 *
 * Every process the tests start is recorded in a registry in shared
 * memory; tt_teardown() kills them all, reaps them (the test process is a
 * child subreaper), removes the test cgroup, restores the sysctl to its
 * value at setup, and checks that no tty group was left behind.
 */
#ifndef DESKSCHED_TTYTEST_H
#define DESKSCHED_TTYTEST_H

#include <stddef.h>
#include <sys/types.h>
#include "clock.h"

#define TT_SYSCTL	"/proc/sys/kernel/sched_tty_sched_enabled"
#define TT_AUTOGROUP_SYSCTL "/proc/sys/kernel/sched_autogroup_enabled"
#ifndef TT_GROUPS
#define TT_GROUPS	"/sys/kernel/debug/sched/ttygroups"
#endif
#ifndef TT_SCHED_DEBUG
#define TT_SCHED_DEBUG	"/sys/kernel/debug/sched/debug"
#endif
#define TT_CGROOT	"/sys/fs/cgroup"
#define TT_CGROUP	"/sys/fs/cgroup/dstest"

#define TT_UID1		1000	/* user1 */
#define TT_UID2		1001	/* user2 */

#define TT_PATH_MAX	128
#define TT_MAX_AGENTS	16

/* ---- files ---------------------------------------------------------- */

/* Read up to @len - 1 bytes, NUL-terminate. Returns bytes read or -errno. */
ssize_t tt_read_file(const char *path, char *buf, size_t len);
/* open(O_WRONLY) + one write(2) of @len bytes. 0 or -errno (of either). */
int tt_write_file(const char *path, const char *s, size_t len);
int tt_write_str(const char *path, const char *s);

/* ---- the sysctl ----------------------------------------------------- */

int tt_sysctl_get(void);			/* 0, 1, or -1 */
int tt_sysctl_set(int v);			/* 0 or -errno */
int tt_autogroup_enabled(void);			/* 0 or 1 */

/* ---- tty groups ----------------------------------------------------- */

/* Lines in debugfs sched/ttygroups, or -1. */
int tt_groups_count(void);
/* Poll up to @seconds for the count to drop to @want; the last count. */
int tt_groups_wait_count(int want, double seconds);
/* nice of the live group of tty @name ("pts3"), -100 if not listed. */
int tt_groups_nice(const char *name);
/*
 * The debugfs line of tty @name: "pts3 nice 0 /ttygroup-pts3 /a/ttygroup-pts3",
 * its name, nice value and the path of its group in each cgroup. 0 or -1.
 */
int tt_groups_line(const char *name, char *out, size_t len);

/* /proc/<pid>/ttygroup: bytes read (0 = empty) or -errno. */
ssize_t tt_proc_ttygroup(pid_t pid, char *buf, size_t len);
/* Write @s to /proc/<pid>/ttygroup: 0 or -errno. */
int tt_proc_ttygroup_write(pid_t pid, const char *s);

/*
 * Task group paths of @n tasks (pids or tids) from one read of
 * sched/debug: out[i] is the path, or "" if the task was not listed.
 * Rereads (up to a few times) only while some task is missing, never
 * because of its group. Returns how many were found, or -1.
 */
int tt_sched_groups(const pid_t *pids, int n, char (*out)[TT_PATH_MAX]);
/*
 * @fn for each task in debugfs sched/debug with its group's path, until
 * it returns non-zero, which is returned; -1 if the file cannot be read.
 */
int tt_sched_each_task(int (*fn)(pid_t pid, const char *group, void *arg),
		       void *arg);
int tt_sched_group(pid_t pid, char *out);	/* 0 or -1 */
/* Poll up to @seconds until all @n tasks show @want; count that did. */
int tt_sched_wait_all(const pid_t *pids, int n, const char *want,
		      double seconds, char (*out)[TT_PATH_MAX]);
/*
 * Where @pid is scheduled without a tty group: its autogroup when
 * autogroup is enabled ("/" for the default autogroup), else "/".
 */
int tt_fallback_group(pid_t pid, char *out);

/* ---- ptys ----------------------------------------------------------- */

struct tt_pty {
	int master;		/* -1 once closed */
	int num;		/* N of /dev/pts/N */
	char slave[TT_PATH_MAX];
	char name[32];		/* "ptsN" */
	char group[TT_PATH_MAX]; /* "/ttygroup-ptsN" */
	char line[TT_PATH_MAX];	/* "/ttygroup-ptsN nice 0\n" */
};

/* O_NOCTTY|O_CLOEXEC master; 0 or -errno. */
int tt_pty_open(struct tt_pty *p);
void tt_pty_close(struct tt_pty *p);

/* ---- processes ------------------------------------------------------ */

struct tt_state {
	int boot_sysctl;	/* value at setup, restored at teardown */
	int base_groups;	/* ttygroups line count at setup */
	int cgroup_made;
	int cpu_enabled_by_us;
};

/* Record the baseline, become subreaper, create the registry. 0 or -1. */
int tt_setup(struct tt_state *st, char *err, size_t errlen);
/*
 * Kill and reap everything started, remove the cgroup, restore the
 * sysctl. Returns 0, or -1 with a message in @err (e.g. a group left
 * behind).
 */
int tt_teardown(struct tt_state *st, char *err, size_t errlen);

void tt_register(pid_t pid);
void tt_unregister(pid_t pid);
/* Kill (SIGKILL) and reap everything registered. */
void tt_kill_all(void);
/* waitpid() with a deadline; SIGKILLs on timeout. Status or -1. */
int tt_wait(pid_t pid, double seconds);

int tt_first_cpu(void);
int tt_pin(int cpu);
/* Drop to @uid (gid = uid, no groups), stay dumpable. 0 or -errno. */
int tt_drop_privs(uid_t uid);
void tt_sleep(double seconds);
/* CPU time of process @pid in ns, or -1. */
double tt_cpu_ns(pid_t pid);
/* State letter of @pid from /proc/<pid>/stat ('Z' zombie), 'X' if gone. */
char tt_proc_state(pid_t pid);
/* Sorted tids of process @pid into @tids; count or -1. */
int tt_tids(pid_t pid, pid_t *tids, int max);

/*
 * Run @argv (PATH searched) with stdout captured into @out, killed after
 * @seconds. Returns the wait status, or -1.
 */
int tt_run(char *const argv[], char *out, size_t outlen, double seconds);
/* The number after "KEY " in @out (first match at a line start), or -1. */
double tt_field(const char *out, const char *key);
/* From ttyshare output: share and cpu_ms of terminal @k. 0 or -1. */
int tt_terminal_share(const char *out, int k, double *share, double *cpu_ms);

/* ---- cgroup --------------------------------------------------------- */

/* Enable +cpu in the root cgroup (remembered in @st), mkdir TT_CGROUP. */
int tt_cgroup_create(struct tt_state *st);
/* Move process @pid to @cgroup (a directory). 0 or -errno. */
int tt_cgroup_move(const char *cgroup, pid_t pid);

/* ---- agents --------------------------------------------------------- */

enum tt_op {
	TT_OP_PING = 1,
	TT_OP_SETSID,		/* setsid() */
	TT_OP_OPEN,		/* open /dev/pts/a (b=1: O_NOCTTY) as tty fd */
	TT_OP_CLOSE,		/* close the tty fd */
	TT_OP_SCTTY,		/* ioctl(tty fd, TIOCSCTTY, b) */
	TT_OP_NOTTY,		/* ioctl(tty fd or /dev/tty, TIOCNOTTY) */
	TT_OP_VHANGUP,		/* vhangup() */
	TT_OP_FORK,		/* fork agent a (b: TT_NO_PDEATHSIG); ret pid */
	TT_OP_SPIN,		/* fork a spinner on CPU a; ret its pid */
	TT_OP_THREADS,		/* start a spinning threads on CPU b */
	TT_OP_DROP,		/* tt_drop_privs(a) */
	TT_OP_NICE,		/* write b to /proc/<a or self>/ttygroup */
	TT_OP_SYSCTL,		/* write a to the sysctl */
	TT_OP_EXIT,		/* _exit(a), no reply */
	TT_OP_GETTTY,		/* ret: tty_nr of self from /proc/self/stat */
	TT_OP_DLFLAGS,		/* sched_flags of the next DL and DLTHREADS */
	TT_OP_DL,		/* SCHED_DEADLINE: runtime a us, period b us */
	TT_OP_OTHER,		/* back to SCHED_OTHER */
	TT_OP_DLTHREADS,	/* a sleeping threads of b us every 100 ms;
				 * ret: how many got SCHED_DEADLINE */
	TT_OP_DLSPIN,		/* the same, spinning */
	TT_OP_SETRESUID,	/* setresuid(a, a, b) */
	TT_OP_FORKSLEEP,	/* fork a sleeping child; ret its pid */
	TT_OP_EXEC,		/* execv(tt_exec_argv); replies only on error */
	TT_OP_BURN,		/* use a ms of CPU time */
	TT_OP_DLTARGET,		/* TT_OP_DL and OTHER act on pid a (0: self) */
};

/* What TT_OP_EXEC runs: set it before forking the agents. */
extern char **tt_exec_argv;

#define TT_NO_PDEATHSIG	1

struct tt_agent {
	int fd;			/* our end; -1 if unused */
	int child_fd;		/* the agent's end */
	pid_t pid;
};

/*
 * Create the channels of agents 0..n-1. Do this before forking the first
 * one: agents fork further agents, and must already hold their channels.
 */
int tt_agents_init(int n);
struct tt_agent *tt_agent(int i);
/* Fork agent @i as a child of the test; its pid or -1. */
pid_t tt_agent_start(int i, int flags);
/* Send a command, wait for the reply (10 s). Reply, or -10000 on error. */
int tt_cmd(int i, int op, int a, int b);
#define TT_CMD_FAILED	(-10000)
/* Wait for agent @i to exit (it must be our child). Status or -1. */
int tt_agent_wait(int i, double seconds);

/*
 * The fixture every guest test uses, to be expanded after including
 * kselftest_harness.h: setup records the baseline, teardown kills what
 * the test started, removes the cgroup, restores the sysctl and fails the
 * test if a tty group was left behind.
 */
#define TT_FIXTURE(name)						\
	FIXTURE(name) {							\
		struct tt_state st;					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		char err[256];						\
		int ret = tt_setup(&self->st, err, sizeof(err));	\
									\
		if (ret)						\
			TH_LOG("setup: %s", err);			\
		ASSERT_EQ(0, ret);					\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		char err[256];						\
		int ret = tt_teardown(&self->st, err, sizeof(err));	\
									\
		if (ret)						\
			TH_LOG("teardown: %s", err);			\
		EXPECT_EQ(0, ret);					\
	}

#endif

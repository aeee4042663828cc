// SPDX-License-Identifier: GPL-2.0
/*
 * dsfuzz - a seeded fuzzer of the desksched kernel interfaces, run as root
 * in the guest.
 *
 * WORKERS processes, as root, uid 1000 and uid 1001 in turn, each with its
 * own PRNG derived from the seed, mix random and boundary sched_setattr()
 * and sched_getattr() calls on themselves (every flag bit, zero, huge,
 * inverted and overflowing times, bad sizes), fork and exit, setresuid,
 * affinity changes, the hostile user (a PI futex owner and waiter whose
 * policy and extreme parameters are switched by a sibling thread, killed
 * a few ms later), pty open/close/TIOCSCTTY/TIOCNOTTY/vhangup, writes of
 * /proc/self/ttygroup and, as root, of every project sysctl (valid and
 * invalid values), root domain rebuilds (the rt limit changed and put
 * back), cgroup changes (workers moved in and out of a cgroup with
 * the cpuset and cpu controllers, its CPUs changed, made a partition and
 * a member again, the cpu controller turned off and on under it),
 * batches of elastic reservations killed while they are planned, and
 * group reservations (cpu.dl.reserve of cgroups owned by each uid
 * written with valid, self-tuned, over-cap and malformed values, toggled
 * under a forking, threaded spinner that root moves in and out, and
 * removed under it). The
 * supervisor
 * kills workers at random, between two of their operations, and starts
 * new ones.
 *
 * Every worker records, in shared memory, the reservation it holds and
 * the uid it is charged to. At every checkpoint the supervisor waits
 * until all workers are parked between two operations and checks the
 * invariants:
 *   - /proc/sched_deadline_users lists exactly the uids with unprivileged
 *     reservations, each with the sum of what its workers hold;
 *   - the root domain's total_bw is the baseline plus every reservation
 *     (after the 0-lag time of those just released);
 *   - no more tty groups than open terminals;
 *   - every task is scheduled in the group of its cpu cgroup, or in the
 *     group below it of the terminal /proc/<pid>/ttygroup names (or, in
 *     the root cgroup, in an autogroup);
 *   - no group of op_group() holds a reservation: every operation undoes
 *     its writes, so the two sums above see any charge or bandwidth that
 *     a group write, toggle, move or removal leaked;
 *   - every attacker sent SIGKILL was reaped within KILL_SECONDS (but
 *     a SCHED_IDLE one, which may wait that long to run at all);
 *   - a burst of uid 1000's hostile processes, run beside a root
 *     SCHED_FIFO hog on every CPU, consumes no more CPU time than its
 *     cap and the fair servers allow (burst() says how much).
 * At the end, with every worker gone: no uid listed, total_bw back to the
 * baseline exactly, no tty group left, knobs restored.
 *
 * The same seed gives the same sequence of operations per worker; the
 * interleaving of workers is the scheduler's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "args.h"
#include "dltest.h"
#include "proc.h"
#include "ttytest.h"

#define MAX_WORKERS	16
#define PARK_SECONDS	60
#define LAST_REQUESTS	4
#define TTY_SYSCTL	"/proc/sys/kernel/sched_tty_sched_enabled"
#define FUZZ_CPUSET	TT_CGROOT "/dsfuzz"
/* Cgroups for group reservations: g0 and g1 of uid 1000, g2 of 1001, g3 root's. */
#define FUZZ_GROUPS	4
#define FUZZ_GROUP	TT_CGROOT "/dsfuzz-g%d"

/* What one worker holds, written by it, read by the supervisor. */
struct slot {
	volatile int parked;		/* waiting out a checkpoint */
	volatile int op;		/* the operation it is in */
	volatile pid_t pid;
	volatile int dl;		/* holds a reservation */
	volatile uint64_t bw;
	volatile int charged_uid;	/* -1: privileged */
	volatile int elastic;		/* bw is the kernel's to change */
	struct sched_attr elastic_req;	/* what it asked for */
	volatile int ptys;		/* terminals it has open */
	volatile long ops;
	volatile long admitted;		/* successful deadline requests */
	volatile long attacks;		/* hostile operations run */
	volatile long kills_late;	/* SIGKILLed attackers not reaped in time */
	/* Its last requests for itself and their errno, for a report. */
	struct sched_attr last[LAST_REQUESTS];
	int last_errno[LAST_REQUESTS];
	unsigned int nlast;
};

static struct slot *slots;
/* Set by the supervisor: workers park between two operations. */
static volatile int *checkpoint;
static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64: tiny, and the same sequence everywhere */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t pick(const uint64_t *v, int n)
{
	return v[rnd() % n];
}

static uint64_t rnd_time(void)
{
	static const uint64_t edge[] = {
		0, 1, 1023, 1024, 1025, 100000, 999999, 1000000, 1000001,
		10000000, 33333333, 100000000, 1000000000, 4194304000ULL,
		4194305000ULL, 1ULL << 62, 1ULL << 63, ~0ULL,
	};

	if (rnd() % 3)
		return pick(edge, sizeof(edge) / sizeof(edge[0]));
	return (rnd() % 200 + 1) * 1000000ULL;	/* 1..200 ms */
}

/*
 * @sane: 1-40% of 10..200 ms, for the worker itself, which must keep
 * running; otherwise boundary and random times too, for a sacrificial
 * child (a task granted 1 us every 4 s needs minutes to exit).
 */
static void rnd_attr(struct sched_attr *a, unsigned int *size, int sane)
{
	static const uint64_t sizes[] = { 48, 48, 48, 56, 0, 1, 47, 100,
					  4096 };
	static const uint32_t policies[] = { SCHED_DEADLINE, SCHED_DEADLINE,
		SCHED_DEADLINE, SCHED_DEADLINE, SCHED_DEADLINE, SCHED_DEADLINE,
		SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, 7,
		0xffffffff };
	uint64_t period;

	memset(a, 0, sizeof(*a));
	a->sched_policy = policies[rnd() % 12];
	if (sane || rnd() % 4) {
		period = (rnd() % 191 + 10) * 1000000ULL;
		a->sched_period = period;
		a->sched_deadline = rnd() % 4 ? period : period / 2;
		a->sched_runtime = period * (rnd() % 40 + 1) / 100;
	} else {
		a->sched_runtime = rnd_time();
		a->sched_deadline = rnd_time();
		a->sched_period = rnd_time();
	}
	a->sched_flags = rnd() % 6 ? rnd() % 2 * SCHED_FLAG_RESET_ON_FORK :
			 rnd() & 0x1ff;
	if (a->sched_policy == SCHED_FIFO)
		a->sched_priority = rnd() % 100;
	if (!(rnd() % 8))
		a->sched_nice = (int)(rnd() % 60) - 30;
	*size = rnd() % 5 ? 48 : pick(sizes, 9);
}

#define DL_PARAM_FLAGS	(SCHED_FLAG_RECLAIM | SCHED_FLAG_DL_OVERRUN | \
			 SCHED_FLAG_DL_ELASTIC)

static int same_request(const struct sched_attr *a, const struct sched_attr *b)
{
	return a->sched_runtime == b->sched_runtime &&
	       a->sched_deadline == b->sched_deadline &&
	       a->sched_period == b->sched_period &&
	       (a->sched_flags & DL_PARAM_FLAGS) == (b->sched_flags & DL_PARAM_FLAGS);
}

static void op_setattr(struct slot *s)
{
	struct sched_attr a, before, cur;
	unsigned int size;
	int same;

	rnd_attr(&a, &size, 1);
	a.size = size;
	if (dt_getattr(0, &before))
		return;
	s->last[s->nlast % LAST_REQUESTS] = a;
	s->last_errno[s->nlast % LAST_REQUESTS] = -1;
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		s->last_errno[s->nlast++ % LAST_REQUESTS] = errno;
		return;
	}
	s->last_errno[s->nlast++ % LAST_REQUESTS] = 0;
	if (dt_getattr(0, &cur))
		return;
	/*
	 * A request that changes nothing is not a new reservation, and
	 * keeps its charge (the kernel's dl_param_changed()).
	 */
	same = before.sched_policy == SCHED_DEADLINE &&
	       a.sched_policy == SCHED_DEADLINE && same_request(&a, &before);
	/* KEEP_PARAMS keeps policy and parameters, elastic or not. */
	if (a.sched_flags & SCHED_FLAG_KEEP_PARAMS)
		return;
	s->dl = cur.sched_policy == SCHED_DEADLINE;
	s->admitted += s->dl && a.sched_policy == SCHED_DEADLINE;
	/*
	 * An elastic request may wait under SCHED_OTHER and be granted
	 * later, and its grant changes with the others: check() reads it
	 * back, charged to the uid that asked.
	 */
	if (a.sched_policy == SCHED_DEADLINE &&
	    (a.sched_flags & SCHED_FLAG_DL_ELASTIC)) {
		/*
		 * The same request again is not a new one either; for an
		 * elastic one, "the same" means every flag and clamp too.
		 */
		if (!s->elastic || !same_request(&a, &s->elastic_req) ||
		    a.sched_flags != s->elastic_req.sched_flags ||
		    a.sched_util_min != s->elastic_req.sched_util_min ||
		    a.sched_util_max != s->elastic_req.sched_util_max)
			s->charged_uid = geteuid() ? (int)getuid() : -1;
		s->elastic = 1;
		s->elastic_req = a;
		return;
	}
	s->elastic = 0;
	if (!s->dl) {
		s->bw = 0;
		s->charged_uid = -1;
		return;
	}
	/* Even when unchanged: the grant of an elastic request it was. */
	s->bw = dt_bw(cur.sched_runtime, cur.sched_period ?: cur.sched_deadline);
	/* Root is privileged; anybody else pays, by real uid. */
	if (!same)
		s->charged_uid = geteuid() ? (int)getuid() : -1;
}

/*
 * Boundary parameters on a paused child of ours, put back to SCHED_OTHER
 * before it is killed so that it can exit.
 */
static void op_setattr_child(void)
{
	struct sched_attr a;
	unsigned int size;
	pid_t pid = fork();

	if (pid < 0)
		return;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	rnd_attr(&a, &size, 0);
	a.size = size;
	syscall(SYS_sched_setattr, pid, &a, 0);
	/* Users may set reset-on-fork, not clear it: keep it. */
	dt_setattr(pid, SCHED_OTHER, 0, 0, 0, SCHED_FLAG_RESET_ON_FORK);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * Up to 16 children of ours ask for elastic reservations, which scale
 * every other elastic grant of their pools and grow them back as they
 * go; all are killed at once while the grants are being planned. What
 * they held must leave with them (the total_bw and per-uid invariants at
 * the next checkpoint), and no plan may grow a dying one.
 */
static void op_elastic_kills(void)
{
	pid_t pids[16];
	int i, n = 1 + rnd() % 16;

	for (i = 0; i < n; i++) {
		uint64_t runtime = (1 + rnd() % 5) * DT_MS;

		pids[i] = fork();
		if (!pids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			dt_set_dl(0, runtime, 100 * DT_MS, SCHED_FLAG_DL_ELASTIC);
			for (;;)
				pause();
		}
	}
	usleep(rnd() % 20000);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

static void op_getattr(void)
{
	static const unsigned int sizes[] = { 0, 1, 47, 48, 56, 100, 4096 };
	char buf[4096];

	syscall(SYS_sched_getattr, rnd() % 2 ? 0 : getppid(), buf,
		sizes[rnd() % 7], rnd() % 4 ? 0 : (unsigned int)rnd());
}

static void op_fork(void)
{
	pid_t pid = fork();

	if (!pid) {
		if (rnd() % 2)
			dt_set_other(0);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void op_setresuid(void)
{
	uid_t r, e, s;

	/* Only among the uids already held: root stays root. */
	if (getresuid(&r, &e, &s) || !r)
		return;
	setresuid(s, s, r);
}

static void op_affinity(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(rnd() % 2, &set);
	if (rnd() % 2)
		CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void op_sysctl(void)
{
	static const char *const knobs[] = { DT_USER_PCT, DT_UNPRIV_PCT,
					     TTY_SYSCTL };
	static const char *const vals[] = { "0", "1", "5", "30", "50", "100",
		"200", "201", "-1", "abc", "", "4294967296", "99999" };
	const char *k = knobs[rnd() % 3];

	if (geteuid())
		return;
	dt_knob_write(k, vals[rnd() % 13]);
}

/*
 * As root, rebuild the root domains, which recompute total_bw from the
 * deadline tasks they can see: lower the rt limit and put it back, within
 * the operation, so that a checkpoint sees the boot limit.
 */
static long rt_runtime_boot;

static void op_rebuild(void)
{
	if (geteuid() || rt_runtime_boot <= 0)
		return;
	dt_rebuild_domains(rt_runtime_boot, 1000 * (long)(rnd() % 50 + 1));
}

static int nworkers;

/*
 * Cpusets, from any uid (a user's moves and writes must fail cleanly):
 * move a worker, deadline or not, in or out of FUZZ_CPUSET (admission
 * control runs when its CPUs differ; a worker with a terminal gets its
 * tty group there), change those CPUs, or make it a partition (a root
 * domain of its own: the domains are rebuilt both ways) and a member
 * again within the operation, so that every checkpoint sees one root
 * domain; or turn the cpu controller off or on, which takes the tty
 * groups of FUZZ_CPUSET away under its tasks, or makes new ones.
 */
static void op_cpuset(void)
{
	static const char *const cpus[] = { "0", "1", "0-1", "", "1-0", "2",
					    "0-4095", "x" };
	/*
	 * Not "isolated": on 6.12.118 making or undoing an isolated
	 * partition creates kworkers under cpuset_mutex, which waits for
	 * kthreadd, which waits in fork for the cgroup_threadgroup_rwsem
	 * that a concurrent move into a cpuset holds while it waits for
	 * cpuset_mutex: a deadlock of stock code (README, known gaps).
	 */
	static const char *const partitions[] = { "root", "bogus" };
	char pid[16];

	switch (rnd() % 4) {
	case 0:
		snprintf(pid, sizeof(pid), "%d",
			 rnd() % 2 ? getpid() : slots[rnd() % nworkers].pid);
		tt_write_str(rnd() % 2 ? FUZZ_CPUSET "/cgroup.procs" :
			     TT_CGROOT "/cgroup.procs", pid);
		break;
	case 1:
		tt_write_str(FUZZ_CPUSET "/cpuset.cpus",
			     cpus[rnd() % (sizeof(cpus) / sizeof(cpus[0]))]);
		break;
	case 2:
		tt_write_str(TT_CGROOT "/cgroup.subtree_control",
			     rnd() % 2 ? "+cpu" : "-cpu");
		break;
	default:
		if (!tt_write_str(FUZZ_CPUSET "/cpuset.cpus.partition",
				  partitions[rnd() % (sizeof(partitions) /
						      sizeof(partitions[0]))]))
			usleep(rnd() % 20000);
		tt_write_str(FUZZ_CPUSET "/cpuset.cpus.partition", "member");
	}
}

static const uid_t fuzz_group_uid[FUZZ_GROUPS] = { 1000, 1000, 1001, 0 };

/* A group's directory, and the files its uid may write, as delegated. */
static int fuzz_group_make(int g)
{
	static const char *const files[] = { "", "/cgroup.procs", "/cpu.dl.reserve" };
	char path[96];
	unsigned int i;

	snprintf(path, sizeof(path), FUZZ_GROUP, g);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), FUZZ_GROUP "%s", g, files[i]);
		/* No cpu.dl.reserve while the cpu controller is off. */
		if (chown(path, fuzz_group_uid[g], fuzz_group_uid[g]) && i < 2)
			return -1;
	}
	return 0;
}

/* Whether the caller is SCHED_IDLE, with or without SCHED_RESET_ON_FORK. */
static int self_sched_idle(void)
{
	return (sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_IDLE;
}

static void *fuzz_spin(void *arg)
{
	(void)arg;
	for (;;)
		;
	return NULL;
}

/*
 * Group reservations, from any uid: write a group's cpu.dl.reserve (the
 * user's own groups, or any as root), and as root run a spinner there
 * that forks and starts threads, toggle the reservation under it, move
 * it out, or remove the group under its reservation once it is empty.
 * Every write that took is undone before the operation ends, so that a
 * checkpoint sees only the workers' own reservations.
 */
static void op_group(void)
{
	static const char *const values[] = {
		"10000 100000", "300 1000", "99000 100000", "20000 100000 auto",
		"300000 1000000 auto", "1 1", "0 100000", "none", "x",
		"18446744073709551615 1", "1000 100000 auto x", "1000 999",
	};
	int g = rnd() % FUZZ_GROUPS, i, n;
	char dir[96], file[128], pid[16];
	pid_t child = 0;
	pthread_t t;

	snprintf(dir, sizeof(dir), FUZZ_GROUP, g);
	snprintf(file, sizeof(file), "%s/cpu.dl.reserve", dir);
	tt_write_str(file, values[rnd() % (sizeof(values) / sizeof(values[0]))]);
	if (!geteuid()) {
		struct sched_param sp = { 0 };

		/*
		 * A SCHED_IDLE worker would wait behind its own spinners to
		 * kill them; it holds no reservation to lose by switching.
		 */
		if (self_sched_idle())
			sched_setscheduler(0, SCHED_OTHER, &sp);

		child = fork();
		if (!child) {
			/*
			 * The worker may be SCHED_FIFO: its spinners would
			 * starve it, and a group serves fair tasks only.
			 */
			sched_setscheduler(0, SCHED_OTHER, &sp);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			setpgid(0, 0);
			snprintf(pid, sizeof(pid), "%d", getpid());
			snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
			tt_write_str(file, pid);
			n = rnd() % 4;
			for (i = 0; i < n; i++)
				if (!fork())
					break;
			n = rnd() % 4;
			for (i = 0; i < n; i++)
				pthread_create(&t, NULL, fuzz_spin, NULL);
			fuzz_spin(NULL);
		}
	}
	usleep(rnd() % 20000);
	if (rnd() % 3 == 0)
		tt_write_str(file, values[rnd() % (sizeof(values) / sizeof(values[0]))]);
	if (child > 0) {
		if (rnd() % 2) {
			snprintf(pid, sizeof(pid), "%d", child);
			tt_write_str(TT_CGROOT "/cgroup.procs", pid);
			usleep(rnd() % 5000);
		}
		kill(-child, SIGKILL);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (!geteuid() && rnd() % 4 == 0) {
		for (i = 0; i < 100 && rmdir(dir) && errno == EBUSY; i++)
			usleep(1000);
		fuzz_group_make(g);
	}
	tt_write_str(file, "none");
}

/* pty play: the worker may become a session leader with a terminal. */
static int pty_fd = -1, slave_fd = -1;

static void op_pty(struct slot *s)
{
	char name[64];

	switch (rnd() % 6) {
	case 0:		/* a new terminal, maybe taken as ctty */
		if (pty_fd >= 0)
			break;
		pty_fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (pty_fd < 0)
			break;
		if (grantpt(pty_fd) || unlockpt(pty_fd) ||
		    ptsname_r(pty_fd, name, sizeof(name))) {
			close(pty_fd);
			pty_fd = -1;
			break;
		}
		s->ptys = 1;
		setsid();
		slave_fd = open(name, O_RDWR | (rnd() % 2 ? O_NOCTTY : 0));
		break;
	case 1:
		if (slave_fd >= 0)
			ioctl(slave_fd, TIOCSCTTY, (int)(rnd() % 2));
		break;
	case 2:
		if (slave_fd >= 0)
			ioctl(slave_fd, TIOCNOTTY);
		break;
	case 3:
		if (!geteuid())
			vhangup();
		break;
	case 4: {
		char v[16];

		snprintf(v, sizeof(v), "%d", (int)(rnd() % 50) - 25);
		tt_write_str("/proc/self/ttygroup", v);
		break;
	}
	default:	/* close it all */
		if (slave_fd >= 0)
			close(slave_fd);
		if (pty_fd >= 0)
			close(pty_fd);
		slave_fd = pty_fd = -1;
		s->ptys = 0;
	}
}

/*
 * The hostile user (uids 1000 and 1001): a process of the worker's uid with
 * an owner thread that spins holding a PI futex and a waiter that blocks
 * on it, while the main thread switches the waiter between extreme
 * deadline parameters and SCHED_OTHER, and the owner's affinity, and
 * switches a sibling that exits back to SCHED_DEADLINE as it dies. It is
 * SIGKILLed after up to 30 ms and must be gone within KILL_SECONDS,
 * whatever it owes. The parameters keep any debt, and so the 0-lag time
 * that holds the root domain's bandwidth, within check()'s wait.
 */
#define KILL_SECONDS	3

struct attack {
	pthread_mutex_t lock;
	volatile pid_t waiter;
	volatile pid_t leaver;
};

static void *attack_owner(void *arg)
{
	struct attack *a = arg;

	pthread_mutex_lock(&a->lock);
	for (;;)
		;
	return NULL;
}

static void *attack_waiter(void *arg)
{
	struct attack *a = arg;

	a->waiter = syscall(SYS_gettid);
	pthread_mutex_lock(&a->lock);
	for (;;)
		;
	return NULL;
}

/* Exits about 1 ms after its sibling made it SCHED_DEADLINE. */
static void *attack_leaver(void *arg)
{
	struct attack *a = arg;
	double end = mono_seconds() + 0.001;

	a->leaver = syscall(SYS_gettid);
	while (mono_seconds() < end)
		;
	return NULL;
}

/*
 * A dying thread leaves SCHED_DEADLINE in do_exit() and may not enter it
 * again: switch it back as fast as we can while it exits.
 */
static void switch_leaver(struct attack *a)
{
	pthread_t leaver;
	int i;

	a->leaver = 0;
	if (pthread_create(&leaver, NULL, attack_leaver, a))
		return;
	while (!a->leaver)
		;
	for (i = 0; i < 200; i++)
		dt_set_dl(a->leaver, 100000, 10 * DT_MS, 0);
	pthread_join(leaver, NULL);
}

static void __attribute__((noreturn)) attacker(uint64_t period_max)
{
	static const uint64_t params[][2] = {
		{ 1024, 1 * DT_MS }, { 100000, 10 * DT_MS },
		{ 1 * DT_MS, 100 * DT_MS }, { 8192, 0 /* period_max */ },
	};
	pthread_mutexattr_t ma;
	struct attack a = { 0 };
	pthread_t owner, waiter;
	cpu_set_t set;
	int i, k;

	/*
	 * A root worker may be SCHED_FIFO: spinning threads that inherited
	 * that would starve it, and it could not reap what it killed.
	 */
	dt_set_other(0);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&a.lock, &ma);
	pthread_create(&owner, NULL, attack_owner, &a);
	usleep(1000);
	pthread_create(&waiter, NULL, attack_waiter, &a);
	while (!a.waiter)
		usleep(100);
	for (i = rnd() % 20; i > 0; i--) {
		k = rnd() % 6;
		if (k == 5) {
			switch_leaver(&a);
		} else if (k == 4) {
			CPU_ZERO(&set);
			CPU_SET(rnd() % 2, &set);
			pthread_setaffinity_np(owner, sizeof(set), &set);
		} else if (rnd() % 2) {
			dt_set_dl(a.waiter, params[k][0],
				  params[k][1] ?: period_max, 0);
		} else {
			dt_set_other(a.waiter);
		}
		usleep(rnd() % 2000);
	}
	pause();
	_exit(0);
}

static uint64_t period_max_ns;

/*
 * What a SIGKILLed attacker that is still there, and what else runs: the
 * state, flags and policy of each of its threads and of every runnable
 * task, from /proc/PID/stat.
 */
static void report_late(pid_t pid)
{
	static char buf[4096];
	char path[320];
	struct dirent *d;
	DIR *dir;

	printf("# attacker %d not reaped after %d s; its threads:\n", pid,
	       KILL_SECONDS);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid,
			 d->d_name);
		if (tt_read_file(path, buf, sizeof(buf)) > 0)
			printf("#   %s", buf);
	}
	if (dir)
		closedir(dir);
	printf("# runnable tasks:\n");
	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		if (tt_read_file(path, buf, sizeof(buf)) > 0 &&
		    strstr(buf, ") R "))
			printf("#   %s", buf);
	}
	if (dir)
		closedir(dir);
}

static void op_hostile(struct slot *s)
{
	double end;
	pid_t pid;

	/*
	 * Root's deadline donors lend without a budget, as in mainline: two
	 * spinning owners boosted by root would hold both CPUs for good.
	 */
	if (!getuid())
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		attacker(period_max_ns);
	}
	s->attacks++;
	usleep(rnd() % 30000);
	kill(pid, SIGKILL);
	/*
	 * A SCHED_IDLE worker (it cannot switch back without RLIMIT_NICE)
	 * beside busy fair tasks would time its own wait to run, not the
	 * attacker's death.
	 */
	if (self_sched_idle()) {
		waitpid(pid, NULL, 0);
		return;
	}
	end = mono_seconds() + KILL_SECONDS;
	while (waitpid(pid, NULL, WNOHANG) != pid) {
		if (mono_seconds() > end) {
			s->kills_late++;
			report_late(pid);
			waitpid(pid, NULL, 0);
			break;
		}
		usleep(1000);
	}
}

/* Names of the operations, by bit of --ops; bit 11 (sleeping) is always on. */
static const char *const op_names[] = { "setattr", NULL, "child", "getattr",
	"fork", "setresuid", "affinity", "sysctl", "pty", "rebuild", "cpuset",
	NULL, "hostile", "elastickill", "group" };
static unsigned int ops_mask = ~0u;

static unsigned int parse_ops(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int mask = 0, i;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
			if (op_names[i] && !strcmp(tok, op_names[i]))
				break;
		if (i == sizeof(op_names) / sizeof(op_names[0]))
			usage_error("--ops: unknown operation '%s'", tok);
		mask |= 1u << i;
	}
	free(copy);
	if (!mask)
		usage_error("--ops: no operation given");
	return mask;
}

static void __attribute__((noreturn)) worker(int i, uid_t uid, uint64_t seed)
{
	struct slot *s = &slots[i];
	unsigned int op;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * Hangups of its own terminals, background terminal I/O and deadline
	 * overruns would end or stop the worker long before the fuzz does.
	 */
	signal(SIGHUP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGXCPU, SIG_IGN);
	rng_state = seed;
	if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid == 1000 ? 1001 : 1000)))
		_exit(1);
	for (;;) {
		if (*checkpoint) {
			s->parked = 1;
			while (*checkpoint)
				usleep(1000);
			s->parked = 0;
		}
		op = rnd() % 15;
		if (!(ops_mask & (1u << (op == 1 ? 0 : op))))
			op = 11;
		s->op = op;
		switch (op) {
		case 0: case 1: op_setattr(s); break;
		case 2: op_setattr_child(); break;
		case 3: op_getattr(); break;
		case 4: op_fork(); break;
		case 5: op_setresuid(); break;
		case 6: op_affinity(); break;
		case 7: op_sysctl(); break;
		case 8: op_pty(s); break;
		case 9: op_rebuild(); break;
		case 10: op_cpuset(); break;
		case 12: op_hostile(s); break;
		case 13: op_elastic_kills(); break;
		case 14: op_group(); break;
		default:
			if (!(rnd() % 500))
				_exit(0);
			usleep(rnd() % 2000);
		}
		s->ops++;
	}
}

static uint64_t seed;
static int respawns;

static void spawn(int i)
{
	static const uid_t uids[] = { 0, 1000, 1001 };
	uint64_t wseed = seed * 1000003 + i * 7919 + respawns++;
	pid_t pid;

	memset(&slots[i], 0, sizeof(slots[i]));
	slots[i].charged_uid = -1;
	slots[i].elastic = 0;
	pid = fork();
	if (!pid)
		worker(i, uids[i % 3], wseed);
	slots[i].pid = pid;
}

/* Reap exited workers (their reservations are gone) and respawn them. */
static long admitted;

/* Worker @i is gone and waited for: count what it did, start another. */
static long attacks, kills_late;

static long replace(int i)
{
	long done = slots[i].ops;

	admitted += slots[i].admitted;
	attacks += slots[i].attacks;
	kills_late += slots[i].kills_late;
	spawn(i);
	return done;
}

static long reap(void)
{
	long done = 0;
	pid_t pid;
	int i;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		for (i = 0; i < nworkers; i++)
			if (slots[i].pid == pid)
				done += replace(i);
	return done;
}

static int alive(int i)
{
	return !strchr("ZX", tt_proc_state(slots[i].pid));
}

/*
 * Wait until every live worker is parked between two operations, so that
 * what the slots say is what the kernel holds. A worker on a small
 * deadline budget, or a debug kernel under TCG, may take seconds to get
 * there; one that never does is reported.
 */
static int park_all(double timeout)
{
	double end = mono_seconds() + timeout;
	int i;

	*checkpoint = 1;
	for (;;) {
		for (i = 0; i < nworkers; i++)
			if (!slots[i].parked && alive(i))
				break;
		if (i == nworkers)
			return -1;
		if (mono_seconds() > end)
			return i;
		usleep(10000);
	}
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Unlike tt_wait(), gives up on a task that cannot die. */
static int reaped_within(pid_t pid, double seconds)
{
	double end = mono_seconds() + seconds;

	while (waitpid(pid, NULL, WNOHANG) != pid)
		if (mono_seconds() > end)
			return 0;
		else
			usleep(10000);
	return 1;
}

/* What a worker that does not come back was doing, and its state. */
static void report_stuck(int i)
{
	struct slot *w = &slots[i];
	struct sched_attr a = { }, *l;
	char path[64], buf[4096], *line;
	unsigned int n;

	dt_getattr(w->pid, &a);
	fail("worker %d (pid %d, state %c, policy %u, runtime %llu deadline %llu period %llu flags %#llx) not parked after %d s in operation %d",
	     i, w->pid, tt_proc_state(w->pid), a.sched_policy,
	     (unsigned long long)a.sched_runtime,
	     (unsigned long long)a.sched_deadline,
	     (unsigned long long)a.sched_period,
	     (unsigned long long)a.sched_flags, PARK_SECONDS, w->op);
	for (n = w->nlast > LAST_REQUESTS ? w->nlast - LAST_REQUESTS : 0;
	     n < w->nlast; n++) {
		l = &w->last[n % LAST_REQUESTS];
		printf("#   request %u: size %u policy %u flags %#llx nice %d prio %u runtime %llu deadline %llu period %llu: errno %d\n",
		       n, l->size, l->sched_policy,
		       (unsigned long long)l->sched_flags, l->sched_nice,
		       l->sched_priority, (unsigned long long)l->sched_runtime,
		       (unsigned long long)l->sched_deadline,
		       (unsigned long long)l->sched_period,
		       w->last_errno[n % LAST_REQUESTS]);
	}
	snprintf(path, sizeof(path), "/proc/%d/sched", w->pid);
	if (tt_read_file(path, buf, sizeof(buf)) > 0)
		for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			if (strstr(line, "dl.") || strstr(line, "policy") ||
			    strstr(line, "nr_switches"))
				printf("#   %s\n", line);
	snprintf(path, sizeof(path), "/proc/%d/stack", w->pid);
	if (tt_read_file(path, buf, sizeof(buf)) > 0)
		for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			printf("#   %s\n", line);
}

static void unpark_all(void)
{
	*checkpoint = 0;
}

static int failures, base_groups;
static long held_checked;	/* reservations seen at checkpoints */

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# dsfuzz: seed %" PRIu64 ": INVARIANT BROKEN: ", seed);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures++;
}

static int is_worker(pid_t pid)
{
	int i;

	for (i = 0; i < nworkers; i++)
		if (slots[i].pid == pid)
			return 1;
	return 0;
}

/*
 * A child left behind by a worker killed in op_setattr_child() may hold a
 * reservation nobody recorded, and starve on it: take it over (root's
 * reservation is not charged), end it and kill the child.
 */
static void reset_strays(void)
{
	struct dirent *d;
	pid_t pid;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		pid = atoi(d->d_name);
		if (pid <= 1 || pid == getpid() || is_worker(pid) ||
		    dt_policy(pid) != SCHED_DEADLINE)
			continue;
		dt_set_other(pid);
		kill(pid, SIGKILL);
	}
	closedir(dir);
}

/* Do the users file and the workers' records agree? */
static int users_match(const uint64_t *per_uid, char *why, size_t len)
{
	unsigned int res, cap, uid;
	int ret;

	for (uid = 1000; uid <= 1001; uid++) {
		uint64_t want = per_uid[uid - 1000];

		ret = dt_user(uid, &res, &cap);
		if (ret < 0) {
			snprintf(why, len, "cannot parse %s", DT_USERS);
			return 0;
		}
		if (!want != !ret || (want && res != dt_hundredths(want))) {
			snprintf(why, len, "uid %u holds %u hundredths of a percent, its workers %u",
				 uid, ret ? res : 0, dt_hundredths(want));
			return 0;
		}
	}
	if (dt_users_count() > (per_uid[0] != 0) + (per_uid[1] != 0)) {
		snprintf(why, len, "%s lists uids that hold nothing", DT_USERS);
		return 0;
	}
	return 1;
}

/*
 * What the workers hold, per uid and in all; an elastic grant is read
 * back from the kernel, which rescales it when others come and go.
 */
static void held(uint64_t *per_uid, uint64_t *all, long *n)
{
	struct sched_attr a;
	struct slot *s;
	uint64_t bw;
	int i;

	per_uid[0] = per_uid[1] = *all = *n = 0;
	for (i = 0; i < nworkers; i++) {
		s = &slots[i];
		if (!alive(i))
			continue;
		bw = s->dl ? s->bw : 0;
		if (s->elastic)
			bw = dt_getattr(s->pid, &a) || a.sched_policy != SCHED_DEADLINE ?
			     0 : dt_bw(proc_sched_field(s->pid, "dl.elastic_granted"),
				       a.sched_period ?: a.sched_deadline);
		if (!bw)
			continue;
		++*n;
		*all += bw;
		if (s->charged_uid == 1000)
			per_uid[0] += bw;
		else if (s->charged_uid == 1001)
			per_uid[1] += bw;
	}
}

/*
 * With all workers stopped outside a call. A worker killed just before
 * gives its charge back at its last context switch, its tty when its
 * files are closed: each invariant gets a few seconds to settle.
 * Returns the number of invariants checked.
 */
static long kills_late_now(void)
{
	long n = kills_late;
	int i;

	for (i = 0; i < nworkers; i++)
		n += slots[i].kills_late;
	return n;
}

/* Whether the space separated list @list holds @word. */
static int has_word(char *list, const char *word)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, word))
			return 1;
	return 0;
}

/*
 * The cgroup whose cpu controller schedules @tid, the nearest from its own
 * up that has one ("/" at the top). 0, or -1 if @tid is gone.
 */
static int cpu_cgroup_of(pid_t tid, char *out, size_t len)
{
	char path[TT_PATH_MAX + 64], buf[TT_PATH_MAX + 8], *slash;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	if (tt_read_file(path, buf, sizeof(buf)) <= 0 || strncmp(buf, "0::", 3))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	if (strlen(buf + 3) >= len)
		return -1;
	strcpy(out, buf + 3);
	while (strcmp(out, "/")) {
		snprintf(path, sizeof(path), TT_CGROOT "%s/cgroup.controllers", out);
		if (tt_read_file(path, buf, sizeof(buf)) > 0 &&
		    has_word(buf, "cpu"))
			return 0;
		slash = strrchr(out, '/');
		slash[slash == out] = '\0';
	}
	return 0;
}

/* Whether @tid may be scheduled in @group (see the invariants above). */
static int group_ok(pid_t tid, const char *group, int tty_on)
{
	char cg[TT_PATH_MAX], path[64], tty[TT_PATH_MAX + 32];
	char below[TT_PATH_MAX + 16];

	if (cpu_cgroup_of(tid, cg, sizeof(cg)))
		return 1;
	if (!strcmp(group, cg))
		return 1;
	if (!strcmp(cg, "/") && !strncmp(group, "/autogroup-", 11))
		return 1;
	if (!tty_on)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ttygroup", tid);
	if (tt_read_file(path, tty, sizeof(tty)) <= 0)
		return 0;
	tty[strcspn(tty, " \n")] = '\0';
	snprintf(below, sizeof(below), "%s/ttygroup-",
		 strcmp(cg, "/") ? cg : "");
	return !strcmp(group, tty) && !strncmp(group, below, strlen(below));
}

struct group_check {
	int tty_on;
	pid_t tid;
	char group[TT_PATH_MAX];
};

static int check_task_group(pid_t tid, const char *group, void *arg)
{
	struct group_check *c = arg;

	if (group_ok(tid, group, c->tty_on))
		return 0;
	c->tid = tid;
	snprintf(c->group, sizeof(c->group), "%s", group);
	return 1;
}

/*
 * Every task in the group of its cpu cgroup or of its terminal below it.
 * A task caught between two moves (or exiting) gets a second look.
 */
static void check_groups(void)
{
	struct group_check c = { .tty_on = tt_sysctl_get() == 1 };
	char cg[TT_PATH_MAX], tty[TT_PATH_MAX + 32], path[64];
	int tries;

	for (tries = 0; tries < 20; tries++) {
		if (!tt_sched_each_task(check_task_group, &c))
			return;
		tt_sleep(0.05);
	}
	if (cpu_cgroup_of(c.tid, cg, sizeof(cg)))
		strcpy(cg, "(gone)");
	snprintf(path, sizeof(path), "/proc/%d/ttygroup", c.tid);
	if (tt_read_file(path, tty, sizeof(tty)) <= 0)
		strcpy(tty, "(none)");
	tty[strcspn(tty, "\n")] = '\0';
	fail("task %d scheduled in %s: its cpu cgroup is %s, /proc ttygroup '%s', sysctl %d",
	     c.tid, c.group, cg, tty, c.tty_on);
}

static int check(int64_t base_bw)
{
	uint64_t per_uid[2], all;
	int i, ptys = 0, groups;
	double settle, start;
	int64_t total;
	char why[256];
	long n;

	reset_strays();
	for (i = 0; i < nworkers; i++)
		if (alive(i))
			ptys += slots[i].ptys;
	held(per_uid, &all, &n);
	/*
	 * A uid stays charged while the root domain holds the bandwidth: a
	 * task that died or left keeps it to the end of its period, which a
	 * boundary reservation makes 4 s.
	 */
	settle = mono_seconds() + 10;
	while (!users_match(per_uid, why, sizeof(why)) && mono_seconds() < settle) {
		tt_sleep(0.05);
		held(per_uid, &all, &n);
	}
	if (!users_match(per_uid, why, sizeof(why)))
		fail("%s", why);
	settle = mono_seconds() + 10;
	while ((total = dt_total_bw()) != base_bw + (int64_t)all &&
	       mono_seconds() < settle) {
		tt_sleep(0.05);
		held(per_uid, &all, &n);
	}
	if (total != base_bw + (int64_t)all)
		fail("total_bw %" PRId64 ", want %" PRId64 " (baseline %" PRId64 " + %" PRIu64 ")",
		     total, base_bw + (int64_t)all, base_bw, all);
	held_checked += n;
	/*
	 * A tty whose last file is closed is freed from a workqueue, which
	 * deadline workers may hold off for seconds: a group is late, not
	 * leaked, until the tty is gone. Say when it took long.
	 */
	start = mono_seconds();
	while ((groups = tt_groups_count()) > base_groups + ptys &&
	       mono_seconds() < start + 10)
		tt_sleep(0.05);
	if (groups > base_groups + ptys)
		fail("%d tty groups for %d open terminals (%d before)", groups,
		     ptys, base_groups);
	else if (mono_seconds() > start + 3)
		printf("# dsfuzz: seed %" PRIu64 ": tty groups followed the terminals after %.1f s\n",
		       seed, mono_seconds() - start);
	if (tt_read_file(FUZZ_CPUSET "/cpuset.cpus.partition", why,
			 sizeof(why)) <= 0 || strncmp(why, "member", 6))
		fail("%s is not a member between two operations", FUZZ_CPUSET);
	for (i = 0; i < FUZZ_GROUPS; i++) {
		char file[128];

		snprintf(file, sizeof(file), FUZZ_GROUP "/cpu.dl.reserve", i);
		if (tt_read_file(file, why, sizeof(why)) > 0 &&
		    strncmp(why, "none", 4))
			fail("%s holds \"%.*s\" between two operations", file,
			     (int)strcspn(why, "\n"), why);
	}
	if (kills_late_now())
		fail("%ld SIGKILLed attackers not reaped within %d s",
		     kills_late_now(), KILL_SECONDS);
	check_groups();
	return 7;
}

/*
 * The cap, in CPU time consumed. With the workers parked, uid 1000 runs
 * BURST_PROCS processes for BURST_SECONDS beside a root SCHED_FIFO hog on
 * every CPU, under a cap of BURST_CAP_PCT: two attackers as in
 * op_hostile(), and BURST_SPINNERS threads spinning on 1 ms every 100 ms
 * each. A SCHED_NORMAL thread then runs only on the fair servers and on
 * what RT throttling leaves (5% + 5% of each CPU), a deadline thread only
 * on its budget, plus an overrun of up to a tick (10 ms at HZ=100) per
 * reservation before it is throttled. All that the processes consumed,
 * every thread, exited ones too (wait4()), must fit in that sum.
 */
#define BURST_SECONDS	0.5
#define BURST_CAP_PCT	10
#define BURST_SPINNERS	8
#define BURST_PROCS	3
#define BURST_TICK_S	0.01

static void *burst_spin(void *arg)
{
	dt_set_dl(0, 1 * DT_MS, 100 * DT_MS, 0);
	for (;;)
		;
	return arg;
}

static void __attribute__((noreturn)) burst_spinners(void)
{
	pthread_t t;
	int i;

	for (i = 0; i < BURST_SPINNERS; i++)
		pthread_create(&t, NULL, burst_spin, NULL);
	pause();
	_exit(0);
}

static double burst_max;	/* the largest share a burst consumed */

/* 1 if the burst stayed within its bound, 0 (and a failure) if not. */
static int burst(void)
{
	struct sched_param above = { .sched_priority = 2 }, other = { 0 };
	long cap = dt_knob_get(DT_USER_PCT);
	pid_t pids[BURST_PROCS], hogs[2];
	double t0, t1, used = 0, share, bound;
	struct rusage ru;
	int i;

	dt_knob_set(DT_USER_PCT, BURST_CAP_PCT);
	for (i = 0; i < 2; i++)
		hogs[i] = dt_fifo_hog(i);
	/* Above the hogs, or the burst would outlive its time. */
	sched_setscheduler(0, SCHED_FIFO, &above);
	t0 = mono_seconds();
	for (i = 0; i < BURST_PROCS; i++) {
		pids[i] = fork();
		if (pids[i])
			continue;
		sched_setscheduler(0, SCHED_OTHER, &other);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
		    setresuid(1000, 1000, 1000))
			_exit(1);
		if (i < 2)
			attacker(period_max_ns);
		burst_spinners();
	}
	tt_sleep(BURST_SECONDS);
	for (i = 0; i < BURST_PROCS; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < BURST_PROCS; i++) {
		if (pids[i] <= 0 || wait4(pids[i], NULL, 0, &ru) != pids[i])
			continue;
		used += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	t1 = mono_seconds();
	for (i = 0; i < 2; i++) {
		if (hogs[i] <= 0)
			continue;
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	dt_knob_set(DT_USER_PCT, cap);

	share = used / (t1 - t0);
	bound = BURST_CAP_PCT / 100.0 + 2 * (0.05 + 0.05) +
		(2 * 2 + BURST_SPINNERS) * BURST_TICK_S / (t1 - t0);
	if (share > burst_max)
		burst_max = share;
	if (share <= bound)
		return 1;
	fail("uid 1000's burst consumed %.0f%% of a CPU beside FIFO hogs, bound %.0f%% (cap %d%%)",
	     share * 100, bound * 100, BURST_CAP_PCT);
	return 0;
}

/* What cgroup_setup() turned on, for cgroup_teardown() to turn off. */
#define CG_CPUSET_BY_US	1
#define CG_CPU_BY_US	2

/*
 * FUZZ_CPUSET under a root cgroup with the cpuset and cpu controllers on
 * (it may be left from a run that was killed). Returns CG_*_BY_US bits,
 * or -1.
 */
/* Turn @ctl on for the root's children: 1 if we did, 0 if it was, -1. */
static int cgroup_enable(const char *ctl)
{
	char buf[512], plus[32];

	if (tt_read_file(TT_CGROOT "/cgroup.subtree_control", buf,
			 sizeof(buf)) < 0)
		return -1;
	if (has_word(buf, ctl))
		return 0;
	snprintf(plus, sizeof(plus), "+%s", ctl);
	return tt_write_str(TT_CGROOT "/cgroup.subtree_control", plus) ? -1 : 1;
}

static int cgroup_setup(void)
{
	int cpuset = cgroup_enable("cpuset"), cpu = cgroup_enable("cpu"), g;

	if (cpuset < 0 || cpu < 0)
		return -1;
	if (mkdir(FUZZ_CPUSET, 0755) && errno != EEXIST)
		return -1;
	if (tt_write_str(FUZZ_CPUSET "/cpuset.cpus.partition", "member") ||
	    tt_write_str(FUZZ_CPUSET "/cpuset.cpus", "0-1"))
		return -1;
	for (g = 0; g < FUZZ_GROUPS; g++)
		if (fuzz_group_make(g))
			return -1;
	return (cpuset ? CG_CPUSET_BY_US : 0) | (cpu ? CG_CPU_BY_US : 0);
}

/*
 * With every worker gone: the cgroup removed, the controllers as they
 * were (op_cpuset() may have left cpu either way).
 */
static int cgroup_teardown(int enabled)
{
	double end = mono_seconds() + 5;
	char dir[96];
	int g;

	while (rmdir(FUZZ_CPUSET) && mono_seconds() < end)
		tt_sleep(0.05);
	if (!access(FUZZ_CPUSET, F_OK))
		return -1;
	for (g = 0; g < FUZZ_GROUPS; g++) {
		snprintf(dir, sizeof(dir), FUZZ_GROUP, g);
		while (rmdir(dir) && errno == EBUSY && mono_seconds() < end)
			tt_sleep(0.05);
		if (!access(dir, F_OK))
			return -1;
	}
	if (tt_write_str(TT_CGROOT "/cgroup.subtree_control",
			 enabled & CG_CPU_BY_US ? "-cpu" : "+cpu"))
		return -1;
	return enabled & CG_CPUSET_BY_US ?
		tt_write_str(TT_CGROOT "/cgroup.subtree_control", "-cpuset") : 0;
}

static void usage(void)
{
	printf(
"Usage: dsfuzz [options]\n"
"Fuzz sched_setattr/getattr, fork/exit/kill, setresuid, affinity, ptys,\n"
"/proc/self/ttygroup, the desksched sysctls, root domain rebuilds and\n"
"cpusets from several uids, and check the accounting invariants at every\n"
"checkpoint and at the end; with the hostile operation, also run a burst of\n"
"uid 1000's attackers beside SCHED_FIFO hogs at every checkpoint and check\n"
"the CPU time it consumed against its cap (burst_max_pct: the largest share).\n"
"Run as root in the test guest only.\n"
"\n"
"  -S, --seed=N         PRNG seed (default 1)\n"
"  -s, --seconds=S      run time (default 60, 1..86400)\n"
"  -w, --workers=N      worker processes (default 6, 1..%d)\n"
"  -c, --check-ms=MS    time between checkpoints (default 2000, 100..60000)\n"
"  -o, --ops=LIST       only these operations, comma separated, of: setattr,\n"
"                       child, getattr, fork, setresuid, affinity, sysctl,\n"
"                       pty, rebuild, cpuset, hostile, elastickill, group\n"
"                       (default all but group)\n"
"  -h, --help           show this help\n"
"\n"
"Prints its figures; exit status 1 on a broken invariant, 2 on bad usage\n"
"or a guest without the interfaces.\n",
	MAX_WORKERS);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed",     required_argument, NULL, 'S' },
		{ "seconds",  required_argument, NULL, 's' },
		{ "workers",  required_argument, NULL, 'w' },
		{ "check-ms", required_argument, NULL, 'c' },
		{ "ops",      required_argument, NULL, 'o' },
		{ "help",     no_argument,       NULL, 'h' },
		{ }
	};
	long user_pct, unpriv_pct, tty_on, ops = 0, checks = 0, invariants = 0;
	double seconds = 60, end;
	int check_ms = 2000, opt, i, stuck, cg_enabled;
	int64_t base_bw;

	seed = 1;
	nworkers = 6;
	while ((opt = getopt_long(argc, argv, "S:s:w:c:o:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'S':
			seed = arg_long("--seed", optarg, 0, 0x7fffffffL);
			break;
		case 's':
			seconds = arg_double("--seconds", optarg, 1, 86400);
			break;
		case 'w':
			nworkers = arg_long("--workers", optarg, 1, MAX_WORKERS);
			break;
		case 'c':
			check_ms = arg_long("--check-ms", optarg, 100, 60000);
			break;
		case 'o':
			ops_mask = parse_ops(optarg);
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage_hint();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (geteuid()) {
		fprintf(stderr, "dsfuzz: must run as root (in the test guest)\n");
		return 2;
	}
	rng_state = seed;
	setvbuf(stdout, NULL, _IOLBF, 0);
	slots = mmap(NULL, sizeof(*slots) * MAX_WORKERS + sizeof(*checkpoint),
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED) {
		perror("dsfuzz: mmap");
		return 2;
	}
	checkpoint = (volatile int *)&slots[MAX_WORKERS];
	user_pct = dt_knob_get(DT_USER_PCT);
	unpriv_pct = dt_knob_get(DT_UNPRIV_PCT);
	tty_on = dt_knob_get(TTY_SYSCTL);
	rt_runtime_boot = dt_knob_get(DT_RT_RUNTIME);
	period_max_ns = dt_knob_get("/proc/sys/kernel/sched_deadline_period_max_us") * 1000ULL;
	base_bw = dt_total_bw();
	base_groups = tt_groups_count();
	if (user_pct < 0 || unpriv_pct < 0 || tty_on < 0 || base_bw < 0 ||
	    base_groups < 0 || dt_users_count()) {
		fprintf(stderr, "dsfuzz: knobs, %s, debugfs sched/debug or ttygroups missing, or uids already listed\n",
			DT_USERS);
		return 2;
	}
	cg_enabled = cgroup_setup();
	if (cg_enabled < 0) {
		fprintf(stderr, "dsfuzz: cannot set up %s: %s\n", FUZZ_CPUSET,
			strerror(errno));
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	printf("# dsfuzz: seed %" PRIu64 " workers %d seconds %.0f\n", seed,
	       nworkers, seconds);
	for (i = 0; i < nworkers; i++)
		spawn(i);
	end = mono_seconds() + seconds;
	while (mono_seconds() < end) {
		tt_sleep(check_ms / 1000.0);
		ops += reap();
		stuck = park_all(PARK_SECONDS);
		if (stuck >= 0) {
			report_stuck(stuck);
			unpark_all();
			continue;
		}
		/*
		 * Now and then a kill from outside, between two operations: a
		 * worker killed inside op_setattr_child() would leave its child
		 * a deadline task on a budget of a few microseconds, which
		 * holds its bandwidth for the seconds its exit then takes.
		 */
		if (rnd() % 3 == 0) {
			i = rnd() % nworkers;
			kill(slots[i].pid, SIGKILL);
			if (reaped_within(slots[i].pid, 10)) {
				ops += replace(i);
			} else {
				fail("worker %d (pid %d) still there 10 s after SIGKILL",
				     i, slots[i].pid);
				report_stuck(i);
			}
		}
		invariants += check(base_bw);
		if (ops_mask & (1u << 12)) {
			burst();
			invariants++;
		}
		checks++;
		unpark_all();
	}
	/*
	 * The last kills too come between two operations: one inside an
	 * operation could leave a partition made or the rt limit lowered.
	 */
	ops += reap();
	stuck = park_all(PARK_SECONDS);
	if (stuck >= 0)
		report_stuck(stuck);
	for (i = 0; i < nworkers; i++) {
		kill(slots[i].pid, SIGKILL);
		if (!reaped_within(slots[i].pid, 10)) {
			fail("worker %d (pid %d, state %c) still there 10 s after SIGKILL",
			     i, slots[i].pid, tt_proc_state(slots[i].pid));
			report_stuck(i);
		}
		ops += slots[i].ops;
		admitted += slots[i].admitted;
		attacks += slots[i].attacks;
		kills_late += slots[i].kills_late;
	}
	/* The end: knobs back, nothing held, nothing left. */
	dt_knob_set(DT_USER_PCT, user_pct);
	dt_knob_set(DT_UNPRIV_PCT, unpriv_pct);
	dt_knob_set(TTY_SYSCTL, tty_on);
	if (rt_runtime_boot > 0)
		dt_knob_set(DT_RT_RUNTIME, rt_runtime_boot);

	if (dt_users_wait_empty(5))
		fail("%s not empty after all workers are gone", DT_USERS);
	if (dt_total_bw_wait(base_bw, 10) != base_bw)
		fail("total_bw %" PRId64 " after all workers are gone, baseline %" PRId64,
		     dt_total_bw(), base_bw);
	if (tt_groups_wait_count(base_groups, 5) != base_groups)
		fail("%d tty groups left, %d before", tt_groups_count(),
		     base_groups);
	if (cgroup_teardown(cg_enabled))
		fail("cannot remove %s: %s", FUZZ_CPUSET, strerror(errno));
	if (kills_late)
		fail("%ld SIGKILLed attackers not reaped within %d s",
		     kills_late, KILL_SECONDS);
	invariants += 5;
	printf("# dsfuzz: seed %" PRIu64 " operations %ld admitted %ld attacks %ld checkpoints %ld reservations_checked %ld respawns %d burst_max_pct %.0f invariants %ld broken %d\n",
	       seed, ops, admitted, attacks, checks, held_checked,
	       respawns - nworkers, burst_max * 100, invariants, failures);
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ovh - the micro benchmarks of the overhead table: how many times per
 * second the kernel does one thing the series touches.
 *
 *   pipe      a pipe ping-pong between two processes on one CPU (two
 *             context switches; across CPUs it would time TCG's IPIs)
 *   fork      fork() + exit + waitpid()
 *   pty       open a pty master, its slave as controlling tty of a new
 *             session (what creates a tty group), close both
 *   setattr   sched_setattr() changing its own SCHED_DEADLINE reservation,
 *             per second of the caller's CPU time: the reservation of
 *             90-95% throttles the loop, and that is the CBS at work, not
 *             the cost of admission
 *   elasticN  sched_setattr() changing a sleeping child's elastic
 *             reservation, with N - 1 other elastic reservations in the
 *             pool, all rescaled by every call from N = 40 on
 *   hardN     the same for a hard reservation beside N elastic ones
 *   dl1000    the same beside 1000 hard reservations of 0.1%: what that
 *             many reservations cost without the elastic code
 *   idle1000  the same beside 1000 sleeping processes without a
 *             reservation: what that many processes cost by themselves
 *
 * Two lines per benchmark: "ovh NAME rate N", operations per second of
 * its timed loop on its clock (setup and teardown untimed), and "ovh NAME
 * best N", the same over its fastest batch of operations. Under TCG a
 * boot runs tens of percent faster or slower than the next, and the
 * mean follows; the fastest batch is what the code costs, and differs by
 * a percent or two between boots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "clock.h"
#include "dl.h"

/* The timed loop of a benchmark: while (meter_next(m)) do one operation. */
struct meter {
	double seconds;		/* to run for */
	int batch;		/* operations per batch */
	clockid_t clock;
	int64_t start, end, now, batch_start;
	int64_t best;		/* ns of the fastest batch, 0: none done */
	long n;			/* operations done */
};

static void meter_start(struct meter *m, clockid_t clock)
{
	m->clock = clock;
	m->start = m->now = m->batch_start = clock_ns(clock);
	m->end = m->start + (int64_t)(m->seconds * NSEC_PER_SEC);
	m->best = 0;
	m->n = -1;
}

/* Counts the operation done since the last call; false once time is up. */
static bool meter_next(struct meter *m)
{
	m->now = clock_ns(m->clock);
	if (++m->n && m->n % m->batch == 0) {
		if (!m->best || m->now - m->batch_start < m->best)
			m->best = m->now - m->batch_start;
		m->batch_start = m->now;
	}
	return m->now < m->end;
}

static int bench_pipe(struct meter *m, int unused __attribute__((unused)))
{
	int ab[2], ba[2];
	cpu_set_t all, one;
	char c = 0;
	pid_t pid;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_getaffinity(0, sizeof(all), &all) ||
	    sched_setaffinity(0, sizeof(one), &one) || pipe(ab) || pipe(ba))
		return -1;
	pid = fork();
	if (!pid) {
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	if (pid < 0)
		return -1;
	meter_start(m, CLOCK_MONOTONIC);
	while (meter_next(m))
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return -1;
	close(ab[1]);
	close(ba[0]);
	waitpid(pid, NULL, 0);
	return sched_setaffinity(0, sizeof(all), &all);
}

static int bench_fork(struct meter *m, int unused __attribute__((unused)))
{
	pid_t pid;

	meter_start(m, CLOCK_MONOTONIC);
	while (meter_next(m)) {
		pid = fork();
		if (!pid)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return -1;
	}
	return 0;
}

static int bench_pty(struct meter *m, int unused __attribute__((unused)))
{
	int status, master;
	char name[64];
	pid_t pid;

	meter_start(m, CLOCK_MONOTONIC);
	while (meter_next(m)) {
		master = posix_openpt(O_RDWR | O_NOCTTY);
		if (master < 0 || grantpt(master) || unlockpt(master) ||
		    ptsname_r(master, name, sizeof(name)))
			return -1;
		pid = fork();
		if (!pid) {
			int s;

			setsid();
			s = open(name, O_RDWR);
			_exit(s < 0 || ioctl(s, TIOCSCTTY, 0));
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			return -1;
		close(master);
	}
	return 0;
}

/*
 * Each call changes the reservation, so each is a full admission. Going
 * back and forth to SCHED_OTHER instead would time the budget: a task
 * that used its runtime waits for the next period, whatever its policy.
 * 90% and 95% of a 100 ms period keep the throttled share small, and the
 * loop runs for, and is counted against, its own CPU time, so that the
 * throttled time is not counted at all.
 */
static int bench_setattr(struct meter *m, int unused __attribute__((unused)))
{
	struct dl_attr other = { .sched_policy = SCHED_OTHER };

	meter_start(m, CLOCK_THREAD_CPUTIME_ID);
	while (meter_next(m))
		if (dl_set_deadline(0, (m->n % 2 ? 95 : 90) * 1000000ULL,
				    100000000, 100000000, 0))
			return -1;
	return dl_setattr(0, &other);
}

#define FLAG_ELASTIC	0x100ULL
#define ELASTIC_MAX	1000

/*
 * Sleep as a player does between frames, with @runtime of 100 ms; with
 * @runtime 0 under SCHED_OTHER.
 */
static pid_t sleeping_reservation(uint64_t runtime, uint64_t flags)
{
	pid_t pid = fork();

	if (!pid) {
		if (runtime &&
		    dl_set_deadline(0, runtime, 100000000, 100000000, flags))
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

/*
 * Whether @pid sleeps: a child still on its way to pause() would be timed
 * as load beside the benchmark.
 */
static bool asleep(pid_t pid)
{
	char path[32], buf[512], *state;
	bool ret = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		state = strrchr(buf, ')');
		ret = state && state[1] == ' ' && state[2] == 'S';
	}
	fclose(f);
	return ret;
}

/*
 * sched_setattr() calls per second changing the request of one of @pool
 * elastic reservations (@hard false), or a hard reservation beside them.
 * The elastic ones belong to root and share the root domain: 5% each up
 * to 100 of them, 0.5% each for more, so that from 40 of them on they
 * are scaled and each change of either kind changes every grant. They
 * belong to children that sleep, as players between frames do; the
 * caller stays SCHED_OTHER, so that what is timed is the admission and
 * the rescaling, not a budget of its own. @others says what the others
 * hold: elastic reservations, hard ones of 0.1% each (what that many
 * reservations cost without the elastic code), or nothing.
 */
enum others { OTHERS_ELASTIC, OTHERS_HARD, OTHERS_NONE };

static int bench_change(struct meter *m, int pool, bool hard, enum others others)
{
	uint64_t runtime = others == OTHERS_NONE ? 0 :
			   others == OTHERS_HARD ? 100000 :
			   pool > 100 ? 500000 : 5000000;
	uint64_t others_flags = others == OTHERS_ELASTIC ? FLAG_ELASTIC : 0;
	struct dl_attr attr = {
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = hard ? 0 : FLAG_ELASTIC,
		.sched_deadline = 100000000, .sched_period = 100000000,
	};
	pid_t *pids, target = -1;
	int i, started = 0, err = 0;
	double end;

	pids = calloc(pool + 1, sizeof(*pids));
	if (!pids)
		return -1;
	for (i = 0; i < pool; i++) {
		pids[i] = sleeping_reservation(runtime, others_flags);
		if (pids[i] < 0)
			break;
		started++;
	}
	if (started == pool && hard) {
		pids[pool] = sleeping_reservation(1000000, 0);
		if (pids[pool] > 0)
			started++;
	}
	/* Wait for the requests and the sleep; a refused one exits. */
	end = mono_seconds() + 60;
	for (i = 0; i < started && mono_seconds() < end; i++)
		while (((runtime && sched_getscheduler(pids[i]) != SCHED_DEADLINE) ||
			!asleep(pids[i])) && mono_seconds() < end)
			usleep(10000);
	if (i < started)
		err = ESRCH;
	target = hard ? pids[pool] : pids[0];
	/* The setup and the teardown are not the change: untimed. */
	if (!err && started == pool + hard) {
		meter_start(m, CLOCK_MONOTONIC);
		while (meter_next(m)) {
			attr.sched_runtime = (m->n % 2 ? 10 : 9) *
					     (hard ? 1000000 : runtime) / 10;
			if (dl_setattr(target, &attr)) {
				err = errno;
				break;
			}
		}
	}
	for (i = 0; i < started; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	free(pids);
	if (started < pool + hard || err) {
		errno = err ?: EAGAIN;
		return -1;
	}
	return 0;
}

static int bench_elastic(struct meter *m, int pool)
{
	return bench_change(m, pool, false, OTHERS_ELASTIC);
}

static int bench_hard(struct meter *m, int pool)
{
	return bench_change(m, pool, true, OTHERS_ELASTIC);
}

static int bench_hard_beside_hard(struct meter *m, int pool)
{
	return bench_change(m, pool, true, OTHERS_HARD);
}

static int bench_hard_idle(struct meter *m, int pool)
{
	return bench_change(m, pool, true, OTHERS_NONE);
}

/* A batch is some milliseconds of operations under TCG. */
static const struct {
	const char *name;
	/* Runs its timed loop on the meter; < 0 (errno set) on failure. */
	int (*run)(struct meter *m, int arg);
	int arg;		/* N of elasticN and hardN */
	int batch;
} benches[] = {
	{ "pipe", bench_pipe, 0, 100 },
	{ "fork", bench_fork, 0, 5 },
	{ "pty", bench_pty, 0, 5 },
	{ "setattr", bench_setattr, 0, 100 },
	{ "elastic1", bench_elastic, 1, 100 },
	{ "elastic10", bench_elastic, 10, 100 },
	{ "elastic100", bench_elastic, 100, 100 },
	{ "elastic1000", bench_elastic, ELASTIC_MAX, 100 },
	{ "hard0", bench_hard, 0, 100 },
	{ "hard10", bench_hard, 10, 100 },
	{ "hard100", bench_hard, 100, 100 },
	{ "hard1000", bench_hard, ELASTIC_MAX, 100 },
	{ "dl1000", bench_hard_beside_hard, ELASTIC_MAX, 100 },
	{ "idle1000", bench_hard_idle, ELASTIC_MAX, 100 },
};
#define NR_BENCHES	((int)(sizeof(benches) / sizeof(benches[0])))

static void usage(void)
{
	printf(
"Usage: ovh [options] [BENCH...]\n"
"Count operations per second: pipe (ping-pong), fork (fork+exit+wait),\n"
"pty (open a pty, take it as controlling tty, close), setattr\n"
"(a new SCHED_DEADLINE reservation each call, per second of its own CPU\n"
"time), elasticN (changing one of N elastic reservations) and hardN\n"
"(changing a hard reservation beside N elastic ones), N = 1, 10, 100,\n"
"1000 and 0, 10, 100, 1000, dl1000 (the same beside 1000 hard reservations\n"
"of 0.1%%) and idle1000 (beside 1000 sleeping processes without one).\n"
"Default: pipe fork pty setattr.\n"
"\n"
"  -s, --seconds=S   time per benchmark (default 2, 0.1..600)\n"
"  -h, --help        show this help\n"
"\n"
"Prints \"ovh NAME rate N\" per benchmark (over all its operations) and\n"
"\"ovh NAME best N\" (over its fastest batch of them: 100 operations, 5\n"
"for fork and pty); exit status 1 if one fails.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "help",    no_argument,       NULL, 'h' },
		{ }
	};
	bool selected[NR_BENCHES];
	struct meter m = { .seconds = 2 };
	int opt, i, j, ret = 0;

	while ((opt = getopt_long(argc, argv, "s:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			m.seconds = arg_double("--seconds", optarg, 0.1, 600);
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage_hint();
		}
	}
	/* The elastic ones need CONFIG_SCHED_DEADLINE_ELASTIC: on request. */
	for (j = 0; j < NR_BENCHES; j++)
		selected[j] = optind == argc && !benches[j].arg &&
			      strncmp(benches[j].name, "hard", 4) &&
			      strncmp(benches[j].name, "dl", 2) &&
			      strncmp(benches[j].name, "idle", 4);
	for (i = optind; i < argc; i++) {
		for (j = 0; j < NR_BENCHES && strcmp(argv[i], benches[j].name); j++)
			;
		if (j == NR_BENCHES)
			usage_error("unknown benchmark '%s'", argv[i]);
		selected[j] = true;
	}
	for (j = 0; j < NR_BENCHES; j++) {
		if (!selected[j])
			continue;
		m.batch = benches[j].batch;
		if (benches[j].run(&m, benches[j].arg) < 0) {
			fprintf(stderr, "ovh: %s: %s\n", benches[j].name,
				strerror(errno));
			ret = 1;
			continue;
		}
		printf("ovh %s rate %.0f\n", benches[j].name,
		       m.n * (double)NSEC_PER_SEC / (m.now - m.start));
		if (m.best)
			printf("ovh %s best %.0f\n", benches[j].name,
			       m.batch * (double)NSEC_PER_SEC / m.best);
		fflush(stdout);
	}
	return ret;
}

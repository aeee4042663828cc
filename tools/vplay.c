// SPDX-License-Identifier: GPL-2.0
/*
 * vplay - the video player of the 2010 deadline scheduling debate as a
 * workload: every frame period it needs a fixed amount of CPU time before
 * the frame's deadline.
 *
 * Work is measured in CPU time of the player's thread, not in loop counts,
 * so that a frame costs the same whatever preempts it. A frame whose
 * deadline has already passed when the player gets to it is dropped, as a
 * player that has fallen behind does; a frame finished after its deadline
 * is late.
 *
 * With --elastic the player asks for an elastic reservation and reads back,
 * every frame, the runtime it was granted: when that is less than it asked
 * for, it renders the frame at the same fraction of its full work (lower
 * quality, the way a player lowers resolution) so that it keeps up.
 *
 * With --autotune the runtime asked for is only a ceiling and the kernel
 * learns the runtime from the frames (SCHED_FLAG_DL_AUTOTUNE): the player
 * does all of its work every frame, and --work-step changes that work half
 * way through, to see the reservation follow.
 *
 * With --buffer=N the player decodes ahead, as real players do: a frame
 * is due when it is displayed, N frame periods after its own, and the
 * player wakes once every N frames to decode the next N. Its reservation
 * spans those N frames (period and deadline), so that what it asks for,
 * or what the kernel learns, is the work of N frames: an I frame's peak
 * is spread over the frames around it instead of sized for on its own.
 *
 * With --threads=N the decoding of a frame is a pipeline of N threads,
 * each doing 1/N of the work and handing the frame on to the next, as a
 * demuxer hands packets to a decoder and a decoder pictures to the
 * output: the frame is done when the last thread is. A reservation is
 * then per thread (each with 1/N of the runtime), or, with the player run
 * under dlrun --app, one for all of them.
 *
 * CPU-time work fits a reservation by construction. A real decoder's
 * work is instructions, whose CPU time varies with caches, frequency and
 * contention (under QEMU TCG, with the load of the host): --work=loops
 * runs a loop count calibrated at start instead. --work-dist gives the
 * frames unequal work, as a video's frame types do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "clock.h"
#include "dl.h"
#include "proc.h"


#define FLAG_ELASTIC	0x100ULL
#define FLAG_AUTOTUNE	0x200ULL

struct stats {
	long frames, on_time, late, dropped;
	long step_late;		/* late from the --work-step frame on */
	long degraded;		/* played below full quality */
	double quality;		/* sum over played frames, 1 = full */
	long n;			/* lateness samples in lat[] */
	int64_t *lat;		/* ns, finish - deadline, of frames played */
	int64_t *grant;		/* ns of runtime granted, per frame played */
	int64_t *used;		/* ns of CPU time used, per frame played */
	long *frame;		/* the frame number of each played frame */
};

enum { DIST_FIXED, DIST_GOP, DIST_HEAVY };

/*
 * A group of pictures of 12 frames, IBBPBBPBBPBB, as MPEG encoders make
 * them: an I frame needs 2.25 times the mean work, a P frame 1.25, a B
 * frame 0.75. With the jitter of frame_work(), the worst frame is about
 * 2.3 times the mean and the 90th percentile about 1.3 times; one frame
 * in 12 is an I frame, so the 95th and 98th percentiles are I frames.
 */
static const double gop[12] = {
	2.25, 0.75, 0.75, 1.25, 0.75, 0.75, 1.25, 0.75, 0.75, 1.25, 0.75, 0.75,
};

/* The same sequence of frames every run. */
static uint32_t xorshift32(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Frame @i's work as a multiple of the mean (1 on average). */
static double frame_work(int dist, long i, uint32_t *seed)
{
	double jitter = 0.96 + 0.08 * (xorshift32(seed) % 1000) / 999;

	switch (dist) {
	case DIST_GOP:
		return gop[i % 12] * jitter;
	case DIST_HEAVY:
		/* One frame in 20 needs 3.85 times the others. */
		return xorshift32(seed) % 20 ? 0.85 : 3.85;
	default:
		return 1;
	}
}

static void usage(void)
{
	printf(
"Usage: vplay [options]\n"
"Play a \"video\": every frame needs --work-ms of CPU time before its\n"
"deadline. Prints a line a second and a summary: frames on time, late\n"
"(finished after the deadline) and dropped (deadline passed before the\n"
"frame was started), and the lateness of played frames (finish minus\n"
"deadline; negative is early) at the 50th and 99th percentile and max;\n"
"with --elastic also the frames played at reduced quality and the mean\n"
"quality (1.00: every frame with all its work).\n"
"\n"
"  -f, --fps=N          frames per second (default 20, 1..1000)\n"
"  -w, --work-ms=MS     CPU time per frame (default 10, 0.01..1000)\n"
"  -d, --deadline-ms=MS deadline after the frame's start (default: the\n"
"                       frame period)\n"
"  -s, --seconds=S      play for S seconds (default 5, 0.1..3600)\n"
"  -p, --policy=P       other (default) or deadline: SCHED_DEADLINE with\n"
"                       period 1/fps and the deadline above\n"
"  -r, --runtime-ms=MS  runtime asked for with --policy=deadline\n"
"                       (default: 1.25 times --work-ms)\n"
"  -S, --slice-ms=MS    with --policy=other: ask EEVDF for a slice of MS\n"
"                       (sched_attr.sched_runtime, 0.1..100; any user may)\n"
"  -e, --elastic        --policy=deadline with SCHED_FLAG_DL_ELASTIC: never\n"
"                       refused; when granted less than --runtime-ms, play\n"
"                       each frame with that fraction of --work-ms\n"
"  -a, --autotune       --elastic with SCHED_FLAG_DL_AUTOTUNE: the runtime\n"
"                       (default: the deadline) is a ceiling, the kernel\n"
"                       learns what the frames need; full work every frame\n"
"  -b, --buffer=N       decode N frames ahead (1..50, default 1): wake once\n"
"                       every N frames and decode the next N, each due N\n"
"                       frame periods after its own; a reservation spans\n"
"                       N frames, --runtime-ms is per N frames (default\n"
"                       N times 1.25 times --work-ms)\n"
"  -W, --work-step=F    from the middle of the run on, F times the work\n"
"                       (0.1..10, default 1)\n"
"  -k, --work=KIND      cpu (default): --work-ms of the thread's CPU time;\n"
"                       loops: a loop count calibrated to --work-ms at\n"
"                       start, whose CPU time varies as a decoder's does\n"
"  -D, --work-dist=D    fixed (default): every frame --work-ms; gop: a\n"
"                       group of 12 pictures, the I frame 2.25 times the\n"
"                       mean (--work-ms), P 1.25, B 0.75, +-4%%; heavy:\n"
"                       one frame in 20 needs 3.85 times the others\n"
"  -t, --threads=N      decode each frame in a pipeline of N threads\n"
"                       (1..8, default 1), each doing 1/N of the work and\n"
"                       handing the frame on; --policy=deadline reserves\n"
"                       1/N of the runtime in each thread\n"
"  -q, --quiet          only the summary\n"
"  -h, --help           show this help\n"
"\n"
"With --policy=deadline the summary adds a line: mean runtime granted\n"
"and CPU time used a frame (reserved_ms, used_ms, their ratio; with\n"
"--buffer=N a frame's share of the runtime is 1/N of it), when the\n"
"grant settled (settle_s: from then to the step within 25%% of its median\n"
"over the second quarter of the run), late frames from the step on\n"
"(step_late) and jobs (frames, or batches of --buffer frames) from the\n"
"step until the grant covered the new mean use (regrow_jobs; -1: never),\n"
"the ratio of reserved to used from the settling on\n"
"(settled_reserved_used), and the least ratio that any fixed runtime\n"
"would have had from then on with at most 2%% of the jobs needing more\n"
"(fixed_reserved_used: the 98th percentile of the jobs' CPU time over\n"
"their mean).\n"
"\n"
"Exit status: 0 when played, 1 when the policy could not be set, 2 on\n"
"bad usage.\n");
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / NSEC_PER_SEC, t % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* --work=loops: loops per ns of CPU time, measured at start. */
static double loops_per_ns;
static volatile uint64_t loop_sink;

static void run_loops(uint64_t n)
{
	uint64_t x = loop_sink;

	while (n--)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	loop_sink = x;
}

/* The loops that take a quarter second of CPU time, before any load. */
static void calibrate_loops(void)
{
	int64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), t;
	uint64_t n = 0;

	do {
		run_loops(100000);
		n += 100000;
		t = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	} while (t < NSEC_PER_SEC / 4);
	loops_per_ns = (double)n / t;
}

/* @ns of this thread's CPU time, or the loops that took as long. */
static void work(int64_t ns)
{
	int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	if (loops_per_ns) {
		run_loops((uint64_t)(ns * loops_per_ns));
		return;
	}
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

/*
 * --threads: stage i > 0 waits on go[i], does its share and hands the
 * frame to stage i + 1; the last one posts done. Stage 0 is the player.
 */
#define MAX_THREADS	8
static int nthreads = 1;
static sem_t go[MAX_THREADS], done, ready;
static pid_t stage_tid[MAX_THREADS];
static int64_t stage_ns;

static void *stage_main(void *arg)
{
	long i = (long)arg;

	stage_tid[i] = gettid();
	sem_post(&ready);
	for (;;) {
		while (sem_wait(&go[i]))
			;
		work(stage_ns);
		sem_post(i + 1 < nthreads ? &go[i + 1] : &done);
	}
	return NULL;
}

/* A frame of @ns work, over the pipeline of threads. */
static void decode(int64_t ns)
{
	if (nthreads == 1) {
		work(ns);
		return;
	}
	stage_ns = ns / nthreads;
	work(stage_ns);
	sem_post(&go[1]);
	while (sem_wait(&done))
		;
}

/*
 * Start the other stages; with --policy=deadline each thread, the
 * player's included, reserves @runtime / N: a SCHED_DEADLINE thread may
 * not create threads, so they are all made first.
 */
static int start_stages(int deadline_policy, int64_t runtime, int64_t deadline,
			int64_t period)
{
	pthread_t t;
	long i;
	int ret;

	sem_init(&done, 0, 0);
	sem_init(&ready, 0, 0);
	for (i = 1; i < nthreads; i++) {
		sem_init(&go[i], 0, 0);
		if (pthread_create(&t, NULL, stage_main, (void *)i))
			return -EAGAIN;
		while (sem_wait(&ready))
			;
	}
	if (!deadline_policy)
		return 0;
	for (i = 1; i < nthreads; i++) {
		ret = dl_set_deadline(stage_tid[i], runtime / nthreads,
				      deadline, period, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* The runtime granted now; 0 under another policy (an elastic wait). */
static int64_t granted_runtime(void)
{
	struct dl_attr a;

	long long granted;

	if (dl_getattr(0, &a) || a.sched_policy != SCHED_DEADLINE)
		return 0;
	/* sched_getattr() reads back the request; the grant is here. */
	granted = proc_sched_field(getpid(), "dl.elastic_granted");
	return granted < 0 ? (int64_t)a.sched_runtime : granted;
}

/*
 * What an elastic reservation grants now, as a fraction of @asked. Waiting
 * under SCHED_OTHER (nothing granted), the player does its best at full
 * quality, like any SCHED_OTHER player.
 */
static double granted_fraction(int64_t granted, int64_t asked)
{
	if (!granted || granted >= asked)
		return 1;
	return (double)granted / (double)asked;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double mean_ns(const int64_t *v, long from, long to)
{
	double sum = 0;
	long i;

	for (i = from; i < to; i++)
		sum += v[i];
	return to > from ? sum / (to - from) : 0;
}

/* Percentile @p of the first @n samples, in ms; sorts them. */
static double pct_ms(int64_t *v, long n, double p)
{
	long i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	i = (long)(p / 100 * (n - 1) + 0.5);
	return (double)v[i] / NSEC_PER_MSEC;
}

/*
 * The least that any fixed runtime would have reserved over used from
 * frame @from on, had at most 2% of the jobs been allowed to need more:
 * the 98th percentile of the jobs' CPU time over their mean. Under TCG
 * the same work costs a varying CPU time, which no reservation can
 * follow; this is the ratio the row's work allowed.
 */
static double fixed_reserved_used(const struct stats *s, long from, int buffer)
{
	int64_t *job = calloc(s->n + 1, sizeof(*job));
	long i, jobs = 0;
	double ratio = 0, mean;

	if (!job)
		return 0;
	for (i = from; i < s->n; i++) {
		if (i > from && s->frame[i] / buffer != s->frame[i - 1] / buffer)
			jobs++;
		job[jobs] += s->used[i];
	}
	if (s->n > from) {
		jobs++;
		mean = mean_ns(job, 0, jobs);
		if (mean)
			ratio = pct_ms(job, jobs, 98) * NSEC_PER_MSEC / mean;
	}
	free(job);
	return ratio;
}

/*
 * The reservation against the work: see the help text. @step is the
 * index of the first frame played at --work-step, @period the frame
 * period, @buffer the frames of a job.
 */
static void report_reservation(struct stats *s, long step, int64_t period,
			       int buffer, int stepped)
{
	long i, settled = 0, regrow = stepped ? -1 : 0, quarter, half;
	double reserved = mean_ns(s->grant, 0, s->n);
	double used = mean_ns(s->used, 0, s->n), median, after, settled_used;
	int64_t *sorted;

	quarter = step / 2;
	half = step;
	sorted = malloc(sizeof(*sorted) * (half - quarter + 1));
	median = 0;
	if (sorted && half > quarter) {
		memcpy(sorted, s->grant + quarter, sizeof(*sorted) * (half - quarter));
		qsort(sorted, half - quarter, sizeof(*sorted), cmp_i64);
		median = sorted[(half - quarter) / 2];
	}
	free(sorted);
	for (i = 0; i < half; i++)
		if (s->grant[i] < 0.75 * median || s->grant[i] > 1.25 * median)
			settled = i + 1;
	after = mean_ns(s->used, s->n - (s->n - step) / 2, s->n);
	for (i = step; stepped && i < s->n; i++) {
		if (s->grant[i] >= after) {
			regrow = (i - step) / buffer;
			break;
		}
	}
	settled_used = mean_ns(s->used, settled, s->n);
	printf("vplay: reserved_ms %.3f used_ms %.3f reserved_used %.2f settle_s %.2f step_late %ld regrow_jobs %ld settled_reserved_used %.2f fixed_reserved_used %.2f\n",
	       reserved / NSEC_PER_MSEC, used / NSEC_PER_MSEC,
	       used ? reserved / used : 0.0,
	       settled < s->n ? (double)s->frame[settled] * period / NSEC_PER_SEC : -1.0,
	       s->step_late, regrow,
	       settled_used ? mean_ns(s->grant, settled, s->n) / settled_used : 0.0,
	       fixed_reserved_used(s, settled, buffer));
}

static void report(const char *what, struct stats *s, long from)
{
	long n = s->n - from;
	int64_t *v = s->lat + from;

	printf("vplay: %s frames %ld on_time %ld late %ld dropped %ld"
	       " lateness_ms p50 %.2f p99 %.2f max %.2f degraded %ld quality %.2f\n",
	       what, s->frames, s->on_time, s->late, s->dropped,
	       pct_ms(v, n, 50), pct_ms(v, n, 99), pct_ms(v, n, 100),
	       s->degraded, s->n ? s->quality / s->n : 0.0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fps",         required_argument, NULL, 'f' },
		{ "work-ms",     required_argument, NULL, 'w' },
		{ "deadline-ms", required_argument, NULL, 'd' },
		{ "seconds",     required_argument, NULL, 's' },
		{ "policy",      required_argument, NULL, 'p' },
		{ "runtime-ms",  required_argument, NULL, 'r' },
		{ "elastic",     no_argument,       NULL, 'e' },
		{ "autotune",    no_argument,       NULL, 'a' },
		{ "work-step",   required_argument, NULL, 'W' },
		{ "buffer",      required_argument, NULL, 'b' },
		{ "slice-ms",    required_argument, NULL, 'S' },
		{ "work",        required_argument, NULL, 'k' },
		{ "work-dist",   required_argument, NULL, 'D' },
		{ "threads",     required_argument, NULL, 't' },
		{ "quiet",       no_argument,       NULL, 'q' },
		{ "help",        no_argument,       NULL, 'h' },
		{ }
	};
	double fps = 20, work_ms = 10, deadline_ms = 0, seconds = 5;
	double runtime_ms = 0, slice_ms = 0, work_step = 1;
	int deadline_policy = 0, elastic = 0, autotune = 0, quiet = 0, opt, ret;
	int loops = 0, dist = DIST_FIXED, buffer = 1;
	double quality, factor;
	int64_t period, deadline, runtime, t0, release, due, finish, next_report;
	int64_t res_period, res_deadline;
	int64_t granted, cpu0;
	long frame, nframes, step, step_index = 0, mark = 0, sec = 0;
	struct stats s = { 0 };
	uint32_t seed = 2010;

	while ((opt = getopt_long(argc, argv, "f:w:d:s:p:r:eaW:b:S:k:D:t:qh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'f':
			fps = arg_long("--fps", optarg, 1, 1000);
			break;
		case 'w':
			work_ms = arg_double("--work-ms", optarg, 0.01, 1000);
			break;
		case 'd':
			deadline_ms = arg_double("--deadline-ms", optarg, 0.01,
						 1000);
			break;
		case 's':
			seconds = arg_double("--seconds", optarg, 0.1, 3600);
			break;
		case 'p':
			if (!strcmp(optarg, "deadline"))
				deadline_policy = 1;
			else if (strcmp(optarg, "other"))
				usage_error("--policy must be 'other' or 'deadline', not '%s'",
					    optarg);
			break;
		case 'r':
			runtime_ms = arg_double("--runtime-ms", optarg, 0.01,
						1000);
			break;
		case 'e':
			elastic = 1;
			break;
		case 'a':
			elastic = autotune = 1;
			break;
		case 'W':
			work_step = arg_double("--work-step", optarg, 0.1, 10);
			break;
		case 'b':
			buffer = arg_long("--buffer", optarg, 1, 50);
			break;
		case 'S':
			slice_ms = arg_double("--slice-ms", optarg, 0.1, 100);
			break;
		case 'k':
			if (!strcmp(optarg, "loops"))
				loops = 1;
			else if (strcmp(optarg, "cpu"))
				usage_error("--work must be 'cpu' or 'loops', not '%s'",
					    optarg);
			break;
		case 'D':
			if (!strcmp(optarg, "gop"))
				dist = DIST_GOP;
			else if (!strcmp(optarg, "heavy"))
				dist = DIST_HEAVY;
			else if (strcmp(optarg, "fixed"))
				usage_error("--work-dist must be 'fixed', 'gop' or 'heavy', not '%s'",
					    optarg);
			break;
		case 't':
			nthreads = arg_long("--threads", optarg, 1, MAX_THREADS);
			break;
		case 'q':
			quiet = 1;
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
	if (elastic)
		deadline_policy = 1;

	if (buffer > 1 && deadline_ms)
		usage_error("--deadline-ms is for --buffer=1: a buffered frame is due when displayed");
	period = (int64_t)(NSEC_PER_SEC / fps);
	deadline = deadline_ms ? (int64_t)(deadline_ms * NSEC_PER_MSEC) : period;
	res_period = buffer * period;
	res_deadline = (buffer - 1) * period + deadline;
	if (deadline > period)
		usage_error("--deadline-ms %.2f is longer than the frame period %.2f ms",
			    deadline_ms, (double)period / NSEC_PER_MSEC);
	if (work_ms * NSEC_PER_MSEC > deadline)
		usage_error("--work-ms %.2f does not fit in the deadline of %.2f ms",
			    work_ms, (double)deadline / NSEC_PER_MSEC);
	if (work_ms * work_step * NSEC_PER_MSEC > deadline)
		usage_error("--work-ms %.2f times --work-step %.2f does not fit in the deadline of %.2f ms",
			    work_ms, work_step, (double)deadline / NSEC_PER_MSEC);
	/* A frame of the distribution may need more than the deadline: late. */
	runtime = runtime_ms ? (int64_t)(runtime_ms * NSEC_PER_MSEC) :
		  autotune ? res_deadline :
		  (int64_t)(buffer * work_ms * 1.25 * NSEC_PER_MSEC);
	if (runtime > res_deadline)
		runtime = res_deadline;
	if (!deadline_policy && runtime_ms)
		usage_error("--runtime-ms needs --policy=deadline");
	if (deadline_policy && slice_ms)
		usage_error("--slice-ms is for --policy=other");
	if (nthreads > 1 && (elastic || slice_ms))
		usage_error("--threads is for --policy=other or a hard --policy=deadline");

	nframes = (long)(seconds * fps + 0.5);
	s.lat = calloc(nframes, sizeof(*s.lat));
	s.grant = calloc(nframes, sizeof(*s.grant));
	s.used = calloc(nframes, sizeof(*s.used));
	s.frame = calloc(nframes, sizeof(*s.frame));
	if (!s.lat || !s.grant || !s.used || !s.frame) {
		perror("vplay: calloc");
		return 1;
	}
	if (loops)
		calibrate_loops();
	ret = start_stages(deadline_policy, runtime, res_deadline, res_period);
	if (ret) {
		fprintf(stderr, "vplay: --threads %d: %s%s\n", nthreads, strerror(-ret),
			ret == -EBUSY ? " (not enough bandwidth left: see /proc/sched_deadline_users)" : "");
		return 1;
	}
	if (deadline_policy) {
		ret = dl_set_deadline(0, runtime / nthreads, res_deadline, res_period,
				      (elastic ? FLAG_ELASTIC : 0) |
				      (autotune ? FLAG_AUTOTUNE : 0));
		if (ret) {
			fprintf(stderr, "vplay: SCHED_DEADLINE runtime %.2f ms deadline %.2f ms period %.2f ms: %s%s\n",
				(double)runtime / NSEC_PER_MSEC,
				(double)res_deadline / NSEC_PER_MSEC,
				(double)res_period / NSEC_PER_MSEC, strerror(-ret),
				ret == -EBUSY ? " (not enough bandwidth left: see /proc/sched_deadline_users)" :
				ret == -EPERM ? " (not allowed for this user)" : "");
			return 1;
		}
	}
	if (slice_ms) {
		struct dl_attr a = {
			.sched_policy = SCHED_OTHER,
			.sched_runtime = (uint64_t)(slice_ms * NSEC_PER_MSEC),
		};

		ret = dl_setattr(0, &a);
		if (ret) {
			fprintf(stderr, "vplay: SCHED_OTHER slice %.2f ms: %s\n",
				slice_ms, strerror(-ret));
			return 1;
		}
	}
	printf("vplay: fps %.0f work_ms %.2f deadline_ms %.2f policy %s runtime_ms %.2f frames %ld work %s work_dist %s buffer %d threads %d\n",
	       fps, work_ms, (double)res_deadline / NSEC_PER_MSEC,
	       autotune ? "autotune" : elastic ? "elastic" :
	       deadline_policy ? "deadline" : "other",
	       deadline_policy ? (double)runtime / NSEC_PER_MSEC : 0.0,
	       nframes, loops ? "loops" : "cpu",
	       dist == DIST_GOP ? "gop" : dist == DIST_HEAVY ? "heavy" : "fixed",
	       buffer, nthreads);
	if (loops)
		printf("vplay: calibrated loops_per_us %.1f\n", loops_per_ns * 1000);
	fflush(stdout);

	/*
	 * Start the first frame with a fresh budget: a deadline task that
	 * yields is throttled until its next period.
	 */
	if (deadline_policy)
		sched_yield();
	t0 = clock_ns(CLOCK_MONOTONIC);
	next_report = t0 + NSEC_PER_SEC;
	step = nframes / 2;
	for (frame = 0; frame < nframes; frame++) {
		/* Decoding starts at the first frame of the buffer's period. */
		release = t0 + (frame - frame % buffer) * period;
		due = t0 + (frame + buffer - 1) * period + deadline;
		factor = frame_work(dist, frame, &seed) *
			 (frame < step ? 1 : work_step);
		if (frame % buffer == 0)
			sleep_until(release);
		s.frames++;
		if (clock_ns(CLOCK_MONOTONIC) > due) {
			s.dropped++;
			goto next;
		}
		granted = deadline_policy ? granted_runtime() : 0;
		quality = elastic && !autotune ? granted_fraction(granted, runtime) : 1;
		s.quality += quality;
		s.degraded += quality < 1;
		if (frame >= step && !step_index)
			step_index = s.n;
		cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		decode((int64_t)(work_ms * factor * quality * NSEC_PER_MSEC));
		finish = clock_ns(CLOCK_MONOTONIC);
		s.grant[s.n] = granted * nthreads / buffer;
		s.used[s.n] = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
		s.frame[s.n] = frame;
		s.lat[s.n++] = finish - due;
		if (finish > due) {
			s.late++;
			s.step_late += frame >= step;
		} else {
			s.on_time++;
		}
next:
		if (!quiet && clock_ns(CLOCK_MONOTONIC) >= next_report) {
			char what[32];

			snprintf(what, sizeof(what), "t=%lds", ++sec);
			/* Percentiles of this second only; sorts them. */
			report(what, &s, mark);
			mark = s.n;
			next_report += NSEC_PER_SEC;
		}
	}
	report("total", &s, 0);
	if (deadline_policy && step_index)
		report_reservation(&s, step_index, period, buffer, work_step != 1);
	if (autotune) {
		struct dl_attr a;

		if (!dl_getattr(0, &a) && a.sched_policy == SCHED_DEADLINE)
			printf("vplay: learned runtime_ms %.3f (ceiling %.2f)\n",
			       (double)proc_sched_field(getpid(), "dl.elastic_runtime") /
			       NSEC_PER_MSEC,
			       (double)runtime / NSEC_PER_MSEC);
	}
	free(s.lat);
	free(s.grant);
	free(s.used);
	free(s.frame);
	return 0;
}

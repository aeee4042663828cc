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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "clock.h"
#include "dl.h"


#define FLAG_ELASTIC	0x80ULL
#define FLAG_AUTOTUNE	0x100ULL

struct stats {
	long frames, on_time, late, dropped;
	long degraded;		/* played below full quality */
	double quality;		/* sum over played frames, 1 = full */
	long n;			/* lateness samples in lat[] */
	int64_t *lat;		/* ns, finish - deadline, of frames played */
};

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
"  -W, --work-step=F    from the middle of the run on, F times the work\n"
"                       (0.1..10, default 1)\n"
"  -q, --quiet          only the summary\n"
"  -h, --help           show this help\n"
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

/* Burn @ns of this thread's CPU time. */
static void work(int64_t ns)
{
	int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

/*
 * What an elastic reservation grants now, as a fraction of @asked. Waiting
 * under SCHED_OTHER (nothing granted), the player does its best at full
 * quality, like any SCHED_OTHER player.
 */
static double granted_fraction(int64_t asked)
{
	struct dl_attr a;

	if (dl_getattr(0, &a) || a.sched_policy != SCHED_DEADLINE)
		return 1;
	return a.sched_runtime >= (uint64_t)asked ? 1 :
	       (double)a.sched_runtime / (double)asked;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
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
		{ "slice-ms",    required_argument, NULL, 'S' },
		{ "quiet",       no_argument,       NULL, 'q' },
		{ "help",        no_argument,       NULL, 'h' },
		{ }
	};
	double fps = 20, work_ms = 10, deadline_ms = 0, seconds = 5;
	double runtime_ms = 0, slice_ms = 0, work_step = 1;
	int deadline_policy = 0, elastic = 0, autotune = 0, quiet = 0, opt, ret;
	double quality;
	int64_t period, deadline, runtime, t0, release, finish, next_report;
	long frame, nframes, mark = 0, sec = 0;
	struct stats s = { 0 };

	while ((opt = getopt_long(argc, argv, "f:w:d:s:p:r:eaW:S:qh", longopts,
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
		case 'S':
			slice_ms = arg_double("--slice-ms", optarg, 0.1, 100);
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

	period = (int64_t)(NSEC_PER_SEC / fps);
	deadline = deadline_ms ? (int64_t)(deadline_ms * NSEC_PER_MSEC) : period;
	if (deadline > period)
		usage_error("--deadline-ms %.2f is longer than the frame period %.2f ms",
			    deadline_ms, (double)period / NSEC_PER_MSEC);
	if (work_ms * NSEC_PER_MSEC > deadline)
		usage_error("--work-ms %.2f does not fit in the deadline of %.2f ms",
			    work_ms, (double)deadline / NSEC_PER_MSEC);
	if (work_ms * work_step * NSEC_PER_MSEC > deadline)
		usage_error("--work-ms %.2f times --work-step %.2f does not fit in the deadline of %.2f ms",
			    work_ms, work_step, (double)deadline / NSEC_PER_MSEC);
	runtime = runtime_ms ? (int64_t)(runtime_ms * NSEC_PER_MSEC) :
		  autotune ? deadline : (int64_t)(work_ms * 1.25 * NSEC_PER_MSEC);
	if (runtime > deadline)
		runtime = deadline;
	if (!deadline_policy && runtime_ms)
		usage_error("--runtime-ms needs --policy=deadline");
	if (deadline_policy && slice_ms)
		usage_error("--slice-ms is for --policy=other");

	nframes = (long)(seconds * fps + 0.5);
	s.lat = calloc(nframes, sizeof(*s.lat));
	if (!s.lat) {
		perror("vplay: calloc");
		return 1;
	}
	if (deadline_policy) {
		ret = dl_set_deadline(0, runtime, deadline, period,
				      (elastic ? FLAG_ELASTIC : 0) |
				      (autotune ? FLAG_AUTOTUNE : 0));
		if (ret) {
			fprintf(stderr, "vplay: SCHED_DEADLINE runtime %.2f ms deadline %.2f ms period %.2f ms: %s%s\n",
				(double)runtime / NSEC_PER_MSEC,
				(double)deadline / NSEC_PER_MSEC,
				(double)period / NSEC_PER_MSEC, strerror(-ret),
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
	printf("vplay: fps %.0f work_ms %.2f deadline_ms %.2f policy %s runtime_ms %.2f frames %ld\n",
	       fps, work_ms, (double)deadline / NSEC_PER_MSEC,
	       autotune ? "autotune" : elastic ? "elastic" :
	       deadline_policy ? "deadline" : "other",
	       deadline_policy ? (double)runtime / NSEC_PER_MSEC : 0.0,
	       nframes);
	fflush(stdout);

	/*
	 * Start the first frame with a fresh budget: a deadline task that
	 * yields is throttled until its next period.
	 */
	if (deadline_policy)
		sched_yield();
	t0 = clock_ns(CLOCK_MONOTONIC);
	next_report = t0 + NSEC_PER_SEC;
	for (frame = 0; frame < nframes; frame++) {
		release = t0 + frame * period;
		sleep_until(release);
		s.frames++;
		if (clock_ns(CLOCK_MONOTONIC) > release + deadline) {
			s.dropped++;
		} else {
			quality = elastic && !autotune ? granted_fraction(runtime) : 1;
			s.quality += quality;
			s.degraded += quality < 1;
			work((int64_t)(work_ms * (frame < nframes / 2 ? 1 : work_step) *
				       quality * NSEC_PER_MSEC));
			finish = clock_ns(CLOCK_MONOTONIC);
			s.lat[s.n++] = finish - (release + deadline);
			if (finish > release + deadline)
				s.late++;
			else
				s.on_time++;
		}
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
	if (autotune) {
		struct dl_attr a;

		if (!dl_getattr(0, &a) && a.sched_policy == SCHED_DEADLINE)
			printf("vplay: learned runtime_ms %.3f (ceiling %.2f)\n",
			       (double)a.sched_runtime / NSEC_PER_MSEC,
			       (double)runtime / NSEC_PER_MSEC);
	}
	free(s.lat);
	return 0;
}

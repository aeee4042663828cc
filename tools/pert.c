// SPDX-License-Identifier: GPL-2.0
/*
 * pert - measure how much of a CPU this process actually gets.
 *
 * A fresh take on the 2010 "100% hog overhead measurement" program: spin
 * reading CLOCK_MONOTONIC. Consecutive reads are normally a few tens of
 * nanoseconds apart; a larger gap means the CPU was taken away from us
 * (an interrupt, or another task ran). Summing those gaps per interval
 * gives the fraction of the CPU we lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "clock.h"


/* Perturbations this many times the interval mean count as "long". */
#define LONG_PERT_FACTOR	2.5

struct interval {
	uint64_t *gaps;		/* every perturbation, in ns */
	size_t nr;
	size_t alloc;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	printf(
"Usage: pert [options]\n"
"Busy-loop reading CLOCK_MONOTONIC and report how often, and for how long,\n"
"the CPU was taken away (a gap between two reads above the threshold).\n"
"\n"
"  -t, --threshold-us=US   gap that counts as a perturbation (default 1.0,\n"
"                          0.001..1000000)\n"
"  -i, --interval-ms=MS    report interval (default 1000, 10..60000)\n"
"  -s, --seconds=N         stop after N seconds of measuring (default 0 =\n"
"                          run until SIGINT/SIGTERM, 0..86400)\n"
"  -c, --cpu=N             pin to CPU N (must be in the allowed set)\n"
"  -q, --quiet             no per-interval lines, only the summary\n"
"  -h, --help              show this help\n"
"\n"
"Per interval (times in microseconds):\n"
"  pert/s: N >Tus: L min: A max: B avg: C sum/s: Sus overhead: P%%\n"
"  N  perturbations per second\n"
"  L  perturbations in the interval longer than T, where T is %.1f times\n"
"     the mean perturbation length of that interval\n"
"  A, B, C  shortest, longest and mean perturbation\n"
"  S  perturbation time per second; P = S as a share of the interval\n"
"On exit (also on SIGINT/SIGTERM):\n"
"  pert: total SECSs pert/s:N overhead:P%% max:USus\n",
	LONG_PERT_FACTOR);
}

static void record(struct interval *iv, uint64_t gap)
{
	if (iv->nr == iv->alloc) {
		size_t alloc = iv->alloc ? 2 * iv->alloc : 4096;
		uint64_t *gaps = realloc(iv->gaps, alloc * sizeof(*gaps));

		if (!gaps) {
			fprintf(stderr, "pert: realloc: %s\n", strerror(errno));
			exit(1);
		}
		iv->gaps = gaps;
		iv->alloc = alloc;
	}
	iv->gaps[iv->nr++] = gap;
	iv->sum += gap;
	if (!iv->min || gap < iv->min)
		iv->min = gap;
	if (gap > iv->max)
		iv->max = gap;
}

static void report(const struct interval *iv, uint64_t elapsed)
{
	double secs = (double)elapsed / NSEC_PER_SEC;
	double avg = 0, limit = 0;
	long nr_long = 0;
	size_t i;

	if (iv->nr) {
		avg = (double)iv->sum / iv->nr / NSEC_PER_USEC;
		limit = LONG_PERT_FACTOR * avg;
		for (i = 0; i < iv->nr; i++)
			if ((double)iv->gaps[i] / NSEC_PER_USEC > limit)
				nr_long++;
	}
	printf("pert/s: %8ld >%.2fus: %8ld min:%6.2f max:%8.2f avg:%7.2f "
	       "sum/s:%6.0fus overhead:%5.2f%%\n",
	       (long)(iv->nr / secs + 0.5), limit, nr_long,
	       (double)iv->min / NSEC_PER_USEC,
	       (double)iv->max / NSEC_PER_USEC, avg,
	       (double)iv->sum / NSEC_PER_USEC / secs,
	       100.0 * iv->sum / elapsed);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "threshold-us", required_argument, NULL, 't' },
		{ "interval-ms",  required_argument, NULL, 'i' },
		{ "seconds",      required_argument, NULL, 's' },
		{ "cpu",          required_argument, NULL, 'c' },
		{ "quiet",        no_argument,       NULL, 'q' },
		{ "help",         no_argument,       NULL, 'h' },
		{ }
	};
	struct interval iv = { };
	double threshold_us = 1.0;
	long interval_ms = 1000, seconds = 0;
	int cpu = -1, quiet = 0, opt;
	uint64_t threshold, interval, remaining;
	uint64_t total_time = 0, total_sum = 0, total_max = 0, total_nr = 0;
	struct sigaction sa = { .sa_handler = on_signal };

	while ((opt = getopt_long(argc, argv, "t:i:s:c:qh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 't':
			threshold_us = arg_double("--threshold-us", optarg,
						  0.001, 1e6);
			break;
		case 'i':
			interval_ms = arg_long("--interval-ms", optarg,
					       10, 60000);
			break;
		case 's':
			seconds = arg_long("--seconds", optarg, 0, 86400);
			break;
		case 'c':
			cpu = arg_cpu("--cpu", optarg);
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

	if (cpu >= 0 && pin_to_cpu(cpu)) {
		fprintf(stderr, "pert: sched_setaffinity(%d): %s\n", cpu,
			strerror(errno));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	threshold = threshold_us * NSEC_PER_USEC;
	interval = interval_ms * NSEC_PER_MSEC;
	remaining = seconds ? (uint64_t)seconds * NSEC_PER_SEC : UINT64_MAX;

	printf("# pert threshold %.3fus interval %ldms cpu ", threshold_us,
	       interval_ms);
	if (cpu < 0)
		printf("any\n");
	else
		printf("%d\n", cpu);
	fflush(stdout);

	while (!stop && remaining) {
		uint64_t len = interval < remaining ? interval : remaining;
		uint64_t start, prev, now, end;

		iv.nr = iv.sum = iv.min = iv.max = 0;
		/* Restart the clock here so printing is not a perturbation. */
		start = prev = clock_ns(CLOCK_MONOTONIC);
		end = start + len;
		do {
			now = clock_ns(CLOCK_MONOTONIC);
			if (now - prev > threshold)
				record(&iv, now - prev);
			prev = now;
		} while (now < end && !stop);

		total_time += now - start;
		total_sum += iv.sum;
		total_nr += iv.nr;
		if (iv.max > total_max)
			total_max = iv.max;
		if (seconds)
			remaining -= now - start < remaining ?
				     now - start : remaining;
		/* A line for a cut-short interval would skew a parser. */
		if (!quiet && !stop)
			report(&iv, now - start);
	}

	printf("pert: total %.2fs pert/s:%.1f overhead:%.2f%% max:%.2fus\n",
	       (double)total_time / NSEC_PER_SEC,
	       total_time ? (double)total_nr * NSEC_PER_SEC / total_time : 0,
	       total_time ? 100.0 * total_sum / total_time : 0,
	       (double)total_max / NSEC_PER_USEC);
	free(iv.gaps);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * spin - a stand-in for "make -j10": COUNT processes that only burn CPU.
 *
 * All of them are children of spin and share its session and controlling
 * terminal, which is what desksched groups by.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "proc.h"

#define MAX_COUNT	1024

static void usage(void)
{
	printf(
"Usage: spin [options]\n"
"Run COUNT busy-loop processes until the time is up or spin gets SIGINT,\n"
"SIGTERM or SIGHUP; then kill and reap them all.\n"
"\n"
"  -n, --count=COUNT   number of processes (default 1, 1..%d)\n"
"  -c, --cpu=N         pin them all to CPU N (must be in the allowed set)\n"
"  -s, --seconds=S     stop after S seconds (fractions allowed; default 0 =\n"
"                      forever, 0..86400)\n"
"  -h, --help          show this help\n"
"\n"
"Exit status: 0 when the time is up, 128+N when stopped by signal N.\n",
	MAX_COUNT);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count",   required_argument, NULL, 'n' },
		{ "cpu",     required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help",    no_argument,       NULL, 'h' },
		{ }
	};
	pid_t pids[MAX_COUNT];
	double seconds = 0;
	int count = 1, cpu = -1, opt, i, sig, ret = 0;
	sigset_t stop_set;

	while ((opt = getopt_long(argc, argv, "n:c:s:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			count = arg_long("--count", optarg, 1, MAX_COUNT);
			break;
		case 'c':
			cpu = arg_cpu("--cpu", optarg);
			break;
		case 's':
			seconds = arg_double("--seconds", optarg, 0, 86400);
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

	stop_signals_block(&stop_set);
	for (i = 0; i < count; i++) {
		pids[i] = hog_start(cpu);
		if (pids[i] < 0) {
			fprintf(stderr, "spin: fork: %s\n", strerror(errno));
			ret = 1;
			break;
		}
	}
	if (!ret) {
		sig = stop_signals_wait(&stop_set, seconds ? seconds : -1);
		if (sig)
			ret = 128 + sig;
	}
	while (i--)
		kill(pids[i], SIGKILL);
	reap_all();
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dlrun - run a command under SCHED_DEADLINE, as an ordinary user.
 *
 * Like chrt --deadline, plus the flags chrt does not know (elastic,
 * self-tuned, reclaim), times with units, and for each refusal the reason in the
 * terms of the desksched kernel and what the user can do about it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "dl.h"
#include "proc.h"

#define FLAG_RESET_ON_FORK	0x01ULL
#define FLAG_RECLAIM		0x02ULL
#define FLAG_ELASTIC		0x100ULL
#define FLAG_AUTOTUNE		0x200ULL

static void usage(void)
{
	printf(
"Usage: dlrun [options] -r RUNTIME -p PERIOD [-d DEADLINE] COMMAND [ARG]...\n"
"       dlrun [options] -r RUNTIME -p PERIOD [-d DEADLINE] --pid PID\n"
"       dlrun --auto [-r CEILING] -p PERIOD [-d DEADLINE] COMMAND [ARG]...\n"
"Run COMMAND (or change task PID) under SCHED_DEADLINE: RUNTIME of CPU\n"
"time every PERIOD, by DEADLINE after the period's start. Times are\n"
"nanoseconds, or take a unit: 500us, 2.5ms, 1s.\n"
"\n"
"  -r, --runtime=T      CPU time per period\n"
"  -p, --period=T       the period\n"
"  -d, --deadline=T     relative deadline (default: the period)\n"
"  -e, --elastic        SCHED_FLAG_DL_ELASTIC: never refused for lack of\n"
"                       bandwidth; the runtime granted may be smaller, and\n"
"                       follows what is free\n"
"  -a, --auto           --elastic with SCHED_FLAG_DL_AUTOTUNE: the kernel\n"
"                       learns the runtime from what each job uses; the\n"
"                       runtime (default: the deadline) is only a ceiling\n"
"  -c, --reclaim        SCHED_FLAG_RECLAIM: use idle bandwidth beyond the\n"
"                       runtime (privileged only)\n"
"  -R, --reset-on-fork  children start as SCHED_OTHER\n"
"  -P, --pid=PID        change task PID instead of running a command\n"
"  -v, --verbose        print what was granted on stderr\n"
"  -h, --help           show this help\n"
"\n"
"Exit status: that of COMMAND; 1 when the reservation was refused, 2 on\n"
"bad usage, 126/127 when COMMAND cannot be run/found.\n");
}

/* Nanoseconds from "123", "500us", "2.5ms" or "1s". */
static uint64_t arg_time(const char *opt, const char *s)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;
	unsigned int i;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		usage_error("%s: '%s' is not a time (like 500us, 2.5ms, 1s)", opt, s);
	errno = 0;
	v = strtod(s, &end);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			break;
	if (end == s || i == sizeof(units) / sizeof(units[0]) || isnan(v))
		usage_error("%s: '%s' is not a time (like 500us, 2.5ms, 1s)", opt, s);
	v *= units[i].ns;
	if (errno == ERANGE || v < 1 || v > 0x1p62)
		usage_error("%s: %s is out of range (1 ns .. 2^62 ns)", opt, s);
	return (uint64_t)v;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* Why the kernel said no, and what to do about it. */
static const char *advice(int err, uint64_t flags)
{
	switch (err) {
	case EBUSY:
		return flags & FLAG_ELASTIC ?
			"not enough bandwidth (an elastic request is only refused by a kernel without scaling)" :
			"not enough bandwidth left: your uid's share is listed in /proc/sched_deadline_users; "
			"ask for less, or use --elastic to get what is free";
	case EPERM:
		return "not allowed: unprivileged users need kernel.sched_deadline_user_bw_pct and "
		       "sched_deadline_unpriv_bw_pct above 0, a period of 1 ms or more and no --reclaim; "
		       "the task must also be allowed on every CPU of its root domain";
	case EINVAL:
		if (flags & FLAG_AUTOTUNE)
			return "invalid: ceiling <= deadline <= period, period within kernel.sched_deadline_period_{min,max}_us; "
			       "--auto needs a kernel with SCHED_FLAG_DL_AUTOTUNE";
		return flags & FLAG_ELASTIC ?
			"invalid: runtime <= deadline <= period, period within kernel.sched_deadline_period_{min,max}_us, "
			"runtime >= 1024 ns; --elastic needs a kernel with CONFIG_SCHED_DEADLINE_ELASTIC" :
			"invalid: runtime <= deadline <= period, period within kernel.sched_deadline_period_{min,max}_us, "
			"runtime >= 1024 ns";
	case ESRCH:
		return "no such task, or it is exiting";
	default:
		return "";
	}
}

static void report_grant(pid_t pid, uint64_t runtime)
{
	struct dl_attr a;
	int ret = dl_getattr(pid, &a);
	long long granted;

	if (ret) {
		fprintf(stderr, "dlrun: sched_getattr: %s\n", strerror(-ret));
		return;
	}
	if (a.sched_policy != SCHED_DEADLINE) {
		fprintf(stderr, "dlrun: waiting: less than the minimum grant is free, running as SCHED_OTHER until bandwidth returns\n");
		return;
	}
	/* sched_getattr() reads back the request; the grant is in /proc. */
	granted = proc_sched_field(pid ? pid : getpid(), "dl.elastic_granted");
	if (granted >= 0)
		a.sched_runtime = granted;
	if (a.sched_flags & FLAG_AUTOTUNE) {
		fprintf(stderr, "dlrun: granted runtime %.3f ms for now (ceiling %.3f ms, learned from the jobs: see dl.elastic_* in /proc/<pid>/sched), deadline %.3f ms, period %.3f ms\n",
			ms(a.sched_runtime), ms(runtime), ms(a.sched_deadline),
			ms(a.sched_period));
		return;
	}
	fprintf(stderr, "dlrun: granted runtime %.3f ms of %.3f ms asked (%.1f%%), deadline %.3f ms, period %.3f ms\n",
		ms(a.sched_runtime), ms(runtime),
		100.0 * (double)a.sched_runtime / (double)runtime,
		ms(a.sched_deadline), ms(a.sched_period));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "runtime",       required_argument, NULL, 'r' },
		{ "period",        required_argument, NULL, 'p' },
		{ "deadline",      required_argument, NULL, 'd' },
		{ "elastic",       no_argument,       NULL, 'e' },
		{ "auto",          no_argument,       NULL, 'a' },
		{ "reclaim",       no_argument,       NULL, 'c' },
		{ "reset-on-fork", no_argument,       NULL, 'R' },
		{ "pid",           required_argument, NULL, 'P' },
		{ "verbose",       no_argument,       NULL, 'v' },
		{ "help",          no_argument,       NULL, 'h' },
		{ }
	};
	uint64_t runtime = 0, period = 0, deadline = 0, flags = 0;
	int verbose = 0, opt, ret;
	pid_t pid = 0;
	struct dl_attr a = { .sched_policy = SCHED_DEADLINE };

	while ((opt = getopt_long(argc, argv, "+r:p:d:eacRP:vh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'r':
			runtime = arg_time("--runtime", optarg);
			break;
		case 'p':
			period = arg_time("--period", optarg);
			break;
		case 'd':
			deadline = arg_time("--deadline", optarg);
			break;
		case 'e':
			flags |= FLAG_ELASTIC;
			break;
		case 'a':
			flags |= FLAG_ELASTIC | FLAG_AUTOTUNE;
			break;
		case 'c':
			flags |= FLAG_RECLAIM;
			break;
		case 'R':
			flags |= FLAG_RESET_ON_FORK;
			break;
		case 'P':
			pid = arg_long("--pid", optarg, 1, INT32_MAX);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage_hint();
		}
	}
	if (!period)
		usage_error("--period is required");
	if (!runtime && !(flags & FLAG_AUTOTUNE))
		usage_error("--runtime is required (or --auto)");
	if (!deadline)
		deadline = period;
	if (!runtime)
		runtime = deadline;
	if (runtime > deadline || deadline > period)
		usage_error("need runtime <= deadline <= period (%.3f, %.3f, %.3f ms)",
			    ms(runtime), ms(deadline), ms(period));
	if (pid && optind < argc)
		usage_error("--pid and a command exclude each other");
	if (!pid && optind == argc)
		usage_error("no command to run (or --pid)");

	a.sched_flags = flags;
	a.sched_runtime = runtime;
	a.sched_deadline = deadline;
	a.sched_period = period;
	ret = dl_setattr(pid, &a);
	if (ret) {
		fprintf(stderr, "dlrun: SCHED_DEADLINE runtime %.3f ms deadline %.3f ms period %.3f ms%s: %s: %s\n",
			ms(runtime), ms(deadline), ms(period),
			flags & FLAG_AUTOTUNE ? " (self-tuned)" :
			flags & FLAG_ELASTIC ? " (elastic)" : "",
			strerror(-ret), advice(-ret, flags));
		return 1;
	}
	if (verbose)
		report_grant(pid, runtime);
	if (pid)
		return 0;
	execvp(argv[optind], argv + optind);
	ret = errno;
	fprintf(stderr, "dlrun: %s: %s\n", argv[optind], strerror(ret));
	return ret == ENOENT ? 127 : 126;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dlrun - run a command under SCHED_DEADLINE, as an ordinary user.
 *
 * Like chrt --deadline, plus the flags chrt does not know (elastic,
 * self-tuned, reclaim), times with units, and for each refusal the reason in the
 * terms of the desksched kernel and what the user can do about it.
 *
 * With --app, the reservation is the whole application's: COMMAND (or
 * process PID) moves into a new cpu cgroup beside dlrun's own, whose
 * cpu.dl.reserve all its threads and children share, as systemd-run
 * --scope makes a scope. dlrun stays until the cgroup is empty, then
 * removes it, which ends the reservation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
"       dlrun --app [--auto] [-r RUNTIME] -p PERIOD {COMMAND [ARG]... | --pid PID}\n"
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
"  -A, --app            one reservation for the whole application: its\n"
"                       threads and children, present and future, stay\n"
"                       SCHED_OTHER and share RUNTIME every PERIOD (a new\n"
"                       cgroup beside dlrun's, with cpu.dl.reserve; it\n"
"                       needs a delegated cgroup, such as a systemd user\n"
"                       scope); dlrun waits until they are all gone; with\n"
"                       --auto the group learns its runtime from what all\n"
"                       its tasks use each period, up to RUNTIME (default:\n"
"                       what your uid's cap leaves free)\n"
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

static const char *app_advice(int err)
{
	switch (err) {
	case EBUSY:
		return "not enough bandwidth left: your uid's share is listed in /proc/sched_deadline_users; ask for less";
	case EPERM:
		return "not allowed: unprivileged users need kernel.sched_deadline_user_bw_pct and "
		       "sched_deadline_unpriv_bw_pct above 0 and a period of 1 ms or more";
	case EACCES:
		return "the cgroup is not yours: run dlrun in a delegated cgroup, e.g. under systemd-run --user --scope";
	case ENOENT:
		return "no cpu.dl.reserve: the kernel lacks CONFIG_SCHED_DEADLINE_GROUP, or the cpu controller is off here";
	case EINVAL:
		return "invalid: runtime <= period, period within kernel.sched_deadline_period_{min,max}_us, runtime >= 1024 ns";
	default:
		return "";
	}
}

/* "/sys/fs/cgroup" + the cgroup v2 path of @pid, in @buf. */
static int cgroup_of(pid_t pid, char *buf, size_t len)
{
	char path[64], line[4096];
	FILE *f;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		ret = 0;
		if (snprintf(buf, len, "/sys/fs/cgroup%s",
			     strcmp(line + 3, "/") ? line + 3 : "") >= (int)len)
			ret = -ENAMETOOLONG;
	}
	fclose(f);
	return ret;
}

static int write_file(const char *dir, const char *name, const char *s)
{
	char path[4200];
	FILE *f;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(s, f) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* Whether cgroup @dir has no process left, from its cgroup.events. */
static int cgroup_empty(const char *dir)
{
	char path[4200], line[128];
	FILE *f;
	int empty = 1;

	if (snprintf(path, sizeof(path), "%s/cgroup.events", dir) >= (int)sizeof(path))
		return 1;
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, "populated 1\n"))
			empty = 0;
	fclose(f);
	return empty;
}

static pid_t app_child;

static void forward_signal(int sig)
{
	if (app_child > 0)
		kill(app_child, sig);
}

/*
 * The default ceiling of --app --auto: what the caller's uid may still
 * reserve every @period, from /proc/sched_deadline_users and the cap; the
 * whole period for a caller that is not charged.
 */
static uint64_t free_ceiling(uint64_t period)
{
	unsigned int uid;
	double held = 0, cap = -1, h, c;
	char line[128];
	FILE *f;

	if (geteuid() == 0)
		return period;
	f = fopen("/proc/sched_deadline_users", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %lf %lf", &uid, &h, &c) == 3 && uid == getuid()) {
			held = h;
			cap = c;
		}
	if (f)
		fclose(f);
	if (cap < 0) {
		f = fopen("/proc/sys/kernel/sched_deadline_user_bw_pct", "r");
		if (!f || fscanf(f, "%lf", &cap) != 1)
			cap = 0;
		if (f)
			fclose(f);
	}
	if (cap - held >= 100)
		return period;
	return cap > held ? (uint64_t)(period * (cap - held) / 100) : 0;
}

/*
 * --app: a new cgroup beside the one of @pid (0: dlrun's own) reserves
 * @runtime every @period for everything moved into it: the command
 * dlrun starts, or process @pid; with @autotune, @runtime is a ceiling.
 * Returns the exit status for main().
 */
static int run_app(pid_t pid, uint64_t runtime, uint64_t period, int autotune,
		   int verbose, char **argv)
{
	char cg[4096], app[4200], s[64], *slash;
	int ret, status = 0;

	ret = cgroup_of(pid ? pid : getpid(), cg, sizeof(cg));
	if (ret) {
		fprintf(stderr, "dlrun: no cgroup v2 path in /proc/%d/cgroup: %s\n",
			pid ? pid : getpid(), strerror(-ret));
		return 1;
	}
	/* Beside it: a cgroup with processes may not have children. */
	slash = strrchr(cg, '/');
	if (strcmp(cg, "/sys/fs/cgroup"))
		*slash = '\0';
	if (snprintf(app, sizeof(app), "%s/dlrun-%d", cg, getpid()) >= (int)sizeof(app)) {
		fprintf(stderr, "dlrun: --app: cgroup path too long\n");
		return 1;
	}
	if (mkdir(app, 0755)) {
		ret = errno;
		fprintf(stderr, "dlrun: --app: cannot create cgroup %s: %s: %s\n",
			app, strerror(ret), app_advice(ret == EROFS ? EACCES : ret));
		return 1;
	}
	snprintf(s, sizeof(s), "%llu %llu%s\n", (unsigned long long)(runtime / 1000),
		 (unsigned long long)(period / 1000), autotune ? " auto" : "");
	ret = write_file(app, "cpu.dl.reserve", s);
	if (ret) {
		fprintf(stderr, "dlrun: --app: %s %.3f ms period %.3f ms for %s: %s: %s\n",
			autotune ? "self-tuned, ceiling" : "runtime",
			ms(runtime), ms(period), app, strerror(-ret), app_advice(-ret));
		rmdir(app);
		return 1;
	}
	if (verbose)
		fprintf(stderr, "dlrun: reserved %.3f ms every %.3f ms%s for all threads and children in %s\n",
			ms(runtime), ms(period),
			autotune ? " to start with, learned from their use from now on," : "",
			app);

	if (pid) {
		snprintf(s, sizeof(s), "%d\n", pid);
		ret = write_file(app, "cgroup.procs", s);
		if (ret) {
			fprintf(stderr, "dlrun: --app: cannot move %d into %s: %s\n",
				pid, app, strerror(-ret));
			rmdir(app);
			return 1;
		}
	} else {
		app_child = fork();
		if (app_child < 0) {
			perror("dlrun: fork");
			rmdir(app);
			return 1;
		}
		if (!app_child) {
			snprintf(s, sizeof(s), "%d\n", getpid());
			ret = write_file(app, "cgroup.procs", s);
			if (ret) {
				fprintf(stderr, "dlrun: --app: cannot move into %s: %s\n",
					app, strerror(-ret));
				_exit(126);
			}
			execvp(argv[0], argv);
			ret = errno;
			fprintf(stderr, "dlrun: %s: %s\n", argv[0], strerror(ret));
			_exit(ret == ENOENT ? 127 : 126);
		}
		/* The terminal's signals reach COMMAND; these are passed on. */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGTERM, forward_signal);
		signal(SIGHUP, forward_signal);
		while (waitpid(app_child, &status, 0) < 0 && errno == EINTR)
			;
	}
	/* What COMMAND left running keeps the reservation until it ends. */
	while (!cgroup_empty(app))
		usleep(100000);
	if (rmdir(app))
		fprintf(stderr, "dlrun: cannot remove %s: %s\n", app, strerror(errno));
	if (pid)
		return 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
		{ "app",           no_argument,       NULL, 'A' },
		{ "pid",           required_argument, NULL, 'P' },
		{ "verbose",       no_argument,       NULL, 'v' },
		{ "help",          no_argument,       NULL, 'h' },
		{ }
	};
	uint64_t runtime = 0, period = 0, deadline = 0, flags = 0;
	int verbose = 0, app = 0, opt, ret;
	pid_t pid = 0;
	struct dl_attr a = { .sched_policy = SCHED_DEADLINE };

	while ((opt = getopt_long(argc, argv, "+r:p:d:eacRAP:vh", longopts,
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
		case 'A':
			app = 1;
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
	if (!runtime && app) {
		runtime = free_ceiling(period);
		if (runtime < 1024)
			usage_error("--app --auto: your uid has no bandwidth left (see /proc/sched_deadline_users)");
	}
	if (!runtime)
		runtime = deadline;
	if (runtime > deadline || deadline > period)
		usage_error("need runtime <= deadline <= period (%.3f, %.3f, %.3f ms)",
			    ms(runtime), ms(deadline), ms(period));
	if (pid && optind < argc)
		usage_error("--pid and a command exclude each other");
	if (!pid && optind == argc)
		usage_error("no command to run (or --pid)");
	if (app) {
		if (flags & ~(FLAG_ELASTIC | FLAG_AUTOTUNE) ||
		    (flags & FLAG_ELASTIC && !(flags & FLAG_AUTOTUNE)))
			usage_error("--app takes --auto, but no --elastic, --reclaim or --reset-on-fork");
		if (deadline != period)
			usage_error("--app: the deadline is the period");
		return run_app(pid, runtime, period, !!(flags & FLAG_AUTOTUNE),
			       verbose, argv + optind);
	}

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

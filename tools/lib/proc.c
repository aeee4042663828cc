// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "proc.h"

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGNALS	(sizeof(stop_signals) / sizeof(stop_signals[0]))

/*
 * Undo what a forked child inherited from a parent that blocks the stop
 * signals, and make sure the child cannot outlive @parent even if the
 * parent is SIGKILLed before it gets to clean up.
 */
void child_reset(pid_t parent)
{
	sigset_t none;
	size_t i;

	for (i = 0; i < NR_STOP_SIGNALS; i++)
		signal(stop_signals[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The parent may have died before prctl() took effect. */
	if (getppid() != parent)
		_exit(1);
}

/*
 * Fork a child that burns CPU until it is killed, pinned to @cpu
 * unless @cpu is negative. Returns the child's pid, or -1 on error.
 */
pid_t hog_start(int cpu)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid)
		return pid;
	child_reset(parent);
	if (cpu >= 0 && pin_to_cpu(cpu)) {
		fprintf(stderr, "%s: hog %d: sched_setaffinity(%d): %s\n",
			program_invocation_short_name, getpid(), cpu,
			strerror(errno));
		_exit(1);
	}
	for (;;)
		;
}

/*
 * Block SIGINT, SIGTERM and SIGHUP so that they are only ever taken by
 * stop_signals_wait(): the tools then never die between forking
 * children and killing them.
 */
void stop_signals_block(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaddset(set, stop_signals[i]);
	sigprocmask(SIG_BLOCK, set, NULL);
}

/*
 * Wait up to @seconds (forever if @seconds < 0, just poll if it is 0)
 * for one of the blocked stop signals. Returns the signal number, or 0
 * on timeout. The deadline is absolute so that a stray EINTR does not
 * extend it.
 */
int stop_signals_wait(const sigset_t *set, double seconds)
{
	struct timespec now, end, left;
	int sig;

	if (seconds < 0) {
		do
			sig = sigwaitinfo(set, NULL);
		while (sig < 0 && errno == EINTR);
		return sig < 0 ? 0 : sig;
	}

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	end.tv_nsec += (long)((seconds - (time_t)seconds) * 1e9);
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000;
		}
		if (left.tv_sec < 0)
			left.tv_sec = left.tv_nsec = 0;
		sig = sigtimedwait(set, NULL, &left);
		if (sig > 0)
			return sig;
		if (errno != EINTR)
			return 0;
	}
}

void reap_all(void)
{
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/* A "name : value" line of /proc/<pid>/sched; -1 if absent. */
long long proc_sched_field(pid_t pid, const char *name)
{
	char path[64], line[256];
	long long v = -1;
	size_t len = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ' &&
		    sscanf(strchr(line, ':') + 1, "%lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

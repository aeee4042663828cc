// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dltest.h"
#include "ttytest.h"

int dt_setattr(pid_t pid, int policy, uint64_t runtime, uint64_t deadline,
	       uint64_t period, uint64_t flags)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = policy,
		.sched_flags = flags,
		.sched_runtime = runtime,
		.sched_deadline = deadline,
		.sched_period = period,
	};

	return syscall(SYS_sched_setattr, pid, &attr, 0) ? -errno : 0;
}

int dt_set_dl(pid_t pid, uint64_t runtime, uint64_t period, uint64_t flags)
{
	return dt_setattr(pid, SCHED_DEADLINE, runtime, period, period, flags);
}

int dt_set_other(pid_t pid)
{
	return dt_setattr(pid, SCHED_OTHER, 0, 0, 0, 0);
}

int dt_getattr(pid_t pid, struct sched_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return syscall(SYS_sched_getattr, pid, attr, sizeof(*attr), 0) ?
	       -errno : 0;
}

int dt_policy(pid_t pid)
{
	struct sched_attr attr;
	int ret = dt_getattr(pid, &attr);

	return ret ? ret : (int)attr.sched_policy;
}

uint64_t dt_bw(uint64_t runtime, uint64_t period)
{
	return (runtime << 20) / period;
}

unsigned int dt_hundredths(uint64_t bw)
{
	return (bw * 10000 + (1ULL << 19)) >> 20;
}

long dt_knob_get(const char *path)
{
	char buf[64], *end;
	ssize_t n = tt_read_file(path, buf, sizeof(buf));
	long v;

	if (n < 0)
		return n;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return v;
}

int dt_knob_write(const char *path, const char *s)
{
	return tt_write_file(path, s, strlen(s));
}

int dt_knob_set(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return dt_knob_write(path, buf);
}

/* "1000 5.00 30.00" -> hundredths */
static int parse_pct(const char *s, unsigned int *out)
{
	unsigned int whole, frac;
	char dot;

	if (sscanf(s, "%u%c%2u", &whole, &dot, &frac) != 3 || dot != '.')
		return -EINVAL;
	*out = whole * 100 + frac;
	return 0;
}

int dt_rebuild_domains(long rt_runtime, long lower_us)
{
	int ret = dt_knob_set(DT_RT_RUNTIME, rt_runtime - lower_us);
	int back = dt_knob_set(DT_RT_RUNTIME, rt_runtime);

	return ret ?: back;
}

int dt_user(unsigned int uid, unsigned int *reserved, unsigned int *cap)
{
	char buf[4096], res[32], capb[32], *line, *save = NULL;
	ssize_t n = tt_read_file(DT_USERS, buf, sizeof(buf));
	unsigned int u;

	if (n < 0)
		return n;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%u %31s %31s", &u, res, capb) != 3)
			return -EINVAL;
		if (u != uid)
			continue;
		if (parse_pct(res, reserved) || parse_pct(capb, cap))
			return -EINVAL;
		return 1;
	}
	return 0;
}

int dt_users_count(void)
{
	char buf[4096];
	ssize_t n = tt_read_file(DT_USERS, buf, sizeof(buf));
	int lines = 0;
	char *p;

	if (n < 0)
		return n;
	for (p = buf; *p; p++)
		lines += *p == '\n';
	return lines;
}

int dt_users_wait_empty(double seconds)
{
	double end = mono_seconds() + seconds;
	int n;

	while ((n = dt_users_count()) != 0 && mono_seconds() < end)
		tt_sleep(0.05);
	return n;
}

static int64_t read_total_bw(void)
{
	static char buf[1 << 17];
	ssize_t n = tt_read_file(TT_SCHED_DEBUG, buf, sizeof(buf));
	char *p;

	if (n <= 0)
		return -1;
	p = strstr(buf, ".dl_bw->total_bw");
	if (!p || !(p = strchr(p, ':')))
		return -1;
	return strtoll(p + 1, NULL, 10);
}

int64_t dt_total_bw(void)
{
	int64_t a, b = read_total_bw();
	int i;

	for (i = 0; i < 20; i++) {
		a = b;
		b = read_total_bw();
		if (a == b)
			return a;
		tt_sleep(0.02);
	}
	return b;
}

int64_t dt_total_bw_wait(int64_t want, double seconds)
{
	double end = mono_seconds() + seconds;
	int64_t v;

	while ((v = dt_total_bw()) != want && mono_seconds() < end)
		tt_sleep(0.05);
	return v;
}

int dt_setup(struct dt_state *st, char *err, size_t errlen)
{
	st->user_pct = dt_knob_get(DT_USER_PCT);
	st->unpriv_pct = dt_knob_get(DT_UNPRIV_PCT);
	st->rt_runtime = dt_knob_get(DT_RT_RUNTIME);
	if (st->user_pct < 0 || st->unpriv_pct < 0 || st->rt_runtime < -1) {
		snprintf(err, errlen, "cannot read %s or %s (kernel without CONFIG_SCHED_DEADLINE_USER?)",
			 DT_USER_PCT, DT_UNPRIV_PCT);
		return -1;
	}
	if (dt_users_wait_empty(2)) {
		snprintf(err, errlen, "%s is not empty before the test", DT_USERS);
		return -1;
	}
	st->base_total_bw = dt_total_bw();
	if (st->base_total_bw < 0) {
		/* Negative: an earlier test left the accounting broken. */
		snprintf(err, errlen, "dl_bw->total_bw in %s missing or negative (%lld)",
			 TT_SCHED_DEBUG, (long long)st->base_total_bw);
		return -1;
	}
	return 0;
}

int dt_teardown(struct dt_state *st, char *err, size_t errlen)
{
	int64_t bw;
	int n, ret = 0;

	if (dt_knob_get(DT_USER_PCT) != st->user_pct)
		ret |= dt_knob_set(DT_USER_PCT, st->user_pct);
	if (dt_knob_get(DT_UNPRIV_PCT) != st->unpriv_pct)
		ret |= dt_knob_set(DT_UNPRIV_PCT, st->unpriv_pct);
	if (dt_knob_get(DT_RT_RUNTIME) != st->rt_runtime)
		ret |= dt_knob_set(DT_RT_RUNTIME, st->rt_runtime);
	if (ret) {
		snprintf(err, errlen, "cannot restore the deadline knobs");
		return -1;
	}
	/* Released bandwidth returns at the 0-lag time: allow for it. */
	n = dt_users_wait_empty(5);
	if (n) {
		snprintf(err, errlen, "%d uids still hold bandwidth in %s", n,
			 DT_USERS);
		return -1;
	}
	bw = dt_total_bw_wait(st->base_total_bw, 5);
	if (bw != st->base_total_bw) {
		snprintf(err, errlen, "total_bw %" PRId64 " after the test, %" PRId64 " before",
			 bw, st->base_total_bw);
		return -1;
	}
	return 0;
}

pid_t dt_fifo_hog(int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (;;)
			;
	}
	if (pid > 0 && sched_setscheduler(pid, SCHED_FIFO, &sp)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

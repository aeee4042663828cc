// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dl.h"

int dl_setattr(pid_t pid, const struct dl_attr *attr)
{
	struct dl_attr a = *attr;

	a.size = sizeof(a);
	return syscall(SYS_sched_setattr, pid, &a, 0) ? -errno : 0;
}

int dl_getattr(pid_t pid, struct dl_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return syscall(SYS_sched_getattr, pid, attr, sizeof(*attr), 0) ?
	       -errno : 0;
}

int dl_set_deadline(pid_t pid, uint64_t runtime, uint64_t deadline,
		    uint64_t period, uint64_t flags)
{
	struct dl_attr a = {
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = flags,
		.sched_runtime = runtime,
		.sched_deadline = deadline,
		.sched_period = period,
	};

	return dl_setattr(pid, &a);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_setattr(2)/sched_getattr(2) for the desksched tools. glibc 2.36
 * has no wrappers, and the uapi header of older distributions clashes with
 * glibc's struct sched_param, so the layout (SCHED_ATTR_SIZE_VER1) is
 * spelled out here.
 */
#ifndef DESKSCHED_DL_H
#define DESKSCHED_DL_H

#include <stdint.h>
#include <sys/types.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

struct dl_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t  sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

/* 0 or -errno */
int dl_setattr(pid_t pid, const struct dl_attr *attr);
int dl_getattr(pid_t pid, struct dl_attr *attr);
/* SCHED_DEADLINE for @pid (0: self), times in ns. 0 or -errno. */
int dl_set_deadline(pid_t pid, uint64_t runtime, uint64_t deadline,
		    uint64_t period, uint64_t flags);

#endif

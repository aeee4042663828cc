/* SPDX-License-Identifier: GPL-2.0 */
/* Clock readings in nanoseconds, shared by the tools that time things. */
#ifndef DESKSCHED_CLOCK_H
#define DESKSCHED_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_USEC	1000LL
#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL

int64_t clock_ns(clockid_t clk);

/* CLOCK_MONOTONIC, in seconds, for loops that run for a given time. */
double mono_seconds(void);

#endif

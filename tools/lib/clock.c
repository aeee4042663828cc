// SPDX-License-Identifier: GPL-2.0
#include "clock.h"

int64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

double mono_seconds(void)
{
	return (double)clock_ns(CLOCK_MONOTONIC) / NSEC_PER_SEC;
}

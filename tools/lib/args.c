// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

/* For errors getopt_long() has already described. */
void usage_hint(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n",
		program_invocation_short_name);
	exit(EXIT_USAGE);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_hint();
}

/*
 * strtol()/strtod() silently skip leading white space and accept an
 * empty string as 0; neither is something a user means on purpose.
 */
static void check_not_blank(const char *opt, const char *s)
{
	if (!*s)
		usage_error("%s: empty value", opt);
	if (isspace((unsigned char)*s))
		usage_error("%s: '%s' has leading white space", opt, s);
}

long arg_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	check_not_blank(opt, s);
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		usage_error("%s: '%s' is not an integer (allowed %ld..%ld)",
			    opt, s, min, max);
	if (errno == ERANGE || v < min || v > max)
		usage_error("%s: %s is out of range (allowed %ld..%ld)",
			    opt, s, min, max);
	return v;
}

double arg_double(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	check_not_blank(opt, s);
	errno = 0;
	v = strtod(s, &end);
	if (*end || isnan(v))
		usage_error("%s: '%s' is not a number (allowed %g..%g)",
			    opt, s, min, max);
	if (errno == ERANGE || v < min || v > max)
		usage_error("%s: %s is out of range (allowed %g..%g)",
			    opt, s, min, max);
	return v;
}

/*
 * Reject a CPU outside our affinity mask up front, as a usage error:
 * otherwise the failure would only show up later in a forked child.
 */
int arg_cpu(const char *opt, const char *s)
{
	int cpu = arg_long(opt, s, 0, CPU_SETSIZE - 1);
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		usage_error("%s: sched_getaffinity: %s", opt, strerror(errno));
	if (!CPU_ISSET(cpu, &set))
		usage_error("%s: CPU %d is not in this process's allowed set",
			    opt, cpu);
	return cpu;
}

int first_allowed_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command line helpers shared by the desksched tools.
 *
 * Every numeric option goes through these so that all tools reject bad
 * input the same way: a message on stderr naming the option and the
 * allowed range, and exit status 2.
 */
#ifndef DESKSCHED_ARGS_H
#define DESKSCHED_ARGS_H

#define EXIT_USAGE	2

void usage_hint(void) __attribute__((noreturn));
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
long arg_long(const char *opt, const char *s, long min, long max);
double arg_double(const char *opt, const char *s, double min, double max);
int arg_cpu(const char *opt, const char *s);
int first_allowed_cpu(void);
int pin_to_cpu(int cpu);

#endif

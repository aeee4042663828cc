/* SPDX-License-Identifier: GPL-2.0 */
/* Child process handling shared by the tools that fork CPU hogs. */
#ifndef DESKSCHED_PROC_H
#define DESKSCHED_PROC_H

#include <signal.h>
#include <sys/types.h>

void child_reset(pid_t parent);
pid_t hog_start(int cpu);
void stop_signals_block(sigset_t *set);
int stop_signals_wait(const sigset_t *set, double seconds);
void reap_all(void);

/* A "name : value" line of /proc/<pid>/sched; -1 if absent. */
long long proc_sched_field(pid_t pid, const char *name);

#endif

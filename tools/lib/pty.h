/* SPDX-License-Identifier: GPL-2.0 */
/* Pseudo-terminal setup shared by ptyrun and ttyshare. */
#ifndef DESKSCHED_PTY_H
#define DESKSCHED_PTY_H

#include <stddef.h>

int pty_open(char *slave, size_t len);
int pty_attach(const char *slave);

#endif

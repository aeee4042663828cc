// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pty.h"

/*
 * Open a new pty master and return its fd, with the slave's path in
 * @slave. O_NOCTTY keeps the caller's own controlling terminal as it
 * is; O_CLOEXEC keeps the master out of the commands we run.
 */
int pty_open(char *slave, size_t len)
{
	int fd, err;

	fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (grantpt(fd) || unlockpt(fd) || ptsname_r(fd, slave, len)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/*
 * In a freshly forked child: become a session leader and make @slave
 * the controlling terminal of the new session. Opening the slave
 * without O_NOCTTY already does that on Linux; TIOCSCTTY makes the
 * intent explicit and fails loudly if it did not happen.
 */
int pty_attach(const char *slave)
{
	int fd;

	if (setsid() < 0)
		return -1;
	fd = open(slave, O_RDWR);
	if (fd < 0)
		return -1;
	if (ioctl(fd, TIOCSCTTY, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

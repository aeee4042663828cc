// SPDX-License-Identifier: GPL-2.0
/*
 * ptyrun - run a command in a new session on a fresh pseudo-terminal.
 *
 * desksched groups tasks by controlling terminal, so a test needs a
 * way to start a command "in its own terminal" without a terminal
 * emulator. ptyrun is that terminal: it relays what the command prints
 * to stdout and passes its exit status back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "clock.h"
#include "pty.h"

/* Bound one relay pass so a chatty terminal cannot starve signals. */
#define RELAY_READS	64

static const char *prefix;
static int at_line_start = 1;
static int stdout_broken;

static void usage(void)
{
	printf(
"Usage: ptyrun [options] [--] CMD [ARGS...]\n"
"Run CMD as the leader of a new session whose controlling terminal is a\n"
"fresh pseudo-terminal, copy everything the terminal prints to stdout and\n"
"exit with CMD's exit status (128+N if it was killed by signal N).\n"
"\n"
"  -p, --prefix=STR      put STR at the start of every output line\n"
"  -l, --linger-ms=MS    after CMD exits, keep relaying output of its\n"
"                        descendants for at most MS milliseconds, then\n"
"                        hang up the terminal (default 200, 0..60000)\n"
"  -t, --print-tty       print 'ptyrun: tty PATH pid PID' on stderr\n"
"  -h, --help            show this help\n"
"\n"
"The terminal does not echo and does not turn \\n into \\r\\n, so stdout\n"
"carries exactly what CMD wrote. Input is not forwarded. SIGINT, SIGTERM\n"
"and SIGHUP are forwarded to CMD's process group.\n");
}

static void emit(const char *buf, size_t len)
{
	if (stdout_broken)
		return;
	if (fwrite(buf, 1, len, stdout) != len) {
		fprintf(stderr, "ptyrun: write to stdout: %s\n",
			strerror(errno));
		stdout_broken = 1;
	}
}

static void relay_chunk(const char *buf, size_t len)
{
	const char *nl;

	if (!prefix) {
		emit(buf, len);
		return;
	}
	while (len) {
		size_t part;

		if (at_line_start)
			emit(prefix, strlen(prefix));
		nl = memchr(buf, '\n', len);
		part = nl ? (size_t)(nl - buf) + 1 : len;
		emit(buf, part);
		at_line_start = !!nl;
		buf += part;
		len -= part;
	}
}

/*
 * Copy what the terminal has printed so far. Returns -1 once no slave
 * fd is open any more (read() fails with EIO on a Linux pty master).
 */
static int relay(int master)
{
	char buf[4096];
	ssize_t n;
	int i;

	for (i = 0; i < RELAY_READS; i++) {
		n = read(master, buf, sizeof(buf));
		if (n > 0) {
			relay_chunk(buf, n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0 && errno != EIO)
			fprintf(stderr, "ptyrun: read from pty: %s\n",
				strerror(errno));
		fflush(stdout);
		return -1;
	}
	if (fflush(stdout) && !stdout_broken) {
		fprintf(stderr, "ptyrun: write to stdout: %s\n",
			strerror(errno));
		stdout_broken = 1;
	}
	return 0;
}

static void __attribute__((noreturn))
run_child(const char *slave, int print_tty, const sigset_t *oldmask,
	  char **cmd)
{
	int fd = pty_attach(slave);

	if (fd < 0) {
		fprintf(stderr, "ptyrun: attach %s: %s\n", slave,
			strerror(errno));
		_exit(127);
	}
	if (print_tty)
		fprintf(stderr, "ptyrun: tty %s pid %d\n", slave, getpid());
	if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
		fprintf(stderr, "ptyrun: dup2: %s\n", strerror(errno));
		_exit(127);
	}
	if (fd > 2)
		close(fd);
	/* The parent's SIG_IGN for SIGPIPE would survive exec. */
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	execvp(cmd[0], cmd);
	/* stderr is the pty now, so this reaches the parent's stdout. */
	fprintf(stderr, "ptyrun: exec %s: %s\n", cmd[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "prefix",    required_argument, NULL, 'p' },
		{ "linger-ms", required_argument, NULL, 'l' },
		{ "print-tty", no_argument,       NULL, 't' },
		{ "help",      no_argument,       NULL, 'h' },
		{ }
	};
	char slave[128];
	long linger_ms = 200, deadline = 0;
	int print_tty = 0, opt, master, slave_fd, sfd, status = 0;
	int child_done = 0;
	sigset_t mask, oldmask;
	struct termios tio;
	pid_t pid;

	/* '+': options after CMD belong to CMD. */
	while ((opt = getopt_long(argc, argv, "+p:l:th", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'p':
			prefix = optarg;
			break;
		case 'l':
			linger_ms = arg_long("--linger-ms", optarg, 0, 60000);
			break;
		case 't':
			print_tty = 1;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage_hint();
		}
	}
	if (optind >= argc)
		usage_error("no command given");

	master = pty_open(slave, sizeof(slave));
	if (master < 0) {
		fprintf(stderr, "ptyrun: open pty: %s\n", strerror(errno));
		return 1;
	}
	/*
	 * Hold a slave fd of our own while CMD runs: until it is closed, the
	 * master never reports EIO, whatever order CMD opens and closes the
	 * slave in. Closing it after CMD has exited turns EIO into "no
	 * descendant holds the terminal any more".
	 */
	slave_fd = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave_fd < 0 || tcgetattr(slave_fd, &tio)) {
		fprintf(stderr, "ptyrun: %s: %s\n", slave, strerror(errno));
		return 1;
	}
	tio.c_lflag &= ~(ECHO | ECHONL);
	tio.c_oflag &= ~ONLCR;
	if (tcsetattr(slave_fd, TCSANOW, &tio)) {
		fprintf(stderr, "ptyrun: tcsetattr %s: %s\n", slave,
			strerror(errno));
		return 1;
	}
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "ptyrun: signalfd: %s\n", strerror(errno));
		return 1;
	}

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ptyrun: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid)
		run_child(slave, print_tty, &oldmask, argv + optind);

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = master, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int timeout = -1;

		if (child_done) {
			timeout = deadline - clock_ns(CLOCK_MONOTONIC) / NSEC_PER_MSEC;
			if (timeout <= 0)
				break;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR) {
			fprintf(stderr, "ptyrun: poll: %s\n", strerror(errno));
			break;
		}
		if (pfd[0].revents && relay(master) < 0)
			break;
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo != SIGCHLD) {
				/* CMD may not have called setsid() yet. */
				if (kill(-pid, si.ssi_signo))
					kill(pid, si.ssi_signo);
				continue;
			}
			if (child_done ||
			    waitpid(pid, &status, WNOHANG) != pid)
				continue;
			child_done = 1;
			close(slave_fd);
			deadline = clock_ns(CLOCK_MONOTONIC) / NSEC_PER_MSEC + linger_ms;
		}
	}
	/* Output the leader wrote just before exiting may still be queued. */
	relay(master);
	close(master);

	if (!child_done) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

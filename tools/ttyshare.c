// SPDX-License-Identifier: GPL-2.0
/*
 * ttyshare - measure how one CPU is shared between terminals.
 *
 * Each terminal is a new session (with a fresh pty as its controlling
 * terminal unless --no-ctty, or for the last sessions with --detached)
 * whose leader forks the requested number of CPU hogs, all pinned to one
 * CPU. Without desksched every hog gets the
 * same share, so a terminal's share grows with its hog count; with
 * desksched every terminal gets the same share however many hogs it
 * runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "proc.h"
#include "pty.h"

#define MAX_TERMINALS	64
#define MAX_HOGS	256
#define TTYGROUP_FILE	"/proc/self/ttygroup"

struct hog {
	pid_t pid;
	clockid_t clock;
	int has_clock;		/* else fall back to /proc/PID/stat */
	double start_ns;
	double ns;
};

struct terminal {
	int nr_hogs;
	int master;		/* -1 with --no-ctty */
	pid_t leader;
	struct hog hogs[MAX_HOGS];
};

static struct terminal terms[MAX_TERMINALS];
static int nr_terms;

static void usage(void)
{
	printf(
"Usage: ttyshare --hogs LIST [options]\n"
"Start one terminal (new session, fresh pty as controlling terminal) per\n"
"entry of LIST, each running that many CPU hogs pinned to one CPU, and\n"
"report how the CPU time was shared between the terminals.\n"
"\n"
"  -H, --hogs=LIST       comma-separated hog counts, one per terminal;\n"
"                        NxM means M terminals of N hogs (1,10x7 = one\n"
"                        terminal of 1 then seven of 10); 1..%d terminals\n"
"                        of 1..%d hogs\n"
"  -s, --seconds=S       measuring time (default 3, fractions allowed,\n"
"                        0.1..3600)\n"
"  -c, --cpu=N           CPU for all hogs (default: first allowed CPU)\n"
"      --no-ctty         new sessions without a controlling terminal\n"
"  -d, --detached=N      only the last N sessions without one, as jobs\n"
"                        started with setsid (0..the number of terminals)\n"
"  -n, --nice=N          terminal 0 writes N to " TTYGROUP_FILE "\n"
"                        before starting its hogs (-20..19)\n"
"  -S, --settle-ms=MS    wait before measuring (default 300, 0..60000)\n"
"  -p, --pids            print 'terminal K pid P' for every hog\n"
"  -h, --help            show this help\n"
"\n"
"Output:\n"
"  terminal K hogs N cpu_ms MS share F     (one line per terminal)\n"
"  first_hog_share F\n"
"share is the terminal's part of the CPU time of all hogs;\n"
"first_hog_share is one hog of terminal 0: its share / its hog count.\n",
	MAX_TERMINALS, MAX_HOGS);
}

static void add_terminals(const char *item)
{
	char buf[64], *x;
	long hogs, repeat = 1;

	if (strlen(item) >= sizeof(buf))
		usage_error("--hogs: '%s' is too long", item);
	strcpy(buf, item);
	x = strchr(buf, 'x');
	if (x) {
		*x = '\0';
		repeat = arg_long("--hogs repetition", x + 1, 1,
				  MAX_TERMINALS);
	}
	hogs = arg_long("--hogs", buf, 1, MAX_HOGS);
	if (nr_terms + repeat > MAX_TERMINALS)
		usage_error("--hogs: more than %d terminals", MAX_TERMINALS);
	while (repeat--) {
		terms[nr_terms].master = -1;
		terms[nr_terms++].nr_hogs = hogs;
	}
}

static void parse_hogs(const char *list)
{
	const char *p = list, *comma;
	char item[64];
	size_t len;

	do {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len >= sizeof(item))
			usage_error("--hogs: entry in '%s' is too long", list);
		memcpy(item, p, len);
		item[len] = '\0';
		add_terminals(item);
		p = comma + 1;
	} while (comma);
}

/* What the kernel reports as this task's scheduler runtime. */
static int sample(struct hog *h)
{
	struct timespec ts;
	unsigned long utime, stime;
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	if (h->has_clock && !clock_gettime(h->clock, &ts)) {
		h->ns = ts.tv_sec * 1e9 + ts.tv_nsec;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", h->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		goto fail;
	buf[n] = '\0';
	/* comm may contain spaces and ')', so parse from the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u"
			 " %lu %lu", &utime, &stime) != 2) {
		errno = EINVAL;
		goto fail;
	}
	h->ns = (double)(utime + stime) * 1e9 / sysconf(_SC_CLK_TCK);
	return 0;
fail:
	fprintf(stderr, "ttyshare: CPU time of hog %d: %s\n", h->pid,
		strerror(errno));
	return -1;
}

static int sample_all(void)
{
	int k, i;

	for (k = 0; k < nr_terms; k++)
		for (i = 0; i < terms[k].nr_hogs; i++)
			if (sample(&terms[k].hogs[i]))
				return -1;
	return 0;
}

static int write_ttygroup(int nice)
{
	char buf[16];
	int fd, len, err;
	ssize_t n;

	fd = open(TTYGROUP_FILE, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d\n", nice);
	n = write(fd, buf, len);
	err = errno;
	if (close(fd) && n == len)
		return -1;
	errno = err;
	if (n != len) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * Runs as the session leader of terminal @k: starts the hogs and sends
 * their pids up @wfd. Closing @wfd early tells the parent it failed.
 */
static void __attribute__((noreturn))
leader(int k, const char *slave, int wfd, int cpu, int set_nice, int nice)
{
	struct terminal *t = &terms[k];
	int i;

	for (i = 0; i <= k; i++)
		if (terms[i].master >= 0)
			close(terms[i].master);
	if (slave ? pty_attach(slave) < 0 : setsid() < 0) {
		fprintf(stderr, "ttyshare: terminal %d: %s %s: %s\n", k,
			slave ? "attach" : "setsid", slave ? slave : "",
			strerror(errno));
		_exit(1);
	}
	if (set_nice && write_ttygroup(nice)) {
		fprintf(stderr, "ttyshare: terminal %d: write %d to %s: %s%s\n",
			k, nice, TTYGROUP_FILE, strerror(errno),
			errno == ENOENT ? " (kernel without desksched?)" : "");
		_exit(1);
	}
	for (i = 0; i < t->nr_hogs; i++) {
		pid_t pid = hog_start(cpu);

		if (pid < 0) {
			fprintf(stderr, "ttyshare: terminal %d: fork: %s\n",
				k, strerror(errno));
			_exit(1);
		}
		if (write(wfd, &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
	}
	close(wfd);
	for (;;)
		pause();
}

static int start_terminal(int k, int ctty, int cpu, int set_nice, int nice)
{
	struct terminal *t = &terms[k];
	char slave[128];
	int fds[2], i;
	ssize_t n;

	if (ctty) {
		t->master = pty_open(slave, sizeof(slave));
		if (t->master < 0) {
			fprintf(stderr, "ttyshare: open pty: %s\n",
				strerror(errno));
			return -1;
		}
	}
	if (pipe2(fds, O_CLOEXEC)) {
		fprintf(stderr, "ttyshare: pipe: %s\n", strerror(errno));
		return -1;
	}
	t->leader = fork();
	if (t->leader < 0) {
		fprintf(stderr, "ttyshare: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!t->leader) {
		child_reset(getppid());
		close(fds[0]);
		leader(k, ctty ? slave : NULL, fds[1], cpu, set_nice, nice);
	}
	close(fds[1]);
	for (i = 0; i < t->nr_hogs; i++) {
		struct hog *h = &t->hogs[i];

		do
			n = read(fds[0], &h->pid, sizeof(h->pid));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(h->pid))
			break;
		h->has_clock = !clock_getcpuclockid(h->pid, &h->clock);
	}
	close(fds[0]);
	if (i < t->nr_hogs) {
		/* The leader has already said why on stderr. */
		fprintf(stderr, "ttyshare: terminal %d did not start\n", k);
		return -1;
	}
	return 0;
}

static void stop_all(void)
{
	int k;

	/*
	 * Killing a leader's process group takes its hogs along; as a
	 * subreaper we then inherit and reap whatever it left behind.
	 */
	for (k = 0; k < nr_terms; k++) {
		if (terms[k].leader <= 0)
			continue;
		kill(-terms[k].leader, SIGKILL);
		kill(terms[k].leader, SIGKILL);
	}
	reap_all();
	for (k = 0; k < nr_terms; k++)
		if (terms[k].master >= 0)
			close(terms[k].master);
}

static void report(void)
{
	double sum[MAX_TERMINALS] = { }, total = 0;
	int k, i;

	for (k = 0; k < nr_terms; k++) {
		for (i = 0; i < terms[k].nr_hogs; i++)
			sum[k] += terms[k].hogs[i].ns -
				  terms[k].hogs[i].start_ns;
		total += sum[k];
	}
	for (k = 0; k < nr_terms; k++)
		printf("terminal %d hogs %d cpu_ms %.1f share %.4f\n", k,
		       terms[k].nr_hogs, sum[k] / 1e6,
		       total > 0 ? sum[k] / total : 0);
	printf("first_hog_share %.4f\n",
	       total > 0 ? sum[0] / total / terms[0].nr_hogs : 0);
}

int main(int argc, char **argv)
{
	enum { OPT_NO_CTTY = 256 };
	static const struct option longopts[] = {
		{ "hogs",      required_argument, NULL, 'H' },
		{ "seconds",   required_argument, NULL, 's' },
		{ "cpu",       required_argument, NULL, 'c' },
		{ "no-ctty",   no_argument,       NULL, OPT_NO_CTTY },
		{ "detached",  required_argument, NULL, 'd' },
		{ "nice",      required_argument, NULL, 'n' },
		{ "settle-ms", required_argument, NULL, 'S' },
		{ "pids",      no_argument,       NULL, 'p' },
		{ "help",      no_argument,       NULL, 'h' },
		{ }
	};
	double seconds = 3;
	long settle_ms = 300;
	int cpu = -1, ctty = 1, set_nice = 0, nice = 0, print_pids = 0;
	int opt, k, i, sig = 0, ret = 0, detached = 0;
	sigset_t stop_set;

	while ((opt = getopt_long(argc, argv, "H:s:c:d:n:S:ph", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'H':
			nr_terms = 0;
			parse_hogs(optarg);
			break;
		case 's':
			seconds = arg_double("--seconds", optarg, 0.1, 3600);
			break;
		case 'c':
			cpu = arg_cpu("--cpu", optarg);
			break;
		case OPT_NO_CTTY:
			ctty = 0;
			break;
		case 'd':
			detached = arg_long("--detached", optarg, 0, MAX_TERMINALS);
			break;
		case 'n':
			nice = arg_long("--nice", optarg, -20, 19);
			set_nice = 1;
			break;
		case 'S':
			settle_ms = arg_long("--settle-ms", optarg, 0, 60000);
			break;
		case 'p':
			print_pids = 1;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage_hint();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!nr_terms)
		usage_error("--hogs is required");
	if (detached > nr_terms)
		usage_error("--detached %d: only %d terminals", detached, nr_terms);
	if (cpu < 0)
		cpu = first_allowed_cpu();
	if (cpu < 0) {
		fprintf(stderr, "ttyshare: sched_getaffinity: %s\n",
			strerror(errno));
		return 1;
	}

	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		fprintf(stderr, "ttyshare: PR_SET_CHILD_SUBREAPER: %s\n",
			strerror(errno));
		return 1;
	}
	stop_signals_block(&stop_set);

	for (k = 0; k < nr_terms && !ret && !sig; k++) {
		if (start_terminal(k, ctty && k < nr_terms - detached, cpu,
				   set_nice && !k, nice)) {
			ret = 1;
			break;
		}
		if (print_pids) {
			for (i = 0; i < terms[k].nr_hogs; i++)
				printf("terminal %d pid %d\n", k,
				       terms[k].hogs[i].pid);
			fflush(stdout);
		}
		sig = stop_signals_wait(&stop_set, 0);
	}
	if (!ret && !sig)
		sig = stop_signals_wait(&stop_set, settle_ms / 1000.0);
	if (!ret && !sig) {
		ret = sample_all();
		for (k = 0; k < nr_terms; k++)
			for (i = 0; i < terms[k].nr_hogs; i++)
				terms[k].hogs[i].start_ns =
					terms[k].hogs[i].ns;
	}
	if (!ret && !sig)
		sig = stop_signals_wait(&stop_set, seconds);
	if (!ret && !sig)
		ret = sample_all();
	stop_all();

	if (sig) {
		fprintf(stderr, "ttyshare: stopped by %s\n", strsignal(sig));
		return 128 + sig;
	}
	if (ret)
		return ret;
	report();
	return 0;
}

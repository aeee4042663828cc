// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the desksched guest tests; see ttytest.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ttytest.h"
#include "dltest.h"

/* ---- files ---------------------------------------------------------- */

ssize_t tt_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			close(fd);
			return -err;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

int tt_write_file(const char *path, const char *s, size_t len)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return (size_t)n == len ? 0 : -EIO;
}

int tt_write_str(const char *path, const char *s)
{
	return tt_write_file(path, s, strlen(s));
}

/* ---- the sysctl ----------------------------------------------------- */

int tt_sysctl_get(void)
{
	char buf[16];

	if (tt_read_file(TT_SYSCTL, buf, sizeof(buf)) <= 0)
		return -1;
	if (!strcmp(buf, "0\n"))
		return 0;
	if (!strcmp(buf, "1\n"))
		return 1;
	return -1;
}

int tt_sysctl_set(int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", v);
	return tt_write_str(TT_SYSCTL, buf);
}

int tt_autogroup_enabled(void)
{
	char buf[16];

	if (tt_read_file(TT_AUTOGROUP_SYSCTL, buf, sizeof(buf)) <= 0)
		return 0;
	return buf[0] == '1';
}

/* ---- tty groups ----------------------------------------------------- */

static char *read_all(const char *path)
{
	size_t cap = 1 << 16, got = 0;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - got < 4096) {
			char *nb;

			if (cap >= (64u << 20))
				break;
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - got - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return buf;
}

int tt_groups_count(void)
{
	char *buf = read_all(TT_GROUPS), *p;
	int n = 0;

	if (!buf)
		return -1;
	for (p = buf; *p; p++)
		if (*p == '\n')
			n++;
	free(buf);
	return n;
}

int tt_groups_wait_count(int want, double seconds)
{
	double end = mono_seconds() + seconds;
	int n;

	for (;;) {
		n = tt_groups_count();
		if (n == want || mono_seconds() > end)
			return n;
		tt_sleep(0.05);
	}
}

int tt_groups_nice(const char *name)
{
	char *buf = read_all(TT_GROUPS), *line, *save = NULL;
	char tty[64];
	int nice, ret = -100;

	if (!buf)
		return -100;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s nice %d", tty, &nice) == 2 &&
		    !strcmp(tty, name)) {
			ret = nice;
			break;
		}
	}
	free(buf);
	return ret;
}

int tt_groups_line(const char *name, char *out, size_t len)
{
	char *buf = read_all(TT_GROUPS), *line, *save = NULL;
	char tty[64];
	int ret = -1;

	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s nice", tty) == 1 && !strcmp(tty, name)) {
			snprintf(out, len, "%s", line);
			ret = 0;
			break;
		}
	}
	free(buf);
	return ret;
}

ssize_t tt_proc_ttygroup(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ttygroup", pid);
	return tt_read_file(path, buf, len);
}

int tt_proc_ttygroup_write(pid_t pid, const char *s)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ttygroup", pid);
	return tt_write_str(path, s);
}

/*
 * A task line of a "runnable tasks:" section (print_task()):
 *   ">R" or " S", " %15s" comm, " %5d" pid, ..., "        %s" group path
 * comm may contain spaces, so the pid is taken at its fixed column and
 * the group path is the last field.
 */
static int parse_task_line(char *line, pid_t *pid, char **path)
{
	size_t len = strlen(line);
	char *end, *p;
	long v;

	if (len < 22 || line[2] != ' ' || line[18] != ' ')
		return -1;
	v = strtol(line + 19, &end, 10);
	if (end == line + 19 || *end != ' ' || v <= 0)
		return -1;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\n'))
		line[--len] = '\0';
	p = strrchr(line, ' ');
	if (!p || p[1] != '/')
		return -1;
	*pid = v;
	*path = p + 1;
	return 0;
}

int tt_sched_each_task(int (*fn)(pid_t pid, const char *group, void *arg),
		       void *arg)
{
	char *buf = read_all(TT_SCHED_DEBUG), *line, *save = NULL, *path;
	int in_tasks = 0, ret = 0;
	pid_t pid;

	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		/* strtok_r skips empty lines; a section ends at a non-task line */
		if (!strcmp(line, "runnable tasks:")) {
			in_tasks = 1;
			continue;
		}
		if (!in_tasks)
			continue;
		if (parse_task_line(line, &pid, &path)) {
			if (line[0] != ' ' && line[0] != '-' && line[0] != '>')
				in_tasks = 0;
			continue;
		}
		ret = fn(pid, path, arg);
	}
	free(buf);
	return ret;
}

struct groups_of {
	const pid_t *pids;
	int n, found;
	char (*out)[TT_PATH_MAX];
};

static int group_of(pid_t pid, const char *group, void *arg)
{
	struct groups_of *g = arg;
	int i;

	for (i = 0; i < g->n; i++) {
		if (g->pids[i] == pid && !g->out[i][0]) {
			snprintf(g->out[i], TT_PATH_MAX, "%s", group);
			g->found++;
		}
	}
	return 0;
}

static int sched_groups_once(const pid_t *pids, int n,
			     char (*out)[TT_PATH_MAX])
{
	struct groups_of g = { .pids = pids, .n = n, .out = out };
	int i;

	for (i = 0; i < n; i++)
		out[i][0] = '\0';
	if (tt_sched_each_task(group_of, &g))
		return -1;
	return g.found;
}

int tt_sched_groups(const pid_t *pids, int n, char (*out)[TT_PATH_MAX])
{
	int tries, found = -1;

	for (tries = 0; tries < 5; tries++) {
		found = sched_groups_once(pids, n, out);
		if (found < 0 || found == n)
			return found;
		tt_sleep(0.02);
	}
	return found;
}

int tt_sched_group(pid_t pid, char *out)
{
	char res[1][TT_PATH_MAX];

	if (tt_sched_groups(&pid, 1, res) != 1) {
		out[0] = '\0';
		return -1;
	}
	strcpy(out, res[0]);
	return 0;
}

int tt_sched_wait_all(const pid_t *pids, int n, const char *want,
		      double seconds, char (*out)[TT_PATH_MAX])
{
	double end = mono_seconds() + seconds;
	int i, ok;

	for (;;) {
		ok = 0;
		if (tt_sched_groups(pids, n, out) >= 0)
			for (i = 0; i < n; i++)
				ok += !strcmp(out[i], want);
		if (ok == n || mono_seconds() > end)
			return ok;
		tt_sleep(0.05);
	}
}

int tt_fallback_group(pid_t pid, char *out)
{
	char path[64], buf[128];
	unsigned long id;

	strcpy(out, "/");
	if (!tt_autogroup_enabled())
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", pid);
	if (tt_read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "/autogroup-%lu", &id) != 1)
		return -1;
	/* The default autogroup is the root task group itself. */
	if (id)
		snprintf(out, TT_PATH_MAX, "/autogroup-%lu", id);
	return 0;
}

/* ---- ptys ----------------------------------------------------------- */

/*
 * Masters a test left open keep their tty, and so its group, alive:
 * teardown closes them before it looks for leaked groups.
 */
#define TT_MAX_PTYS	64
static int open_masters[TT_MAX_PTYS];
static int n_open_masters;

static void forget_master(int fd)
{
	int i;

	for (i = 0; i < n_open_masters; i++)
		if (open_masters[i] == fd) {
			open_masters[i] = open_masters[--n_open_masters];
			return;
		}
}

static void close_all_masters(void)
{
	while (n_open_masters)
		close(open_masters[--n_open_masters]);
}

int tt_pty_open(struct tt_pty *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0)
		return -errno;
	if (grantpt(p->master) || unlockpt(p->master) ||
	    ptsname_r(p->master, p->slave, sizeof(p->slave)) ||
	    sscanf(p->slave, "/dev/pts/%d", &p->num) != 1) {
		err = errno ? errno : EINVAL;
		close(p->master);
		p->master = -1;
		return -err;
	}
	snprintf(p->name, sizeof(p->name), "pts%d", p->num);
	snprintf(p->group, sizeof(p->group), "/ttygroup-pts%d", p->num);
	snprintf(p->line, sizeof(p->line), "/ttygroup-pts%d nice 0\n", p->num);
	if (n_open_masters == TT_MAX_PTYS) {
		close(p->master);
		p->master = -1;
		return -EMFILE;
	}
	open_masters[n_open_masters++] = p->master;
	return 0;
}

void tt_pty_close(struct tt_pty *p)
{
	if (p->master >= 0) {
		forget_master(p->master);
		close(p->master);
	}
	p->master = -1;
}

/* ---- processes ------------------------------------------------------ */

#define TT_MAX_PIDS	4096

struct registry {
	int n;
	pid_t pids[TT_MAX_PIDS];
};

static struct registry *reg;

void tt_register(pid_t pid)
{
	int i;

	if (!reg || pid <= 0)
		return;
	i = __sync_fetch_and_add(&reg->n, 1);
	if (i < TT_MAX_PIDS)
		reg->pids[i] = pid;
}

void tt_unregister(pid_t pid)
{
	int i, n;

	if (!reg)
		return;
	n = reg->n < TT_MAX_PIDS ? reg->n : TT_MAX_PIDS;
	for (i = 0; i < n; i++)
		if (reg->pids[i] == pid)
			reg->pids[i] = 0;
}

void tt_kill_all(void)
{
	double end;
	int i, n;
	pid_t p;

	if (reg) {
		n = reg->n < TT_MAX_PIDS ? reg->n : TT_MAX_PIDS;
		for (i = 0; i < n; i++)
			if (reg->pids[i] > 0)
				kill(reg->pids[i], SIGKILL);
	}
	/*
	 * We are a child subreaper: whatever the killed processes leave
	 * behind comes to us. Reap until nothing is left.
	 */
	end = mono_seconds() + 10;
	for (;;) {
		p = waitpid(-1, NULL, WNOHANG);
		if (p > 0)
			continue;
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0 || mono_seconds() > end)	/* ECHILD */
			break;
		tt_sleep(0.01);
	}
	if (reg) {
		memset(reg->pids, 0, sizeof(reg->pids));
		reg->n = 0;
	}
}

int tt_wait(pid_t pid, double seconds)
{
	double end = mono_seconds() + seconds;
	int status;
	pid_t p;

	for (;;) {
		p = waitpid(pid, &status, WNOHANG);
		if (p == pid) {
			tt_unregister(pid);
			return status;
		}
		if (p < 0 && errno != EINTR)
			return -1;
		if (mono_seconds() > end) {
			kill(pid, SIGKILL);
			if (waitpid(pid, &status, 0) == pid)
				tt_unregister(pid);
			return -1;
		}
		/* Poll fast at first: the churn test waits for many quick exits. */
		tt_sleep(mono_seconds() + seconds - end < 0.05 ? 0.0005 : 0.005);
	}
}

int tt_first_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

int tt_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int tt_drop_privs(uid_t uid)
{
	struct rlimit rl = { 0, 0 };

	/* No RLIMIT_NICE either: a negative nice then needs CAP_SYS_NICE. */
	if (setrlimit(RLIMIT_NICE, &rl) || setgroups(0, NULL) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	/* Keep /proc/<pid> owned by @uid rather than root. */
	if (prctl(PR_SET_DUMPABLE, 1))
		return -errno;
	if (geteuid() != uid || getegid() != uid)
		return -EPERM;
	return 0;
}

void tt_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

double tt_cpu_ns(pid_t pid)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) || clock_gettime(clk, &ts))
		return -1;
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

char tt_proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (tt_read_file(path, buf, sizeof(buf)) <= 0)
		return 'X';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

int tt_tids(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < max)
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
			tids[n++] = atoi(d->d_name);
	closedir(dir);
	qsort(tids, n, sizeof(*tids), cmp_pid);
	return n;
}

/* Close every fd >= 3 except those in @keep. */
static void close_fds_except(const int *keep, int nkeep)
{
	int fd, i, k;

	for (fd = 3; fd < 1024; fd++) {
		for (k = 0, i = 0; i < nkeep; i++)
			k |= keep[i] == fd;
		if (!k)
			close(fd);
	}
}

/*
 * In a freshly forked helper: die with the parent unless told not to,
 * survive the SIGHUPs that hangups and exiting session leaders send.
 */
static void child_init(int flags, pid_t parent)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, SIG_DFL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	if (!(flags & TT_NO_PDEATHSIG)) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
	}
}

int tt_run(char *const argv[], char *out, size_t outlen, double seconds)
{
	double end = mono_seconds() + seconds;
	struct pollfd pfd;
	size_t got = 0;
	int fds[2], left;
	pid_t pid, parent = getpid();
	ssize_t n;

	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		child_init(0, parent);
		signal(SIGHUP, SIG_DFL);
		signal(SIGTTOU, SIG_DFL);
		signal(SIGTTIN, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		dup2(fds[1], 1);
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	tt_register(pid);
	close(fds[1]);
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	for (;;) {
		left = (int)((end - mono_seconds()) * 1000);
		if (left <= 0)
			break;
		if (poll(&pfd, 1, left) <= 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n = read(fds[0], out + got, outlen - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
		out[got] = '\0';
		if (got >= outlen - 1)
			break;
	}
	close(fds[0]);
	return tt_wait(pid, end - mono_seconds() + 2);
}

double tt_field(const char *out, const char *key)
{
	size_t klen = strlen(key);
	const char *p = out;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtod(p + klen + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int tt_terminal_share(const char *out, int k, double *share, double *cpu_ms)
{
	const char *p = out;
	int kk, hogs;

	while (p && *p) {
		if (sscanf(p, "terminal %d hogs %d cpu_ms %lf share %lf", &kk,
			   &hogs, cpu_ms, share) == 4 && kk == k)
			return 0;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* ---- setup and teardown --------------------------------------------- */

static void errf(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

int tt_setup(struct tt_state *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	if (!reg) {
		reg = mmap(NULL, sizeof(*reg), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (reg == MAP_FAILED) {
			reg = NULL;
			errf(err, errlen, "mmap: %s", strerror(errno));
			return -1;
		}
	}
	memset(reg, 0, sizeof(*reg));
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		errf(err, errlen, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	st->boot_sysctl = tt_sysctl_get();
	if (st->boot_sysctl < 0) {
		errf(err, errlen, "%s does not read 0 or 1 (kernel without CONFIG_SCHED_TTYGROUP?)",
		     TT_SYSCTL);
		return -1;
	}
	st->base_groups = tt_groups_count();
	if (st->base_groups < 0) {
		errf(err, errlen, "cannot read %s: %s", TT_GROUPS,
		     strerror(errno));
		return -1;
	}
	return 0;
}

int tt_teardown(struct tt_state *st, char *err, size_t errlen)
{
	char buf[4096], *line, *save = NULL;
	struct stat sb;
	double end;
	int n, ret = 0;

	err[0] = '\0';
	tt_kill_all();
	close_all_masters();

	if (!stat(TT_CGROUP, &sb)) {
		/* Anything still in there goes back to the root cgroup. */
		if (tt_read_file(TT_CGROUP "/cgroup.procs", buf,
				 sizeof(buf)) > 0)
			for (line = strtok_r(buf, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				tt_write_str(TT_CGROOT "/cgroup.procs", line);
		end = mono_seconds() + 3;
		while (rmdir(TT_CGROUP) && errno == EBUSY && mono_seconds() < end)
			tt_sleep(0.05);
		if (!stat(TT_CGROUP, &sb)) {
			errf(err, errlen, "cannot remove %s: %s", TT_CGROUP,
			     strerror(errno));
			ret = -1;
		}
	}
	if (st->cpu_enabled_by_us) {
		tt_write_str(TT_CGROOT "/cgroup.subtree_control", "-cpu");
		st->cpu_enabled_by_us = 0;
	}

	if (tt_sysctl_get() != st->boot_sysctl &&
	    tt_sysctl_set(st->boot_sysctl)) {
		errf(err, errlen, "cannot restore %s to %d", TT_SYSCTL,
		     st->boot_sysctl);
		ret = -1;
	}

	/* Frees of ttys and groups may be deferred: give them time. */
	n = tt_groups_wait_count(st->base_groups, 5);
	if (n != st->base_groups && !ret) {
		errf(err, errlen, "%d tty groups left behind (%d before the test, %d now)",
		     n - st->base_groups, st->base_groups, n);
		ret = -1;
	}
	/* The harness _exit()s right after teardown: keep what was printed. */
	fflush(stdout);
	return ret;
}

/* ---- cgroup --------------------------------------------------------- */

int tt_cgroup_create(struct tt_state *st)
{
	char buf[512], *tok, *save = NULL;
	int has_cpu = 0, ret;

	if (tt_read_file(TT_CGROOT "/cgroup.subtree_control", buf,
			 sizeof(buf)) < 0)
		return -errno;
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		has_cpu |= !strcmp(tok, "cpu");
	if (!has_cpu) {
		ret = tt_write_str(TT_CGROOT "/cgroup.subtree_control", "+cpu");
		if (ret)
			return ret;
		st->cpu_enabled_by_us = 1;
	}
	if (mkdir(TT_CGROUP, 0755) && errno != EEXIST)
		return -errno;
	st->cgroup_made = 1;
	return 0;
}

int tt_cgroup_move(const char *cgroup, pid_t pid)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	snprintf(buf, sizeof(buf), "%d\n", pid);
	return tt_write_str(path, buf);
}

/* ---- agents --------------------------------------------------------- */

static struct tt_agent agents[TT_MAX_AGENTS];
static int nagents;

struct msg {
	int op, a, b;
};

int tt_agents_init(int n)
{
	int i, sv[2];

	for (i = 0; i < nagents; i++) {
		if (agents[i].fd >= 0)
			close(agents[i].fd);
		if (agents[i].child_fd >= 0)
			close(agents[i].child_fd);
	}
	nagents = 0;
	if (n > TT_MAX_AGENTS)
		return -1;
	for (i = 0; i < n; i++) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
			return -1;
		agents[i].fd = sv[0];
		agents[i].child_fd = sv[1];
		agents[i].pid = 0;
		nagents++;
	}
	return 0;
}

struct tt_agent *tt_agent(int i)
{
	return &agents[i];
}

static int spin_cpu = -1;

static void *spin_thread(void *arg)
{
	(void)arg;
	if (spin_cpu >= 0)
		tt_pin(spin_cpu);
	for (;;)
		;
	return NULL;
}

static pid_t spawn_spinner(int cpu)
{
	pid_t parent = getpid(), pid = fork();

	if (pid)
		return pid;
	child_init(0, parent);
	close_fds_except(NULL, 0);
	if (cpu >= 0 && tt_pin(cpu))
		_exit(1);
	prctl(PR_SET_NAME, "dsspin");
	for (;;)
		;
}

char **tt_exec_argv;
static unsigned int dl_flags;
/*
 * A task whose reservation is smaller than what replying takes may not
 * answer for hours (its overrun is repaid first): such a request is made
 * for a sleeping child (TT_OP_FORKSLEEP) instead.
 */
static pid_t dl_target;

struct dl_thread_req {
	int runtime_us;
	int spin;
	int report;		/* write end of the result pipe */
};

static void *dl_thread(void *arg)
{
	struct dl_thread_req *req = arg;
	int ret = dt_set_dl(0, req->runtime_us * 1000ULL, 100 * DT_MS,
			    dl_flags);

	if (write(req->report, &ret, sizeof(ret)) != sizeof(ret) || ret)
		return NULL;
	while (req->spin)
		;
	for (;;)
		pause();
	return NULL;
}

/* Use @ms of the process's CPU time, not of the wall clock. */
static void burn_cpu(int ms)
{
	double end = tt_cpu_ns(0) + ms * 1e6;

	while (tt_cpu_ns(0) < end)
		;
}

/* Start @n threads that each ask for SCHED_DEADLINE; how many got it. */
static int start_dl_threads(int n, int runtime_us, int spin)
{
	/* Static: the spinning threads keep reading it. */
	static struct dl_thread_req req;
	int i, got = 0, ret, fds[2];
	pthread_t th;

	if (pipe(fds))
		return -errno;
	req.runtime_us = runtime_us;
	req.spin = spin;
	req.report = fds[1];
	for (i = 0; i < n; i++) {
		ret = -pthread_create(&th, NULL, dl_thread, &req);
		if (!ret && read(fds[0], &ret, sizeof(ret)) != sizeof(ret))
			ret = -EIO;
		if (ret && ret != -EBUSY) {
			got = ret;
			break;
		}
		got += !ret;
	}
	close(fds[0]);
	close(fds[1]);
	return got;
}

static pid_t fork_sleeper(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid)
		return pid;
	child_init(0, parent);
	for (;;)
		pause();
}

static int tty_nr_self(void)
{
	char buf[1024], *p;
	int tty_nr;

	if (tt_read_file("/proc/self/stat", buf, sizeof(buf)) <= 0)
		return -EIO;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %d", &tty_nr) != 1)
		return -EIO;
	return tty_nr;
}

static void __attribute__((noreturn)) agent_main(int self)
{
	int keep[TT_MAX_AGENTS], i, fd = agents[self].child_fd, tty = -1;
	struct msg m;
	char buf[64];
	pthread_t th;
	ssize_t n;
	pid_t pid;
	int ret;

	/* Keep only the agents' ends, for forking further agents. */
	for (i = 0; i < nagents; i++)
		keep[i] = agents[i].child_fd;
	close_fds_except(keep, nagents);
	snprintf(buf, sizeof(buf), "dsagent%d", self);
	prctl(PR_SET_NAME, buf);

	for (;;) {
		n = recv(fd, &m, sizeof(m), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(m))
			_exit(0);	/* the test is gone */
		ret = 0;
		switch (m.op) {
		case TT_OP_PING:
			break;
		case TT_OP_SETSID:
			ret = setsid() < 0 ? -errno : 0;
			break;
		case TT_OP_OPEN:
			snprintf(buf, sizeof(buf), "/dev/pts/%d", m.a);
			if (tty >= 0)
				close(tty);
			tty = open(buf, O_RDWR | (m.b ? O_NOCTTY : 0));
			ret = tty < 0 ? -errno : 0;
			break;
		case TT_OP_CLOSE:
			ret = tty >= 0 && close(tty) ? -errno : 0;
			if (tty < 0)
				ret = -EBADF;
			tty = -1;
			break;
		case TT_OP_SCTTY:
			ret = ioctl(tty, TIOCSCTTY, m.b) ? -errno : 0;
			break;
		case TT_OP_NOTTY: {
			int t = tty >= 0 ? tty : open("/dev/tty", O_RDWR);

			if (t < 0) {
				ret = -errno;
				break;
			}
			ret = ioctl(t, TIOCNOTTY) ? -errno : 0;
			if (t != tty)
				close(t);
			break;
		}
		case TT_OP_VHANGUP:
			ret = vhangup() ? -errno : 0;
			break;
		case TT_OP_FORK: {
			pid_t me = getpid();

			if (m.a < 0 || m.a >= nagents) {
				ret = -EINVAL;
				break;
			}
			pid = fork();
			if (!pid) {
				child_init(m.b, me);
				agent_main(m.a);
			}
			if (pid < 0) {
				ret = -errno;
				break;
			}
			tt_register(pid);
			ret = pid;
			break;
		}
		case TT_OP_SPIN:
			pid = spawn_spinner(m.a);
			if (pid < 0) {
				ret = -errno;
				break;
			}
			tt_register(pid);
			ret = pid;
			break;
		case TT_OP_THREADS:
			spin_cpu = m.b;
			for (i = 0; i < m.a; i++) {
				ret = -pthread_create(&th, NULL, spin_thread,
						      NULL);
				if (ret)
					break;
			}
			break;
		case TT_OP_DROP:
			ret = tt_drop_privs(m.a);
			break;
		case TT_OP_NICE:
			snprintf(buf, sizeof(buf), "%d", m.b);
			ret = tt_proc_ttygroup_write(m.a ? m.a : getpid(), buf);
			break;
		case TT_OP_SYSCTL:
			ret = tt_sysctl_set(m.a);
			break;
		case TT_OP_EXIT:
			_exit(m.a);
		case TT_OP_GETTTY:
			ret = tty_nr_self();
			break;
		case TT_OP_DLFLAGS:
			dl_flags = m.a;
			break;
		case TT_OP_DL:
			ret = dt_set_dl(dl_target, m.a * 1000ULL,
					m.b * 1000ULL, dl_flags);
			break;
		case TT_OP_OTHER:
			ret = dt_set_other(dl_target);
			break;
		case TT_OP_DLTARGET:
			dl_target = m.a;
			break;
		case TT_OP_DLTHREADS:
			ret = start_dl_threads(m.a, m.b, 0);
			break;
		case TT_OP_DLSPIN:
			ret = start_dl_threads(m.a, m.b, 1);
			break;
		case TT_OP_SETRESUID:
			ret = setresuid(m.a, m.a, m.b) ? -errno : 0;
			break;
		case TT_OP_FORKSLEEP:
			pid = fork_sleeper();
			if (pid < 0) {
				ret = -errno;
				break;
			}
			tt_register(pid);
			ret = pid;
			break;
		case TT_OP_EXEC:
			if (tt_exec_argv)
				execv(tt_exec_argv[0], tt_exec_argv);
			ret = -errno;
			break;
		case TT_OP_BURN:
			burn_cpu(m.a);
			break;
		default:
			ret = -EINVAL;
		}
		if (send(fd, &ret, sizeof(ret), MSG_NOSIGNAL) != sizeof(ret))
			_exit(0);
	}
}

pid_t tt_agent_start(int i, int flags)
{
	pid_t parent = getpid(), pid;

	if (i < 0 || i >= nagents)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		child_init(flags, parent);
		agent_main(i);
	}
	if (pid < 0)
		return -1;
	tt_register(pid);
	agents[i].pid = pid;
	return pid;
}

int tt_cmd(int i, int op, int a, int b)
{
	struct msg m = { op, a, b };
	struct pollfd pfd;
	int ret;

	if (i < 0 || i >= nagents)
		return TT_CMD_FAILED;
	if (send(agents[i].fd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
		return TT_CMD_FAILED;
	if (op == TT_OP_EXIT)
		return 0;
	pfd.fd = agents[i].fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 10000) < 0)
		if (errno != EINTR)
			return TT_CMD_FAILED;
	if (!(pfd.revents & POLLIN) ||
	    recv(agents[i].fd, &ret, sizeof(ret), 0) != sizeof(ret))
		return TT_CMD_FAILED;
	if (op == TT_OP_FORK && ret > 0 && a >= 0 && a < nagents)
		agents[a].pid = ret;
	return ret;
}

int tt_agent_wait(int i, double seconds)
{
	return tt_wait(agents[i].pid, seconds);
}

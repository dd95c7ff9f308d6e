// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: run Debian's trinity as an unprivileged user (nobody, no
 * capabilities) for sa.fuzz=SECONDS with the scheduling, timer and signal
 * syscalls in focus, then ask the kernel whether anything stuck: a task of
 * that user marked at any sample, a boosted task, a held wakeup source, a
 * taint, or a system that no longer suspends. Kernel reports in the console
 * are judged by the host. Not in tests/order: `make fuzz` runs it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define NOBODY 65534
#define TRINITY "/usr/bin/trinity"
#define WORKDIR "/tmp/fuzz"
#define LOG "/tmp/trinity.log"

/* Syscalls in focus; those this trinity does not know on this arch drop out. */
static const char *const focus[] = {
	"sched_setscheduler", "sched_setparam", "sched_setattr",
	"sched_getattr", "sched_getscheduler", "sched_getparam", "sched_yield",
	"clock_nanosleep", "nanosleep", "timerfd_create", "timerfd_settime",
	"timerfd_gettime", "timer_create", "timer_settime", "timer_delete",
	"epoll_create1", "epoll_ctl", "epoll_pwait", "kill", "tgkill",
	"rt_sigqueueinfo", "rt_sigtimedwait", "prctl", "setpriority",
	"read",
};

static void become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) {
		perror("fuzz: dropping to nobody");
		_exit(126);
	}
}

/* trinity -L as nobody, into @buf; 0 on success. */
static int trinity_list(char *buf, size_t len)
{
	int fd[2], n = 0, r;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		become_nobody();
		execl(TRINITY, "trinity", "-L", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (n < (int)len - 1 && (r = read(fd[0], buf + n, len - 1 - n)) > 0)
		n += r;
	buf[n] = 0;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return n > 0 ? 0 : -1;
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == ':' || !p[n]))
			return true;
	return false;
}

/* Processes of uid @uid; *marked counts those whose StayAwake is not off. */
static int scan_uid(uid_t uid, int *marked)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	*marked = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char state[16];
		unsigned int ruid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    proc_status(de->d_name, &ruid, state, sizeof(state)) ||
		    ruid != uid)
			continue;
		n++;
		if (state[0] && strcmp(state, "off"))
			(*marked)++;
	}
	closedir(d);
	return n;
}

/* Signal every process of nobody, as nobody: it reaches whatever trinity
 * forked, whichever process group or session it moved to. */
static void signal_nobody(int sig)
{
	pid_t pid = fork();

	if (pid == 0) {
		become_nobody();
		kill(-1, sig);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void show_log_tail(int lines)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "tail -n %d " LOG " | sed 's/^/#   /'", lines);
	fflush(stdout);
	if (system(cmd))
		tap_diag("(no trinity log)");
}

/* Root's important task: marked, it works a little and sleeps on an alarm,
 * deboosting and reboosting, while nobody fuzzes around it. */
static pid_t start_important(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 300000000 };

		if (stayawake_mark(0, true))
			_exit(1);
		for (;;) {
			int64_t end = clock_ns(CLOCK_MONOTONIC) + 50000000;

			while (clock_ns(CLOCK_MONOTONIC) < end)
				;
			clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
		}
	}
	return pid;
}

/* trinity's own count from its last words: "Ran N syscalls." */
static long syscalls_ran(void)
{
	FILE *f = fopen(LOG, "r");
	char line[512], *p;
	long n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, "Ran ")))
			sscanf(p, "Ran %ld syscalls", &n);
	fclose(f);
	return n;
}

int main(void)
{
	int secs = cmdline_int("sa.fuzz=", 60);
	static char list[1 << 16];
	char *argv[8 + 2 * (sizeof(focus) / sizeof(focus[0]))];
	int argc = 0, nfocus = 0, samples = 0, marked_seen = 0, left, marked;
	int root_unmarked = 0;
	char st[32];
	pid_t imp;
	int boosted, lines, status = 0, logfd;
	struct alarm_suspend as;
	long taint0, ran;
	bool exited_early = false;
	int64_t t0, deadline;
	struct stayawake_entry e;
	unsigned int i;
	pid_t tri;

	tap_init("fuzz");
	if (access(TRINITY, X_OK))
		tap_bail("no %s in this initramfs (make fuzz brings it)", TRINITY);
	taint0 = read_long("/proc/sys/kernel/tainted");
	if (mkdir(WORKDIR, 0755) && errno != EEXIST)
		tap_bail("mkdir %s: %s", WORKDIR, strerror(errno));
	/* A small tmpfs of its own: trinity's files cannot fill the guest. */
	if (mount("tmpfs", WORKDIR, "tmpfs", 0, "size=32m,mode=0755"))
		tap_bail("mount %s: %s", WORKDIR, strerror(errno));
	if (chown(WORKDIR, NOBODY, NOBODY))
		tap_bail("chown %s: %s", WORKDIR, strerror(errno));

	if (trinity_list(list, sizeof(list)))
		tap_bail("trinity -L as nobody printed nothing");
	argv[argc++] = "trinity";
	/* The guest kernel has no networking: socket() is ENOSYS and
	 * trinity would spend its time trying to fill its socket cache. */
	argv[argc++] = "--disable-fds=sockets";
	argv[argc++] = "-q";
	argv[argc++] = "-l";
	argv[argc++] = "off";
	argv[argc++] = "-C";
	argv[argc++] = "4";
	for (i = 0; i < sizeof(focus) / sizeof(focus[0]); i++) {
		if (!listed(list, focus[i]))
			continue;
		argv[argc++] = "-c";
		argv[argc++] = (char *)focus[i];
		nfocus++;
	}
	argv[argc] = NULL;
	if (!nfocus)
		tap_bail("trinity -L names none of the focus syscalls");
	tap_diag("trinity on %d syscalls for %d s as uid %d", nfocus, secs,
		 NOBODY);

	imp = start_important();
	usleep(100000);
	logfd = open(LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (logfd < 0)
		tap_bail("open %s: %s", LOG, strerror(errno));
	t0 = clock_ns(CLOCK_MONOTONIC);
	deadline = t0 + secs * SEC_NS;
	tri = fork();
	if (tri == 0) {
		dup2(logfd, 1);
		dup2(logfd, 2);
		setsid();
		become_nobody();
		if (chdir(WORKDIR))
			_exit(126);
		execv(TRINITY, argv);
		_exit(127);
	}
	close(logfd);

	/* Sample every second: no task of nobody may ever be marked. */
	while (clock_ns(CLOCK_MONOTONIC) < deadline) {
		if (waitpid(tri, &status, WNOHANG) == tri) {
			exited_early = true;
			break;
		}
		scan_uid(NOBODY, &marked);
		marked_seen += marked;
		proc_stayawake(imp, st, sizeof(st));
		root_unmarked += strcmp(st, "boosted") && strcmp(st, "deboosted");
		samples++;
		sleep(1);
	}
	signal_nobody(SIGINT);
	for (i = 0; i < 300 && !exited_early; i++) {
		if (waitpid(tri, &status, WNOHANG) == tri)
			break;
		usleep(100000);
	}
	signal_nobody(SIGKILL);
	if (!exited_early)
		waitpid(tri, &status, 0);
	for (i = 0; i < 100 && scan_uid(NOBODY, &marked) > 0; i++) {
		signal_nobody(SIGKILL);
		usleep(100000);
	}
	left = scan_uid(NOBODY, &marked);

	show_log_tail(6);
	ran = syscalls_ran();
	tap_check(!exited_early && ran > 0, "trinity ran its time as nobody",
		  "%.0f s of %d s, %ld syscalls (%d in focus), %s %d",
		  (clock_ns(CLOCK_MONOTONIC) - t0) / 1e9, secs, ran, nfocus,
		  WIFEXITED(status) ? "exit" : "signal",
		  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	tap_check(samples > 0 && !marked_seen,
		  "no task of nobody was ever marked",
		  "%d marked in %d samples", marked_seen, samples);
	tap_check(left == 0, "every process of nobody is gone", "%d left", left);
	tap_check(samples > 0 && !root_unmarked,
		  "root's important task stayed marked through it",
		  "not marked in %d of %d samples", root_unmarked, samples);
	kill(imp, SIGKILL);
	waitpid(imp, NULL, 0);

	wait_sources_idle();
	stayawake_debugfs(-1, &e, &boosted, &lines);
	tap_check(boosted == 0 && lines == 0, "the kernel counts no boosted task",
		  "header %d, lines %d", boosted, lines);
	tap_check(!strcmp(active_sources(), "none") &&
		  !stayawake_source_active(), "no wakeup source is held",
		  "active: %s; %s", active_sources(), stayawake_source_str());
	tap_check(read_long("/proc/sys/kernel/tainted") == taint0,
		  "the kernel is not tainted", "tainted %ld -> %ld", taint0,
		  read_long("/proc/sys/kernel/tainted"));

	alarm_suspend(3, &as);
	tap_check(as.ok,
		  "one alarm suspend succeeds after the fuzzing",
		  "write: %s, success %ld->%ld", as.err ? strerror(-as.err) : "ok",
		  as.success_before, as.success_after);
	umount(WORKDIR);
	return tap_done();
}

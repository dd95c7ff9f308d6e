// SPDX-License-Identifier: GPL-2.0
/*
 * The stayawake command (tools/stayawake.c): every subcommand, every error
 * message and exit code, judged by what the kernel then reports. An error
 * caused by a missing capability names it: CAP_BLOCK_SUSPEND to mark,
 * CAP_SYS_NICE for another user's task or a SCHED_DEADLINE one.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include <linux/capability.h>

#define CLI "/bin/stayawake"

#define NOBODY 65534

/* NO_CAP: without CAP_BLOCK_SUSPEND; NO_NICE: without CAP_SYS_NICE. */
enum { AS_ROOT, NO_CAP, NO_DEBUGFS, NO_NICE, NO_CAPS };

/* In the child, before the exec: the situation to run the command in. */
static void situation(int how)
{
	if ((how == NO_CAP || how == NO_CAPS) && drop_cap(CAP_BLOCK_SUSPEND))
		_exit(99);
	if ((how == NO_NICE || how == NO_CAPS) && drop_cap(CAP_SYS_NICE))
		_exit(97);
	/* A private mount table without debugfs */
	if (how == NO_DEBUGFS &&
	    (unshare(CLONE_NEWNS) ||
	     mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	     umount2("/sys/kernel/debug", MNT_DETACH)))
		_exit(98);
}

/* Run the command with up to 4 arguments; stdout+stderr into out. */
static int cli(int how, char *out, size_t len, const char *a1,
	       const char *a2, const char *a3, const char *a4)
{
	const char *const argv[] = { CLI, a1, a2, a3, a4, NULL };

	return run_capture(argv, out, len, situation, how);
}

/* A child that sleeps on an alarm, marked or not: our target. */
static pid_t sleeper(bool marked, int secs)
{
	pid_t pid = fork();

	if (!pid) {
		struct timespec ts = { .tv_sec = secs };
		int64_t end;

		if (marked)
			stayawake_mark(0, true);
		clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
		/* then work, boosted, until killed */
		end = clock_ns(CLOCK_MONOTONIC) + 20 * SEC_NS;
		while (clock_ns(CLOCK_MONOTONIC) < end)
			;
		_exit(0);
	}
	while (!proc_sleeping(pid))
		usleep(10000);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static bool has(const char *out, const char *s)
{
	return strstr(out, s) != NULL;
}

/* A run that must fail with @rc and say @text. */
struct refusal {
	int how;
	const char *args[4];
	int rc;
	const char *text;
	const char *name;
};

static const struct refusal refusals[] = {
	{ AS_ROOT, { NULL }, 2, "no command", "no arguments: usage error" },
	{ AS_ROOT, { "-x" }, 2, "unknown option '-x'",
	  "unknown option: usage error" },
	{ AS_ROOT, { "/no/such/cmd" }, 127, "/no/such/cmd: No such file",
	  "a missing COMMAND exits 127" },
	{ AS_ROOT, { "/proc/self/status" }, 126, "Permission denied",
	  "a COMMAND that cannot run exits 126" },
	{ NO_CAP, { "/bin/true" }, 1, "needs CAP_BLOCK_SUSPEND",
	  "without CAP_BLOCK_SUSPEND: needs CAP_BLOCK_SUSPEND" },
	{ AS_ROOT, { "-p", "2", "on" }, 1, "kernel thread",
	  "-p on a kernel thread: says so" },
	{ AS_ROOT, { "-p", "12x", "on" }, 2, "not a pid: '12x'",
	  "-p with a bad pid: usage error" },
	{ AS_ROOT, { "-p", "1", "maybe" }, 2, "say on or off",
	  "-p with neither on nor off: usage error" },
	{ AS_ROOT, { "list", "x" }, 2, "list takes no arguments",
	  "list with an argument: usage error" },
	{ NO_DEBUGFS, { "list" }, 4, "debugfs is not mounted",
	  "list without debugfs: says so" },
};

static void check_refusals(void)
{
	char out[4096];

	for (size_t i = 0; i < sizeof(refusals) / sizeof(*refusals); i++) {
		const struct refusal *r = &refusals[i];
		int rc = cli(r->how, out, sizeof(out), r->args[0], r->args[1],
			     r->args[2], r->args[3]);

		tap_check(rc == r->rc && has(out, r->text), r->name,
			  "exit %d: %s", rc, strtok(out, "\n"));
	}
}

/*
 * stayawake -p PID on|off on a task that waits until killed, set up by root
 * with a policy and nice value, of another user or not, marked or not: the
 * exit status, the message, and the task's mark after; all else stays.
 */
static const struct pid_case {
	const char *name;
	int how;
	int policy, nice;
	bool other_user, marked;
	const char *onoff;
	int rc;
	const char *text;	/* in the output; NULL: any */
	bool marked_after;
} pid_cases[] = {
	{ "-p PID on: marked, SCHED_BATCH nice 7 kept", AS_ROOT, SCHED_BATCH,
	  7, false, false, "on", 0, NULL, true },
	{ "-p PID off: unmarked, SCHED_BATCH nice 7 kept", AS_ROOT,
	  SCHED_BATCH, 7, false, true, "off", 0, NULL, false },
	{ "-p PID on, marked, without CAP_BLOCK_SUSPEND: kept, exit 0", NO_CAP,
	  SCHED_OTHER, 0, false, true, "on", 0, NULL, true },
	{ "-p PID off without CAP_BLOCK_SUSPEND: unmarked", NO_CAP,
	  SCHED_OTHER, 0, false, true, "off", 0, NULL, false },
	{ "-p PID on, another user's, without CAP_SYS_NICE: names it", NO_NICE,
	  SCHED_OTHER, 0, true, false, "on", 1,
	  "needs CAP_SYS_NICE (another user's task)", false },
	{ "-p PID off, another user's, without CAP_SYS_NICE: names it",
	  NO_NICE, SCHED_OTHER, 0, true, true, "off", 1,
	  "needs CAP_SYS_NICE (another user's task)", true },
	{ "-p PID on, another user's, without either: names both", NO_CAPS,
	  SCHED_OTHER, 0, true, false, "on", 1,
	  "needs CAP_BLOCK_SUSPEND and CAP_SYS_NICE", false },
	{ "-p PID off, SCHED_DEADLINE, without CAP_SYS_NICE: names it",
	  NO_NICE, SCHED_DEADLINE, 0, false, false, "off", 1,
	  "needs CAP_SYS_NICE (a SCHED_DEADLINE task)", false },
};

static pid_t pid_case_target(const struct pid_case *c)
{
	struct sched_attr a = {
		.size = sizeof(a), .sched_policy = c->policy,
		.sched_nice = c->nice,
		.sched_flags = c->marked ? SCHED_FLAG_STAYAWAKE : 0,
	};
	int ready[2];
	pid_t pid;
	char ch;

	if (c->policy == SCHED_DEADLINE) {
		a.sched_runtime = 1000000;
		a.sched_deadline = a.sched_period = 10000000;
	}
	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		if (c->other_user && (setresgid(NOBODY, NOBODY, NOBODY) ||
				      setresuid(NOBODY, NOBODY, NOBODY)))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	if (read(ready[0], &ch, 1) != 1)
		tap_diag("target %d failed to start", pid);
	close(ready[0]);
	close(ready[1]);
	if (sys_sched_setattr(pid, &a, 0))
		tap_diag("target %d: sched_setattr: %s", pid, strerror(errno));
	return pid;
}

static void check_pid_cases(void)
{
	char out[4096], pidstr[16], sa[16];

	for (size_t i = 0; i < sizeof(pid_cases) / sizeof(*pid_cases); i++) {
		const struct pid_case *c = &pid_cases[i];
		struct sched_attr before = { .size = sizeof(before) };
		struct sched_attr after = { .size = sizeof(after) };
		pid_t pid = pid_case_target(c);
		bool kept;
		int rc;

		snprintf(pidstr, sizeof(pidstr), "%d", pid);
		sys_sched_getattr(pid, &before, sizeof(before), 0);
		rc = cli(c->how, out, sizeof(out), "-p", pidstr, c->onoff, NULL);
		sys_sched_getattr(pid, &after, sizeof(after), 0);
		proc_stayawake(pid, sa, sizeof(sa));
		before.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
		after.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
		kept = !memcmp(&before, &after, sizeof(after));
		tap_check(rc == c->rc && (!c->text || has(out, c->text)) &&
			  !strcmp(sa, c->marked_after ? "boosted" : "off") &&
			  kept, c->name, "exit %d, StayAwake %s, policy %u "
			  "nice %d%s: %s", rc, sa, after.sched_policy,
			  after.sched_nice, kept ? "" : " (changed)",
			  out[0] ? strtok(out, "\n") : "no output");
		reap(pid);
	}
}

/* The list line of pid, or "" */
static const char *list_line(const char *out, pid_t pid, char *line, int len)
{
	char key[32];
	const char *p = out;

	line[0] = 0;
	snprintf(key, sizeof(key), "%d ", pid);
	while (p && *p) {
		const char *q = p + strspn(p, " ");
		const char *e = strchr(p, '\n');

		if (!strncmp(q, key, strlen(key))) {
			int n = e ? e - p : (int)strlen(p);

			snprintf(line, len, "%.*s", n < len ? n : len - 1, p);
			break;
		}
		p = e ? e + 1 : NULL;
	}
	return line;
}

int main(void)
{
	char out[4096], line[256], pidstr[16], buf[16];
	pid_t pid;
	bool ok;
	int rc;

	tap_init("cli");

	rc = cli(AS_ROOT, out, sizeof(out), "--help", NULL, NULL, NULL);
	tap_check(rc == 0 && has(out, "usage: stayawake"), "--help prints usage",
		  "exit %d", rc);
	check_refusals();

	/* Run a command marked: it sees itself boosted, and its status. */
	rc = cli(AS_ROOT, out, sizeof(out), "--", "/bin/sh", "-c",
		 "grep StayAwake /proc/$$/status; exit 7");
	tap_check(rc == 7 && has(out, "StayAwake:\tboosted"),
		  "COMMAND runs marked, its exit status passes through",
		  "exit %d: %s", rc, strtok(out, "\n"));

	/* -p PID on|off on an unmarked sleeper */
	pid = sleeper(false, 10);
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	rc = cli(AS_ROOT, out, sizeof(out), "-p", pidstr, "on", NULL);
	/* Marked in its alarm sleep: it deboosts at once (0027) */
	ok = wait_stayawake_state(pid, "deboosted");
	tap_check(rc == 0 && ok, "-p PID on marks the task",
		  "exit %d, StayAwake %s", rc,
		  proc_stayawake(pid, buf, sizeof(buf)));
	rc = cli(AS_ROOT, out, sizeof(out), "-p", pidstr, "off", NULL);
	tap_check(rc == 0 && !strcmp(proc_stayawake(pid, buf, sizeof(buf)),
				     "off"),
		  "-p PID off unmarks it", "exit %d, StayAwake %s", rc, buf);
	rc = cli(NO_CAP, out, sizeof(out), "-p", pidstr, "on", NULL);
	tap_check(rc == 1 && has(out, "needs CAP_BLOCK_SUSPEND") &&
		  !strcmp(proc_stayawake(pid, buf, sizeof(buf)), "off"),
		  "-p PID on without the capability changes nothing",
		  "exit %d, StayAwake %s", rc, buf);
	reap(pid);
	rc = cli(AS_ROOT, out, sizeof(out), "-p", pidstr, "on", NULL);
	tap_check(rc == 1 && has(out, "no such process"),
		  "-p on a dead pid: no such process", "exit %d: %s", rc,
		  strtok(out, "\n"));
	check_pid_cases();

	/* list, while a marked task sleeps on its alarm and then works */
	pid = sleeper(true, 3);
	rc = cli(AS_ROOT, out, sizeof(out), "list", NULL, NULL, NULL);
	list_line(out, pid, line, sizeof(line));
	tap_check(rc == 0 && has(line, "deboosted") &&
		  has(out, "0 keeping the system awake"),
		  "list: the sleeping task is deboosted", "exit %d: %s", rc,
		  line);
	for (rc = 0; rc < 1000 &&
	     strcmp(proc_stayawake(pid, buf, sizeof(buf)), "boosted"); rc++)
		usleep(10000);
	rc = cli(AS_ROOT, out, sizeof(out), "list", NULL, NULL, NULL);
	list_line(out, pid, line, sizeof(line));
	tap_check(rc == 0 && has(line, " boosted") &&
		  has(out, "1 keeping the system awake") &&
		  has(out, "stayawake source: active"),
		  "list: the working task is boosted, the source active",
		  "exit %d: %s", rc, line);
	reap(pid);
	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime of the mark: important tasks that exit while running, while
 * deboosted in an alarm sleep, while blocked elsewhere; multi-threaded
 * processes; fork children; exec. Afterwards the stayawake source is idle and
 * the system suspends.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

enum how { RUNNING, ALARM_SLEEP, PIPE_READ, THREADS };

static int ready[2];

static void say_ready(void)
{
	if (write(ready[1], "r", 1) != 1)
		_exit(3);
}

static void *marked_thread(void *arg)
{
	if (stayawake_mark(0, true))
		_exit(2);
	say_ready();
	for (;;)
		pause();
	return NULL;
}

static void child(enum how how)
{
	struct timespec ts = { .tv_sec = 3600 };
	pthread_t t;
	int p[2];
	char c;

	switch (how) {
	case RUNNING:
		if (stayawake_mark(0, true))
			_exit(2);
		say_ready();
		for (;;)
			;
	case ALARM_SLEEP:
		if (stayawake_mark(0, true))
			_exit(2);
		say_ready();
		clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
		_exit(4);
	case PIPE_READ:
		if (stayawake_mark(0, true) || pipe(p))
			_exit(2);
		say_ready();
		(void)!read(p[0], &c, 1);
		_exit(4);
	case THREADS:
		for (int i = 0; i < 3; i++)
			if (pthread_create(&t, NULL, marked_thread, NULL))
				_exit(2);
		for (;;)
			pause();
	}
}

/* Start a marked child; return once it is in the state we want it in. */
static pid_t start(enum how how, int marks)
{
	pid_t pid;
	char c;

	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		child(how);
	while (marks--)
		if (read(ready[0], &c, 1) != 1)
			tap_bail("child %d did not start", pid);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

/* Wait (up to 5 s) until the source reaches the wanted state. */
static bool source_becomes(bool active)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;

	while (stayawake_source_active() != active)
		if (clock_ns(CLOCK_MONOTONIC) > end)
			return false;
	return true;
}

static void exits(const char *what, enum how how, int marks, bool deboosted)
{
	bool before;
	pid_t pid = start(how, marks);

	before = source_becomes(!deboosted);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	tap_check(before && source_becomes(false), what, "source %s before the kill; %s",
		  deboosted ? "idle" : "active", stayawake_source_str());
}

static int fork_and_exec(const char *self)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		if (stayawake_mark(0, true))
			_exit(2);
		/* The fork child of a marked task is not marked ... */
		if (fork() == 0)
			_exit(sched_getscheduler(0) & SCHED_STAYAWAKE ? 5 : 0);
		wait(&st);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			_exit(6);
		/* ... and the mark survives exec, then exit drops it. */
		execl(self, self, "--exit-marked", (char *)NULL);
		_exit(3);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * A marked parent forks a child, then exits while the child lives on: the
 * child never held the system, so nothing holds it after the parent's exit.
 * The test is the children's subreaper, so it reaps the orphan itself.
 */
static void parent_exits(void)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	char psa[16] = "", csa[16] = "";
	pid_t parent, kid = -1;
	bool held, idle, alive;
	int p[2];

	if (pipe(p))
		tap_bail("pipe: %s", strerror(errno));
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	parent = fork();
	if (!parent) {
		if (stayawake_mark(0, true))
			_exit(2);
		kid = fork();
		if (!kid)
			for (;;)
				pause();
		if (write(p[1], &kid, sizeof(kid)) != sizeof(kid))
			_exit(3);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &kid, sizeof(kid)) != sizeof(kid))
		kid = -1;
	close(p[0]);
	while (strcmp(proc_stayawake(parent, psa, sizeof(psa)), "boosted") &&
	       clock_ns(CLOCK_MONOTONIC) < end)
		usleep(1000);
	if (kid > 0)
		proc_stayawake(kid, csa, sizeof(csa));
	held = stayawake_source_active();
	kill(parent, SIGKILL);
	waitpid(parent, NULL, 0);
	idle = source_becomes(false);
	alive = kid > 0 && kill(kid, 0) == 0;
	tap_check(kid > 0 && !strcmp(psa, "boosted") && !strcmp(csa, "off") &&
		  held && idle && alive,
		  "marked parent exits, its fork child lives: nothing held",
		  "parent's StayAwake: %s, child's: %s, held before the exit %s; "
		  "after it, child alive %s: %s", psa, csa, held ? "yes" : "no",
		  alive ? "yes" : "no",
		  stayawake_source_str());
	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int main(int argc, char **argv)
{
	struct alarm_suspend as;
	bool ok;
	int r;

	if (argc > 1 && !strcmp(argv[1], "--exit-marked"))
		return sched_getscheduler(0) & SCHED_STAYAWAKE ? 0 : 7;

	tap_init("lifetime");
	exits("exit while running drops the hold", RUNNING, 1, false);
	exits("exit while deboosted in an alarm sleep", ALARM_SLEEP, 1, true);
	exits("exit while blocked on a pipe drops the hold", PIPE_READ, 1, false);
	exits("multi-threaded process with 3 marked threads", THREADS, 3, false);

	/*
	 * Before any other fork of a marked task: a fork that leaked a hold
	 * would show here first.
	 */
	parent_exits();
	r = fork_and_exec(argv[0]);
	tap_check(r == 0 && source_becomes(false),
		  "fork child unmarked, exec keeps the mark, exit drops it",
		  "status %d; %s", r, stayawake_source_str());

	/* Traced, so that a failure shows which wakeup source stood in the way. */
	trace_clear();
	write_str("/sys/kernel/tracing/events/power/wakeup_source_activate/enable", "1");
	write_str("/sys/kernel/tracing/events/power/wakeup_source_deactivate/enable", "1");
	write_str("/sys/kernel/tracing/tracing_on", "1");
	ok = alarm_suspend(4, &as);
	write_str("/sys/kernel/tracing/tracing_on", "0");
	write_str("/sys/kernel/tracing/events/power/wakeup_source_activate/enable", "0");
	write_str("/sys/kernel/tracing/events/power/wakeup_source_deactivate/enable", "0");
	if (!tap_check(ok, "the system suspends afterwards",
		       "write: %s, success %ld->%ld, suspended %.2f s",
		       as.err ? strerror(-as.err) : "ok", as.success_before,
		       as.success_after, as.suspended_ns / 1e9)) {
		char line[256];
		FILE *f = fopen("/sys/kernel/tracing/trace", "r");

		while (f && fgets(line, sizeof(line), f))
			if (line[0] != '#')
				tap_diag("trace: %.*s", (int)strcspn(line, "\n"), line);
		if (f)
			fclose(f);
	}
	return tap_done();
}

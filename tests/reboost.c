// SPDX-License-Identifier: GPL-2.0
/*
 * Who reboosts a deboosted task: the waker, in its own context, before the
 * woken task runs. Witness: the task context that the power:wakeup_source_
 * activate trace event of "stayawake" was recorded in. For a signal it is the
 * sender; for an alarm (clock_nanosleep, timerfd) it is the timer interrupt,
 * not the sleeper itself.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define TR "/sys/kernel/tracing/"

static void on_usr1(int sig)
{
}

static void trace_start(void)
{
	write_str(TR "tracing_on", "0");
	trace_clear();
	write_str(TR "events/power/wakeup_source_activate/enable", "1");
	write_str(TR "tracing_on", "1");
}

/* pid of the context of the first "stayawake" activation; -1 if none. */
static int trace_stayawake_pid(void)
{
	FILE *f = fopen(TR "trace", "r");
	char line[512];
	int pid = -1;

	write_str(TR "tracing_on", "0");
	write_str(TR "events/power/wakeup_source_activate/enable", "0");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "wakeup_source_activate: stayawake ");
		char *dash;

		if (line[0] == '#' || !p)
			continue;
		/* "  comm-pid  [cpu] flags  time: event" */
		dash = strchr(line, '[');
		while (dash && dash > line && *dash != '-')
			dash--;
		if (dash && *dash == '-')
			pid = atoi(dash + 1);
		break;
	}
	if (f)
		fclose(f);
	return pid;
}

/* A marked child deboosted in an alarm wait, how = 0 nanosleep, 1 timerfd. */
static pid_t sleeper(int how, int secs)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		struct timespec ts = { .tv_sec = secs };
		struct itimerspec its = { .it_value = { .tv_sec = secs } };
		uint64_t ticks;
		int fd;

		signal(SIGUSR1, on_usr1);
		if (stayawake_mark(0, true))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		if (how == 0) {
			clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
		} else {
			fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
			timerfd_settime(fd, 0, &its, NULL);
			(void)!read(fd, &ticks, sizeof(ticks));
		}
		/* Boosted again: block where it stays boosted, until killed. */
		pause();
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		tap_bail("sleeper did not start");
	close(ready[0]);
	close(ready[1]);
	return pid;
}

static bool wait_source(bool active, int secs)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + secs * SEC_NS;

	while (stayawake_source_active() != active)
		if (clock_ns(CLOCK_MONOTONIC) > end)
			return false;
	return true;
}

static void by_signal(void)
{
	pid_t pid = sleeper(0, 3600);
	bool deb = wait_source(false, 5);
	int who;

	trace_start();
	kill(pid, SIGUSR1);
	tap_check(deb && wait_source(true, 5), "a signal reboosts the sleeper",
		  "%s", stayawake_source_str());
	who = trace_stayawake_pid();
	tap_check(who == getpid(), "... in the sender's context",
		  "activated by pid %d, sender %d, sleeper %d", who, getpid(), pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void by_alarm(const char *what, int how)
{
	pid_t pid = sleeper(how, 2);
	bool deb;
	int who;

	trace_start();
	deb = wait_source(false, 5);
	tap_check(deb && wait_source(true, 5), what, "%s", stayawake_source_str());
	who = trace_stayawake_pid();
	tap_check(who >= 0 && who != pid,
		  tap_case(what, "by the timer, not by the sleeper"),
		  "%s: activated in the context of pid %d, sleeper %d", what, who, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	tap_init("reboost");
	by_signal();
	by_alarm("the alarm reboosts a clock_nanosleep sleeper", 0);
	by_alarm("the alarm reboosts a timerfd reader", 1);
	tap_check(wait_source(false, 5), "stayawake source idle at the end", "%s",
		  stayawake_source_str());
	return tap_done();
}

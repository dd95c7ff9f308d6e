// SPDX-License-Identifier: GPL-2.0
/*
 * Marking a task that already waits on an alarm. A manager marks a task
 * that sleeps on an alarm clock or reads an alarm timerfd, or unmarks and
 * marks again one that waits deboosted: the task must deboost at once and
 * go on waiting, not hold the system awake for the rest of its wait (an
 * hour here). Witnesses: /proc's StayAwake: line and syscall, and an alarm
 * suspend while the marked sleeper waits.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

static pid_t main_pid, child;

static void kill_child(void)
{
	if (getpid() == main_pid && child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
}

/* An unmarked child waiting an hour on an alarm clock or alarm timerfd. */
static pid_t waiter(bool timerfd)
{
	long nr = timerfd ? SYS_read : SYS_clock_nanosleep;
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { .tv_sec = 3600 };
		struct itimerspec its = { .it_value = ts };
		uint64_t ticks;
		int fd;

		if (!timerfd) {
			clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
			_exit(0);
		}
		fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
		if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
			_exit(3);
		(void)!read(fd, &ticks, sizeof(ticks));
		_exit(0);
	}
	if (pid < 0 || !wait_blocked_in(pid, nr, 5))
		tap_bail("the waiter never blocked: %s", strerror(errno));
	return pid;
}

/* Deboosted and still in its wait: the wakeup that made it look again did
 * not end the wait. */
static void check_deboosted(pid_t pid, bool timerfd, const char *what)
{
	long nr = timerfd ? SYS_read : SYS_clock_nanosleep;
	bool deboosted = wait_stayawake_state(pid, "deboosted");
	bool waiting = wait_blocked_in(pid, nr, 1);
	char sa[32];

	tap_check(deboosted && waiting, what,
		  "StayAwake: %s, %s", proc_stayawake(pid, sa, sizeof(sa)),
		  waiting ? "still in its wait" : "left its wait");
}

int main(void)
{
	int err;

	tap_init("mark_asleep");
	main_pid = getpid();
	atexit(kill_child);

	child = waiter(false);
	err = stayawake_mark(child, true);
	if (err)
		tap_bail("marking %d: %s", child, strerror(errno));
	check_deboosted(child, false, "marked in an alarm sleep: deboosts and sleeps on");
	check_alarm_suspend("marked in an alarm sleep: an alarm suspend works", 3);

	if (stayawake_mark(child, false) || stayawake_mark(child, true))
		tap_bail("unmark and mark %d: %s", child, strerror(errno));
	check_deboosted(child, false,
			"unmarked and marked again in an alarm sleep: deboosts");
	kill_child();

	child = waiter(true);
	if (stayawake_mark(child, true))
		tap_bail("marking %d: %s", child, strerror(errno));
	check_deboosted(child, true,
			"marked while reading an alarm timerfd: deboosts and waits on");
	kill_child();
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * An alarm wait deboosts only while an alarm can wake the system. With the
 * RTC's power/wakeup turned off, no alarm wakes a suspended system: a
 * marked task that sleeps on an alarm clock or reads an alarm timerfd must
 * then stay boosted, and suspend be refused, or the system sleeps through
 * its deadline. A task that deboosted while the wakeup was on must refuse
 * suspend once it is turned off. Witnesses: /proc's StayAwake: line, the
 * refusal's sources and suspend_stats.
 *
 * A kernel that gets this wrong suspends with no wakeup armed: the guest
 * never wakes, and the host's timeout ends the run. So the suspend cases
 * are tried only when the cases before them passed.
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

#define WAKEUP "/sys/class/rtc/rtc0/device/power/wakeup"

static pid_t main_pid, children[2];

/* However the program ends, the RTC may wake the system again. */
static void restore(void)
{
	if (getpid() != main_pid)
		return;
	for (int i = 0; i < 2; i++)
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
		}
	write_str(WAKEUP, "enabled");
}

/* A marked child waiting an hour: on an alarm clock, or an alarm timerfd. */
static pid_t alarm_waiter(bool timerfd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { .tv_sec = 3600 };
		struct itimerspec its = { .it_value = ts };
		uint64_t ticks;
		int fd = -1;

		if (timerfd) {
			fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
			if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
				_exit(3);
		}
		if (stayawake_mark(0, true))
			_exit(2);
		if (timerfd)
			(void)!read(fd, &ticks, sizeof(ticks));
		else
			clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
		_exit(0);
	}
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!wait_blocked_in(pid, timerfd ? SYS_read : SYS_clock_nanosleep, 5))
		tap_bail("the %s waiter never blocked",
			 timerfd ? "timerfd" : "alarm sleep");
	return pid;
}

static void end_waiters(void)
{
	for (int i = 0; i < 2; i++) {
		kill(children[i], SIGKILL);
		waitpid(children[i], NULL, 0);
		children[i] = 0;
	}
}

/* The state of a waiter, checked as a case; true if it is @want. */
static bool waiter_state(pid_t pid, const char *what, const char *want)
{
	char sa[32];

	proc_stayawake(pid, sa, sizeof(sa));
	return tap_check(!strcmp(sa, want), what, "StayAwake: %s (want %s)",
			 sa, want);
}

int main(void)
{
	char line[32];
	long fail0, success0;
	bool ok;
	int err;

	tap_init("nowake");
	main_pid = getpid();
	atexit(restore);
	if (!read_line(WAKEUP, line, sizeof(line)) || strcmp(line, "enabled"))
		tap_bail("%s: %s, not enabled", WAKEUP,
			 read_line(WAKEUP, line, sizeof(line)) ? line : "missing");

	/* Wakeup off before the waits begin. */
	err = write_str(WAKEUP, "disabled");
	if (err)
		tap_bail("%s: %s", WAKEUP, strerror(-err));
	children[0] = alarm_waiter(false);
	children[1] = alarm_waiter(true);
	ok = waiter_state(children[0], "wakeup off: an alarm sleeper stays boosted",
			  "boosted");
	ok &= waiter_state(children[1],
			   "wakeup off: an alarm timerfd reader stays boosted",
			   "boosted");
	if (ok)
		check_suspend_refused("wakeup off: suspend is refused while they wait");
	else
		tap_check(false, "wakeup off: suspend is refused while they wait",
			  "not tried: a deboosted waiter would let the system "
			  "sleep with no wakeup armed");
	end_waiters();

	/* Wakeup on as they deboost, off while they wait. */
	write_str(WAKEUP, "enabled");
	children[0] = alarm_waiter(false);
	children[1] = alarm_waiter(true);
	ok = waiter_state(children[0], "wakeup on: an alarm sleeper deboosts",
			  "deboosted");
	ok &= waiter_state(children[1], "wakeup on: an alarm timerfd reader deboosts",
			   "deboosted");
	write_str(WAKEUP, "disabled");
	wait_sources_idle();
	fail0 = read_long("/sys/power/suspend_stats/fail");
	success0 = suspend_success();
	err = ok ? write_str("/sys/power/state", "mem") : 0;
	tap_check(ok && err == -EBUSY && suspend_success() == success0 &&
		  read_long("/sys/power/suspend_stats/fail") == fail0 + 1,
		  "wakeup turned off while they wait deboosted: suspend refused",
		  "write mem: %s, success %ld->%ld, fail %ld->%ld", !ok ?
		  "not tried" : err ? strerror(-err) : "ok (slept)", success0,
		  suspend_success(), fail0,
		  read_long("/sys/power/suspend_stats/fail"));
	end_waiters();

	/* And with the wakeup on again, an alarm suspend works. */
	write_str(WAKEUP, "enabled");
	check_alarm_suspend("wakeup on again: an alarm suspend works", 3);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A wakeup event that begins and ends while a slow device suspends must
 * still refuse the suspend while a SCHED_STAYAWAKE task waits deboosted.
 *
 * Such a task makes a plain write of "mem" refuse wakeup events as the
 * wakeup_count protocol would. The kernel looks between the phases of the
 * suspend; an event that came and went inside one long device callback is
 * gone by the next look, and one that only counts events in progress lets
 * the system sleep. The RTC's interrupt is such an event: its holds last
 * until the rtc core's work has run, a few milliseconds.
 *
 * No device here is that slow: the test kernel's
 * /sys/kernel/debug/sched/stayawake_suspend_delay_ms
 * (CONFIG_SCHED_STAYAWAKE_DEBUG) waits after the devices' suspend as one
 * would. A marked task sleeps on the alarm clock until 12 s; an RTC alarm
 * fires 3 s into a 6 s wait. Witnesses: the RTC's interrupt count,
 * suspend_stats, BOOTTIME against MONOTONIC. A kernel that misses the event
 * sleeps until the marked task's alarm, 6 s later.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define DELAY_KNOB "/sys/kernel/debug/sched/stayawake_suspend_delay_ms"
#define DELAY_MS "6000"
#define RTC_S 3
#define SLEEPER_S 12

static pid_t main_pid, sleeper;

static void cleanup(void)
{
	if (getpid() != main_pid)
		return;
	write_str(DELAY_KNOB, "0");
	rtc_disarm_alarm();
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
		sleeper = 0;
	}
}

int main(void)
{
	struct clock_pair a, b;
	int64_t deadline, woke = 0;
	long s0, s1, irq0, irq1;
	int fd[2], err;

	tap_init("brief_event");
	main_pid = getpid();
	atexit(cleanup);
	if (pipe(fd))
		tap_bail("pipe: %s", strerror(errno));
	if (write_str(DELAY_KNOB, DELAY_MS))
		tap_bail("%s: %s (CONFIG_SCHED_STAYAWAKE_DEBUG?)", DELAY_KNOB,
			 strerror(errno));

	deadline = clock_ns(CLOCK_BOOTTIME) + SLEEPER_S * SEC_NS;
	sleeper = alarm_sleeper(true, deadline, fd[1]);
	if (sleeper < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!wait_blocked_in(sleeper, SYS_clock_nanosleep, 5) ||
	    !wait_stayawake_state(sleeper, "deboosted"))
		tap_bail("the marked sleeper never waited deboosted");
	wait_sources_idle();

	irq0 = rtc_irqs();
	s0 = suspend_success();
	err = rtc_arm_alarm(RTC_S);
	if (err)
		tap_bail("arming the RTC alarm: %s", strerror(-err));
	clock_pair_read(&a);
	err = write_str("/sys/power/state", "mem");
	clock_pair_read(&b);
	s1 = suspend_success();
	irq1 = rtc_irqs();

	/* Else the refusal below could come from anything but the event */
	tap_check(irq1 > irq0 && b.mono - a.mono > RTC_S * SEC_NS,
		  "the RTC interrupt came while the devices were suspended",
		  "RTC interrupts %ld->%ld, the write took %.2f s awake",
		  irq0, irq1, (b.mono - a.mono) / 1e9);
	tap_check(err == -EBUSY && s1 == s0,
		  "the event that came and went refused the suspend",
		  "write: %s, success %ld->%ld", err ? strerror(-err) : "ok",
		  s0, s1);
	tap_check(clock_pair_suspended_ns(&a, &b) < SEC_NS,
		  "the system did not sleep",
		  "suspended %.2f s", clock_pair_suspended_ns(&a, &b) / 1e9);

	write_str(DELAY_KNOB, "0");
	if (read(fd[0], &woke, sizeof(woke)) != sizeof(woke))
		woke = 0;
	waitpid(sleeper, NULL, 0);
	sleeper = 0;
	tap_check(woke && woke - deadline < SEC_NS / 2,
		  "the marked sleeper woke on time",
		  "%.2f s after its deadline", (woke - deadline) / 1e9);
	return tap_done();
}

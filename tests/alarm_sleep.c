// SPDX-License-Identifier: GPL-2.0
/*
 * The RFC's scenario, automated: an important task sleeps on an alarm clock
 * while another process requests suspend in a loop. The system suspends
 * during the sleep, the alarm wakes it, and during the following work window
 * (busy loop and CLOCK_MONOTONIC sleeps) no suspend happens although it is
 * requested all the time. Once with clock_nanosleep(CLOCK_BOOTTIME_ALARM),
 * once with a blocking read() of a CLOCK_BOOTTIME_ALARM timerfd.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define SLEEP_S 6
#define WORK_S 3

static int alarm_wait(bool use_timerfd)
{
	struct timespec ts = { .tv_sec = SLEEP_S };
	struct itimerspec its = { .it_value = { .tv_sec = SLEEP_S } };
	uint64_t ticks;
	int fd, err = 0;

	if (!use_timerfd)
		return clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	if (fd < 0)
		return errno;
	if (timerfd_settime(fd, 0, &its, NULL) ||
	    read(fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		err = errno;
	close(fd);
	return err;
}

static void cycle(const char *how, bool use_timerfd)
{
	struct clock_pair c0, c1;
	long s0, s1, s2, refused, other;
	int64_t slept, elapsed;
	struct suspender sus;
	int err;

	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	suspender_start(&sus);

	s0 = suspend_success();
	clock_pair_read(&c0);
	err = alarm_wait(use_timerfd);
	clock_pair_read(&c1);
	refused = suspender_work_window(&sus, WORK_S, &s1, &s2);
	other = sus.n->other;

	/* Stop the suspender while still marked: nothing may suspend now. */
	suspender_stop(&sus);
	stayawake_mark(0, false);

	slept = clock_pair_suspended_ns(&c0, &c1);
	elapsed = c1.boot - c0.boot;
	tap_diag("%s: sleep returned %d", how, err);
	tap_check(!err && s1 >= s0 + 1,
		  tap_case(how, "suspended during the alarm sleep"),
		  "%s: success %ld->%ld", how, s0, s1);
	tap_check(slept >= (SLEEP_S - 2) * SEC_NS,
		  tap_case(how, "BOOTTIME ran ahead of MONOTONIC during the sleep"),
		  "%s: suspended %.2f s of %d s", how, slept / 1e9, SLEEP_S);
	tap_check(elapsed >= SLEEP_S * SEC_NS && elapsed <= (SLEEP_S + 2) * SEC_NS,
		  tap_case(how, "alarm woke the task by its deadline + 2 s"),
		  "%s: slept %.2f s of %d s (BOOTTIME)", how, elapsed / 1e9, SLEEP_S);
	tap_check(s2 == s1 && refused > 0,
		  tap_case(how, "no suspend in the work window"),
		  "%s: success %ld->%ld while %ld requests were refused, %ld failed otherwise",
		  how, s1, s2, refused, other);
}

int main(void)
{
	tap_init("alarm_sleep");

	cycle("clock_nanosleep", false);
	cycle("timerfd read", true);

	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}

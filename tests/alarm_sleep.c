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
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define SLEEP_S 6
#define WORK_S 3

struct shared {
	long requests;	/* suspend requests refused with EBUSY */
	long other;	/* requests that failed otherwise */
	long suspends;	/* requests that returned 0: suspended and resumed */
};

static struct shared *sh;

static void suspender(void)
{
	for (;;) {
		int err = write_str("/sys/power/state", "mem");

		if (!err)
			__atomic_add_fetch(&sh->suspends, 1, __ATOMIC_RELAXED);
		else if (err == -EBUSY)
			__atomic_add_fetch(&sh->requests, 1, __ATOMIC_RELAXED);
		else if (err)
			__atomic_add_fetch(&sh->other, 1, __ATOMIC_RELAXED);
	}
}

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

static void work_window(void)
{
	struct timespec nap = { .tv_nsec = 100 * 1000 * 1000 };
	int64_t end = clock_ns(CLOCK_MONOTONIC) + WORK_S * SEC_NS;

	while (clock_ns(CLOCK_MONOTONIC) < end) {
		int64_t spin = clock_ns(CLOCK_MONOTONIC) + 50 * 1000 * 1000;

		while (clock_ns(CLOCK_MONOTONIC) < spin)
			;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
	}
}

/*
 * suspend_stats/success counts a suspend only once pm_suspend() returns, after
 * the thaw, so the woken task may run first: wait for the suspender's write
 * to return (up to 10 s) before reading it.
 */
static void wait_suspender_returned(void)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 10 * SEC_NS;

	while (!__atomic_load_n(&sh->suspends, __ATOMIC_RELAXED) &&
	       clock_ns(CLOCK_MONOTONIC) < end)
		sched_yield();
}

static void cycle(const char *how, bool use_timerfd)
{
	struct clock_pair c0, c1;
	long s0, s1, s2, r1, r2;
	int64_t slept, elapsed;
	pid_t sus;
	int err;

	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	memset(sh, 0, sizeof(*sh));
	sus = fork();
	if (sus == 0) {
		suspender();
		_exit(0);
	}

	s0 = suspend_success();
	clock_pair_read(&c0);
	err = alarm_wait(use_timerfd);
	clock_pair_read(&c1);
	wait_suspender_returned();
	s1 = suspend_success();
	r1 = __atomic_load_n(&sh->requests, __ATOMIC_RELAXED);
	work_window();
	s2 = suspend_success();
	r2 = __atomic_load_n(&sh->requests, __ATOMIC_RELAXED);

	/* Stop the suspender while still marked: nothing may suspend now. */
	kill(sus, SIGKILL);
	waitpid(sus, NULL, 0);
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
	tap_check(s2 == s1 && r2 > r1,
		  tap_case(how, "no suspend in the work window"),
		  "%s: success %ld->%ld while %ld requests were refused, %ld failed otherwise",
		  how, s1, s2, r2 - r1, sh->other);
}

int main(void)
{
	tap_init("alarm_sleep");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));

	cycle("clock_nanosleep", false);
	cycle("timerfd read", true);

	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}

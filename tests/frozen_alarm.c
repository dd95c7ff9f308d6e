// SPDX-License-Identifier: GPL-2.0
/*
 * frozen_alarm: an alarm that fires after the freezer has frozen its sleeper
 * must not be slept through.
 *
 * Alarm sleeps are freezable in this series: the freezer freezes the sleeper
 * in place and its alarm stays queued for alarmtimer_suspend(). If that alarm
 * fires while the freezer still waits for another task, the wakeup reaches a
 * frozen task and the alarm leaves the queue; alarmtimer_suspend() then sees
 * nothing to program and the system would sleep until some other wakeup.
 * (Mainline kicks the sleeper out and remembers its expiry in freezer_delta.)
 *
 * The window is widened on purpose: a task mlock()s enough memory that the
 * freezer waits for it (mlock() minds only fatal signals), and the
 * sleeper's alarm fires meanwhile. An
 * RTC alarm 12 s out is the safety net, so a kernel with the hole fails the
 * case instead of hanging. Run once with an unmarked sleeper and once with a
 * SCHED_STAYAWAKE one.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define SAFETY_S 12
#define HOLDUP_MB 512
/* Shorter than this, the window is too narrow to aim an alarm into. */
#define HOLDUP_MIN_NS (300 * 1000 * 1000LL)

/* Time to mlock() @mb MiB of fresh anonymous memory, in ns; -1 on error. */
static int64_t mlock_ns(size_t mb)
{
	size_t len = mb << 20;
	int64_t t0;
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return -1;
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (mlock(p, len)) {
		munmap(p, len);
		return -1;
	}
	t0 = clock_ns(CLOCK_MONOTONIC) - t0;
	munmap(p, len);
	return t0;
}

/* Sleep until @deadline (BOOTTIME) on the alarm clock; write the wake time. */
static pid_t sleeper(bool marked, int64_t deadline, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { deadline / SEC_NS, deadline % SEC_NS };
		int64_t woke;

		if (marked && stayawake_mark(0, true))
			_exit(2);
		while (clock_nanosleep(CLOCK_BOOTTIME_ALARM, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		woke = clock_ns(CLOCK_BOOTTIME);
		if (write(fd, &woke, sizeof(woke)) != sizeof(woke))
			_exit(3);
		_exit(0);
	}
	return pid;
}

static pid_t holdup(size_t mb)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(mlock_ns(mb) < 0);
	return pid;
}

static void one(bool marked, size_t mb, int64_t lock_ns)
{
	const char *who = marked ? "marked" : "unmarked";
	struct clock_pair a, b;
	int64_t deadline, woke = 0, ret_b;
	int fd[2], err, status;
	pid_t s, h;

	if (pipe(fd))
		tap_bail("pipe: %s", strerror(errno));
	wait_sources_idle();
	/*
	 * The mlock() starts first; the suspend attempt (and so the freezer)
	 * starts ~40 ms later and waits for it; the sleeper's alarm fires a
	 * third of the way through it, when the sleeper is long frozen.
	 */
	h = holdup(mb);
	usleep(20000);
	deadline = clock_ns(CLOCK_BOOTTIME) + lock_ns / 3;
	s = sleeper(marked, deadline, fd[1]);
	usleep(20000);
	err = rtc_arm_alarm(SAFETY_S);
	if (err)
		tap_bail("arming the safety RTC alarm: %s", strerror(-err));
	clock_pair_read(&a);
	err = write_str("/sys/power/state", "mem");
	clock_pair_read(&b);
	ret_b = b.boot;
	waitpid(h, &status, 0);
	if (read(fd[0], &woke, sizeof(woke)) != sizeof(woke))
		woke = 0;
	waitpid(s, NULL, 0);
	close(fd[0]);
	close(fd[1]);

	tap_diag("%s: alarm %.2f s into the attempt, state write %s after %.2f s, "
		 "suspended %.2f s, sleeper woke %.2f s after the write returned",
		 who, (deadline - a.boot) / 1e9, err ? strerror(-err) : "ok",
		 (ret_b - a.boot) / 1e9, clock_pair_suspended_ns(&a, &b) / 1e9,
		 (woke - ret_b) / 1e9);
	/* Else the cases below would pass without the window ever opening. */
	tap_check(WIFEXITED(status) && !WEXITSTATUS(status) && deadline < ret_b,
		  marked ? "marked: the alarm fired inside the suspend attempt" :
			   "unmarked: the alarm fired inside the suspend attempt",
		  "%.2f s into it, which ended after %.2f s", (deadline - a.boot) / 1e9,
		  (ret_b - a.boot) / 1e9);
	tap_check(clock_pair_suspended_ns(&a, &b) < SEC_NS,
		  marked ? "marked: the system did not sleep through its fired alarm" :
			   "unmarked: the system did not sleep through its fired alarm",
		  "suspended %.2f s (the safety alarm was %d s out)",
		  clock_pair_suspended_ns(&a, &b) / 1e9, SAFETY_S);
	tap_check(woke && woke - ret_b < SEC_NS,
		  marked ? "marked: the sleeper ran as soon as the attempt ended" :
			   "unmarked: the sleeper ran as soon as the attempt ended",
		  "%.2f s after", (woke - ret_b) / 1e9);
}

int main(void)
{
	struct alarm_suspend as;
	int64_t ns;

	tap_init("frozen_alarm");
	/* Once to have the host back the guest's pages, then measure. */
	mlock_ns(HOLDUP_MB);
	ns = mlock_ns(HOLDUP_MB);
	if (ns < 0)
		tap_bail("mlock of %d MiB: %s", HOLDUP_MB, strerror(errno));
	tap_diag("mlock() of %d MiB takes %.2f s here", HOLDUP_MB, ns / 1e9);
	if (ns < HOLDUP_MIN_NS) {
		tap_skip("the freezer cannot be held up long enough",
			 "mlock() too fast");
		return tap_done();
	}

	one(false, HOLDUP_MB, ns);
	one(true, HOLDUP_MB, ns);

	/* And nothing is left behind: an alarm suspend works. */
	wait_sources_idle();
	alarm_suspend(3, &as);
	tap_check(as.ok && as.suspended_ns > SEC_NS,
		  "an alarm suspend still works afterwards",
		  "write %s, suspended %.2f s", as.err ? strerror(-as.err) : "ok",
		  as.suspended_ns / 1e9);
	return tap_done();
}

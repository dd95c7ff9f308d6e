// SPDX-License-Identifier: GPL-2.0
/*
 * The RTC's driver is unbound and bound again 100 times while /dev/rtc0 is
 * held open with an alarm armed: nothing leaks, and afterwards an alarm
 * still wakes the system for a SCHED_STAYAWAKE task.
 *
 * The alarm timers adopt one RTC and program it at every suspend. Once its
 * driver is unbound that rtc device is dead (the open file keeps it), and
 * the next bind registers a new one; alarm timers that kept the dead one
 * fail every suspend while an alarm is queued, or sleep through it. The
 * kernel's checkers (the debug kernel's KASAN and lockdep) judge the
 * unbinds with a file open; the test checks what is left: wakeup sources
 * back to their number, none active, and a marked task's alarm sleep that
 * suspends the system and wakes it on time. A safety RTC alarm, further
 * out, keeps a kernel that programs no alarm from sleeping for good.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/rtc.h>

#include "lib.h"

#define ROUNDS 100
#define SLEEP_S 5
#define SAFETY_S 12

static struct rtc_binding rtc;
static pid_t main_pid, sleeper;

/* The rtc class device of our RTC now ("rtcN"), "" if none. */
static const char *current_rtc(void)
{
	static char name[256];
	DIR *d = opendir("/sys/class/rtc");
	struct dirent *e;

	name[0] = 0;
	while (d && (e = readdir(d))) {
		char path[PATH_MAX], link[PATH_MAX];
		ssize_t len;

		snprintf(path, sizeof(path), "/sys/class/rtc/%s/device",
			 e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = 0;
		if (!strcmp(basename(link), rtc.dev))
			snprintf(name, sizeof(name), "%s", e->d_name);
	}
	if (d)
		closedir(d);
	return name;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return d ? n : -1;
}

static void cleanup(void)
{
	if (getpid() != main_pid || !rtc.dev[0])
		return;
	if (!rtc_bound(&rtc))
		rtc_binding_write(&rtc, "bind");
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
		sleeper = 0;
	}
}

/* Arm the RTC behind @fd one hour out. */
static int arm_hour(int fd)
{
	struct rtc_wkalrm alm = { .enabled = 1 };
	struct tm tm = { 0 };
	time_t t;

	if (ioctl(fd, RTC_RD_TIME, &alm.time))
		return -errno;
	memcpy(&tm, &alm.time, sizeof(alm.time));
	t = timegm(&tm) + 3600;
	gmtime_r(&t, &tm);
	memcpy(&alm.time, &tm, sizeof(alm.time));
	return ioctl(fd, RTC_WKALM_SET, &alm) ? -errno : 0;
}

int main(void)
{
	int i, fd, err, bad = 0, first_bad = -1, base, after, p[2];
	char safety[PATH_MAX], secs[32];
	int64_t deadline, woke = 0;
	struct clock_pair a, b;
	long s0, s1;

	tap_init("rebind");
	main_pid = getpid();
	if (!rtc_binding_get(&rtc))
		tap_bail("rtc0's device or driver: %s", strerror(errno));
	atexit(cleanup);
	base = count_entries("/sys/class/wakeup");
	fd = open("/dev/rtc0", O_RDONLY);
	if (fd < 0)
		tap_bail("/dev/rtc0: %s", strerror(errno));
	err = arm_hour(fd);
	if (err)
		tap_bail("arming /dev/rtc0 an hour out: %s", strerror(-err));

	for (i = 0; i < ROUNDS; i++) {
		err = rtc_binding_write(&rtc, "unbind");
		if (!err)
			err = rtc_binding_write(&rtc, "bind");
		if (err || !rtc_bound(&rtc) || !current_rtc()[0]) {
			bad++;
			if (first_bad < 0) {
				first_bad = i;
				tap_diag("round %d: %s, bound %d, rtc '%s'", i,
					 strerror(-err), rtc_bound(&rtc), current_rtc());
			}
			if (!rtc_bound(&rtc))
				rtc_binding_write(&rtc, "bind");
		}
	}
	tap_diag("%s with /dev/rtc0 open after %d rebinds", current_rtc(), i);
	close(fd);
	tap_check(!bad, "every unbind and bind worked",
		  "%d of %d rounds failed, the first round %d", bad, ROUNDS,
		  first_bad);
	/* Nothing holds the old rtc devices now: the next bind is rtc0 */
	err = rtc_binding_write(&rtc, "unbind");
	if (!err)
		err = rtc_binding_write(&rtc, "bind");
	tap_check(!err && !strcmp(current_rtc(), "rtc0"),
		  "with the file closed, one more bind is rtc0 again",
		  "%s, the RTC is '%s'", err ? strerror(-err) : "bound",
		  current_rtc());
	after = count_entries("/sys/class/wakeup");
	tap_check(after == base, "as many wakeup sources as before",
		  "%d in /sys/class/wakeup, %d before", after, base);
	wait_sources_idle();
	tap_check(!strcmp(active_sources(), "none"),
		  "no wakeup source left active", "active: %s",
		  active_sources());

	/* The decisive case: the alarm timers use the RTC bound now. */
	if (pipe(p))
		tap_bail("pipe: %s", strerror(errno));
	deadline = clock_ns(CLOCK_BOOTTIME) + SLEEP_S * SEC_NS;
	sleeper = alarm_sleeper(true, deadline, p[1]);
	if (sleeper < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!wait_blocked_in(sleeper, SYS_clock_nanosleep, 5) ||
	    !wait_stayawake_state(sleeper, "deboosted"))
		tap_diag("the marked sleeper was not waiting deboosted");
	snprintf(safety, sizeof(safety), "/sys/class/rtc/%s/wakealarm",
		 current_rtc());
	snprintf(secs, sizeof(secs), "+%d", SAFETY_S);
	write_str(safety, "0");
	write_str(safety, secs);
	s0 = suspend_success();
	clock_pair_read(&a);
	err = write_str("/sys/power/state", "mem");
	clock_pair_read(&b);
	s1 = suspend_success();
	write_str(safety, "0");
	if (read(p[0], &woke, sizeof(woke)) != sizeof(woke))
		woke = 0;
	waitpid(sleeper, NULL, 0);
	sleeper = 0;
	tap_check(!err && s1 == s0 + 1 &&
		  clock_pair_suspended_ns(&a, &b) > 2 * SEC_NS,
		  "a marked task's alarm sleep suspends the system",
		  "write: %s, success %ld->%ld, suspended %.2f s",
		  err ? strerror(-err) : "ok", s0, s1,
		  clock_pair_suspended_ns(&a, &b) / 1e9);
	tap_check(woke && woke - deadline < SEC_NS,
		  "its alarm woke the system on time",
		  "%.2f s after its deadline (safety alarm %d s)",
		  (woke - deadline) / 1e9, SAFETY_S);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The RTC driver binds cleanly or fails cleanly wherever a slab allocation
 * fails: the PL031 probe's error paths (a failed devm_kzalloc() before the
 * wakeup source exists among them) and rtc-cmos's alike.
 *
 * The RTC's device is unbound from its driver and bound again once per
 * allocation on the bind path: /proc/thread-self/fail-nth makes the n-th
 * fault-injection point of this task fail (CONFIG_FAILSLAB, with
 * ignore-gfp-wait off so GFP_KERNEL allocations count), n = 1, 2, ... until
 * a bind passes them all. The kernel's checkers judge each failure (the
 * host verdict reads the console; KASAN and lockdep on the debug kernel);
 * the test checks what each failure left: an error, an unbound device,
 * then a clean bind as rtc0 with no id leaked, no wakeup source left
 * active, and an RTC alarm that still wakes the system.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib.h"

#define FAILSLAB "/sys/kernel/debug/failslab/"
#define MAX_N 400

static struct rtc_binding rtc;
static pid_t main_pid;

/* However it ends, the RTC is left bound and injection off. */
static void cleanup(void)
{
	if (getpid() != main_pid || !rtc.dev[0])
		return;
	write_str("/proc/thread-self/fail-nth", "0");
	if (!rtc_bound(&rtc))
		rtc_binding_write(&rtc, "bind");
}

/* Bind with the @n-th injection point failing; -errno or 0, *hit if used. */
static int bind_nth(int n, bool *hit)
{
	char path[PATH_MAX + 16], num[16];
	int fd, nth, err = 0;
	ssize_t got;

	snprintf(path, sizeof(path), "%s/bind", rtc.drv);
	fd = open(path, O_WRONLY);
	nth = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0 || nth < 0)
		tap_bail("open %s or fail-nth: %s", path, strerror(errno));
	snprintf(num, sizeof(num), "%d", n);
	if (write(nth, num, strlen(num)) < 0)
		tap_bail("fail-nth: %s", strerror(errno));
	if (write(fd, rtc.dev, strlen(rtc.dev)) < 0)
		err = -errno;
	/* 0: the failure was injected; else how many points were left */
	got = pread(nth, num, sizeof(num) - 1, 0);
	num[got > 0 ? got : 0] = 0;
	*hit = got > 0 && atoi(num) == 0;
	if (write(nth, "0", 1) < 0)
		tap_bail("fail-nth: %s", strerror(errno));
	close(nth);
	close(fd);
	return err;
}

int main(void)
{
	int n, injected = 0, failed = 0, survived = 0, left_bound = 0;
	int first_err = 0, last_err = 0, clean = -1;
	bool hit;

	tap_init("probe_fault");
	main_pid = getpid();
	if (!rtc_binding_get(&rtc))
		tap_bail("rtc0's device or driver: %s", strerror(errno));
	atexit(cleanup);
	if (write_str(FAILSLAB "ignore-gfp-wait", "N") ||
	    write_str(FAILSLAB "verbose", "0"))
		tap_bail("%s: %s (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS?)",
			 FAILSLAB, strerror(errno));
	tap_diag("device %s, driver %s", rtc.dev, rtc.drv);

	if (rtc_binding_write(&rtc, "unbind") || rtc_bound(&rtc))
		tap_bail("unbinding %s: %s", rtc.dev, strerror(errno));
	for (n = 1; n <= MAX_N; n++) {
		int err = bind_nth(n, &hit);

		if (!hit) {
			/* Every point passed: the bind path has n - 1 */
			clean = err;
			break;
		}
		injected++;
		if (err) {
			failed++;
			if (!first_err)
				first_err = err;
			last_err = err;
			if (rtc_bound(&rtc))
				left_bound++;
		} else {
			survived++;
		}
		if (rtc_bound(&rtc) && rtc_binding_write(&rtc, "unbind"))
			tap_bail("unbinding %s after point %d: %s", rtc.dev, n,
				 strerror(errno));
	}
	write_str(FAILSLAB "ignore-gfp-wait", "Y");

	tap_check(injected >= 3 && failed > 0,
		  "allocation failures were injected along the bind",
		  "%d points, %d failed the bind (first %s, last %s), %d survived",
		  injected, failed, strerror(-first_err), strerror(-last_err),
		  survived);
	tap_check(!left_bound, "every failed bind left the device unbound",
		  "%d left it bound", left_bound);
	tap_check(clean == 0 && rtc_bound(&rtc),
		  "past the last point the bind succeeds",
		  "bind: %s after %d points", clean < 0 ? strerror(-clean) :
		  clean ? "not reached" : "ok", injected);
	tap_check(!access("/sys/class/rtc/rtc0", F_OK) &&
		  access("/sys/class/rtc/rtc1", F_OK),
		  "the RTC is rtc0 again: no device or id leaked",
		  "rtc0 %s, rtc1 %s",
		  access("/sys/class/rtc/rtc0", F_OK) ? "missing" : "present",
		  access("/sys/class/rtc/rtc1", F_OK) ? "absent" : "present");
	wait_sources_idle();
	tap_check(!strcmp(active_sources(), "none"),
		  "no wakeup source was left active", "active: %s",
		  active_sources());
	check_alarm_suspend("an RTC alarm suspend still works", 3);
	return tap_done();
}

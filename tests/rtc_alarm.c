// SPDX-License-Identifier: GPL-2.0
/*
 * RTC alarm round trip: arm the RTC wake alarm, write "mem" to
 * /sys/power/state, and prove from the kernel's own witnesses that the system
 * really suspended and that the RTC alarm woke it.
 */
#include <stdio.h>
#include <string.h>

#include "lib.h"

#define DELAY_S 6

/* Resumes counted by timekeeping: the sum of the sleep_time histogram. */
static long timekeeping_suspends(void)
{
	FILE *f = fopen("/sys/kernel/debug/sleep_time", "r");
	unsigned int lo, hi, n;
	char line[128];
	long sum = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u - %u %u", &lo, &hi, &n) == 3)
			sum += n;
	fclose(f);
	return sum;
}

int main(void)
{
	struct wakeup_stat w0 = { 0 }, w1 = { 0 };
	struct clock_pair c0, c1;
	long s0, s1, tk0, tk1;
	int64_t slept, awake;
	char src[128];
	int err;

	tap_init("rtc_alarm");

	if (rtc_parent_name("rtc0", src, sizeof(src)))
		tap_bail("no /sys/class/rtc/rtc0/device");
	if (!wakeup_stat(src, &w0))
		tap_bail("RTC device %s has no wakeup source", src);
	tap_diag("mem_sleep default, RTC %s, alarm in %d s", src, DELAY_S);

	s0 = suspend_success();
	tk0 = timekeeping_suspends();
	clock_pair_read(&c0);
	err = rtc_arm_alarm(DELAY_S);
	if (err)
		tap_bail("RTC_WKALM_SET: %s", strerror(-err));

	err = write_str("/sys/power/state", "mem");

	clock_pair_read(&c1);
	s1 = suspend_success();
	tk1 = timekeeping_suspends();
	wakeup_stat(src, &w1);
	slept = clock_pair_suspended_ns(&c0, &c1);

	tap_check(err == 0, "write mem to /sys/power/state", "%s",
		  err ? strerror(-err) : "returned after resume");
	tap_check(s1 == s0 + 1, "suspend_stats/success went up by one",
		  "success %ld->%ld", s0, s1);
	/*
	 * Asleep from the end of the suspend entry to the RTC's wakeup (up to
	 * a second early); the entry and the resume count as awake time, and
	 * take over a second on a debug kernel. Where timekeeping measures
	 * the sleep with a persistent clock of whole seconds (x86's CMOS),
	 * the slept time itself may read up to a second short.
	 */
	awake = (c1.mono - c0.mono);
	tap_check(awake < 3 * SEC_NS &&
		  slept + awake >= (DELAY_S - 2) * SEC_NS,
		  "BOOTTIME ran ahead of MONOTONIC by the alarm delay",
		  "suspended %.2f s of %d s, %.2f s awake entering and leaving",
		  slept / 1e9, DELAY_S, awake / 1e9);
	tap_check(w1.event_count > w0.event_count, "RTC wakeup source counted the wake",
		  "%s event_count %lu->%lu wakeup_count %lu->%lu", src,
		  w0.event_count, w1.event_count, w0.wakeup_count,
		  w1.wakeup_count);
	tap_check(tk1 == tk0 + 1, "timekeeping was suspended once",
		  "sleep_time entries %ld->%ld", tk0, tk1);
	return tap_done();
}

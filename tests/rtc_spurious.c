// SPDX-License-Identifier: GPL-2.0
/*
 * A spurious RTC interrupt (no alarm pending) is no wakeup event: the
 * driver's hold (pl031_alarm, rtc_cmos: /etc/platform's rtc_hold) must not
 * be activated, nothing may be left held, and a suspend that user space
 * armed through /sys/power/wakeup_count (autosleep, a suspend daemon) must
 * still go ahead.
 *
 * The interrupt is injected with the kernel's own mechanism, "trigger" in
 * /sys/kernel/debug/irq/irqs/N (CONFIG_GENERIC_IRQ_DEBUGFS): the GIC makes
 * the PL031's line pending, the IO-APIC resends the CMOS RTC's vector. The
 * x86_64 guest boots with hpet=disable so that IRQ 8 reaches rtc-cmos's
 * own handler, not the HPET's RTC emulation. Witnesses: the interrupt count
 * in /proc/interrupts, the source's counters in wakeup_sources,
 * suspend_stats and the clocks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

static const char *const cases[] = {
	"the spurious interrupts reached the handler",
	"they were no wakeup event: the RTC driver's hold never activated",
	"no hold left behind",
	"a suspend armed through wakeup_count still goes ahead",
};

static char irq_name[64], trigger[96];

/*
 * Inject one interrupt and wait (up to 1 s) for the handler to be entered;
 * false if it was not. Injection waits for the previous one's handler, so
 * whatever the first did to the source is visible once the second ran.
 */
static bool inject(void)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + SEC_NS;
	long i0 = irq_count(irq_name), i;

	if (write_str(trigger, "trigger"))
		return false;
	while ((i = irq_count(irq_name)) == i0 &&
	       clock_ns(CLOCK_MONOTONIC) < end)
		;
	return i == i0 + 1;
}

static int inject_two(void)
{
	return inject() + inject();
}

int main(void)
{
	struct wakeup_stat w0 = { 0 }, w1 = { 0 }, w2 = { 0 };
	char hold[64], count[32];
	struct alarm_suspend as;
	bool armed;
	int irq, got;

	tap_init("rtc_spurious");
	snprintf(irq_name, sizeof(irq_name), "%s", platform("rtc_irq"));
	snprintf(hold, sizeof(hold), "%s", platform("rtc_hold"));
	irq = irq_number(irq_name);
	if (irq < 0)
		tap_bail("no %s line in /proc/interrupts", irq_name);
	snprintf(trigger, sizeof(trigger), "/sys/kernel/debug/irq/irqs/%d",
		 irq);
	if (access(trigger, W_OK))
		tap_bail("%s: %s (CONFIG_GENERIC_IRQ_DEBUGFS?)", trigger,
			 strerror(errno));
	if (!wakeup_stat(hold, &w0))
		tap_bail("no %s wakeup source: RTC driver patch missing?", hold);
	tap_diag("RTC interrupt %s, IRQ %d, hold %s", irq_name, irq, hold);

	got = inject_two();
	wakeup_stat(hold, &w1);
	tap_check(got == 2, cases[0], "%d of 2 entered the handler (IRQ %d)",
		  got, irq);
	tap_check(w1.active_count == w0.active_count &&
		  w1.event_count == w0.event_count, cases[1],
		  "%s active_count %lu->%lu, event_count %lu->%lu", hold,
		  w0.active_count, w1.active_count, w0.event_count,
		  w1.event_count);

	/* What autosleep does: arm the count, then suspend. */
	wait_sources_idle();
	armed = read_line("/sys/power/wakeup_count", count, sizeof(count)) &&
		!write_str("/sys/power/wakeup_count", count);
	got = inject_two();
	wakeup_stat(hold, &w2);
	tap_check(!stayawake_source_active() && !w2.active_since_ms, cases[2],
		  "%s active_since %llu ms", hold, w2.active_since_ms);
	alarm_suspend(3, &as);
	tap_check(armed && got == 2 && as.ok, cases[3],
		  "wakeup_count %s %s, %d of 2 interrupts; write: %s, "
		  "success %ld->%ld, suspended %.2f s", count,
		  armed ? "written" : "refused", got,
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, as.suspended_ns / 1e9);
	return tap_done();
}

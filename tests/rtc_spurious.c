// SPDX-License-Identifier: GPL-2.0
/*
 * A spurious RTC interrupt (no alarm pending) is no wakeup event: the
 * driver's "pl031_alarm" source must not be activated, nothing may be left
 * held, and a suspend that user space armed through /sys/power/wakeup_count
 * (autosleep, a suspend daemon) must still go ahead. On QEMU virt the
 * PL031's interrupt is made pending in the GIC distributor through
 * /dev/mem. Witnesses: the interrupt count in /proc/interrupts, the
 * source's counters in wakeup_sources, suspend_stats and the clocks.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define DT_ROOT "/proc/device-tree"
#define GICD_ISPENDR 0x200

/* GICv2 and v3 distributors: GICD_ISPENDR is at the same offset in both. */
static const char *const gic_compatible[] = {
	"arm,cortex-a15-gic", "arm,gic-400", "arm,cortex-a9-gic", "arm,gic-v3",
	NULL,
};
static const char *const pl031_compatible[] = { "arm,pl031", NULL };

static int read_be32s(const char *path, uint32_t *v, int n)
{
	FILE *f = fopen(path, "r");
	int got;

	if (!f)
		return -1;
	got = fread(v, sizeof(*v), n, f);
	fclose(f);
	for (int i = 0; i < got; i++)
		v[i] = ntohl(v[i]);
	return got;
}

/* Does the node's "compatible" list hold one of @want? */
static bool dt_compatible(const char *node, const char *const *want)
{
	char path[PATH_MAX], buf[256];
	size_t len, off;
	FILE *f;

	snprintf(path, sizeof(path), "%s/compatible", node);
	f = fopen(path, "r");
	if (!f)
		return false;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	/* A list of NUL-terminated strings. */
	for (off = 0; off < len; off += strlen(buf + off) + 1)
		for (int i = 0; want[i]; i++)
			if (!strcmp(buf + off, want[i]))
				return true;
	return false;
}

/* Depth-first search under @dir for a node compatible with @want. */
static bool dt_find(const char *dir, const char *const *want, char *out,
		    size_t len)
{
	char path[PATH_MAX];
	struct dirent *d;
	bool found = false;
	DIR *dp;

	if (dt_compatible(dir, want)) {
		snprintf(out, len, "%s", dir);
		return true;
	}
	dp = opendir(dir);
	if (!dp)
		return false;
	while (!found && (d = readdir(dp))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		found = dt_find(path, want, out, len);
	}
	closedir(dp);
	return found;
}

static int read_prop(const char *node, const char *prop, uint32_t *v, int n)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", node, prop);
	return read_be32s(path, v, n);
}

static const char *const cases[] = {
	"the spurious interrupts reached the handler",
	"they were no wakeup event: pl031_alarm never activated",
	"no hold left behind",
	"a suspend armed through wakeup_count still goes ahead",
};

static volatile uint32_t *gicd;
static uint32_t spi;

/*
 * Make the PL031's SPI pending and wait (up to 1 s) for the handler to be
 * entered; false if it was not. The line is level and edge alike to the
 * GIC: one pending SPI runs the handler once.
 */
static bool inject(void)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + SEC_NS;
	long i0 = irq_count("rtc-pl031"), i;

	gicd[(GICD_ISPENDR + 4 * ((32 + spi) / 32)) / 4] = 1u << ((32 + spi) % 32);
	while ((i = irq_count("rtc-pl031")) == i0 &&
	       clock_ns(CLOCK_MONOTONIC) < end)
		;
	return i == i0 + 1;
}

/*
 * Two interrupts, each seen entering the handler: the GIC delivers the
 * second only after the first one's handler ended, so whatever the first
 * did to the source is visible once the second was entered.
 */
static int inject_two(void)
{
	return inject() + inject();
}

int main(void)
{
	struct wakeup_stat w0 = { 0 }, w1 = { 0 }, w2 = { 0 };
	char pl031[PATH_MAX], gic[PATH_MAX], parent[PATH_MAX], count[32];
	uint32_t irq[3], reg[4], acells = 2;
	struct alarm_suspend as;
	off_t gicd_base;
	bool armed;
	int fd, got;

	tap_init("rtc_spurious");
	if (!dt_find(DT_ROOT, pl031_compatible, pl031, sizeof(pl031)) ||
	    !dt_find(DT_ROOT, gic_compatible, gic, sizeof(gic))) {
		/* Each planned case, so the plan is the same on every arch. */
		for (unsigned int i = 0; i < sizeof(cases) / sizeof(*cases); i++)
			tap_skip(cases[i], "no PL031 and GIC in the device tree");
		return tap_done();
	}
	/* The GIC's reg is in its parent's #address-cells (1 or 2). */
	snprintf(parent, sizeof(parent), "%s", gic);
	*strrchr(parent, '/') = 0;
	read_prop(parent, "#address-cells", &acells, 1);
	if (read_prop(pl031, "interrupts", irq, 3) != 3 || irq[0] != 0 ||
	    (acells != 1 && acells != 2) ||
	    read_prop(gic, "reg", reg, acells) != (int)acells)
		tap_bail("%s interrupts or %s reg: not a GIC SPI or not readable",
			 pl031, gic);
	spi = irq[1];
	gicd_base = acells == 2 ? ((off_t)reg[0] << 32) | reg[1] : reg[0];
	tap_diag("PL031 %s, GIC distributor %s at %#llx", pl031, gic,
		 (unsigned long long)gicd_base);
	if (!wakeup_stat("pl031_alarm", &w0))
		tap_bail("no pl031_alarm wakeup source: rtc-pl031 patch missing?");

	fd = open("/dev/mem", O_RDWR | O_SYNC);
	if (fd < 0)
		tap_bail("/dev/mem: %s", strerror(errno));
	/* The first reg entry is the distributor. */
	gicd = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    gicd_base);
	if (gicd == MAP_FAILED)
		tap_bail("mmap GIC distributor: %s", strerror(errno));

	got = inject_two();
	wakeup_stat("pl031_alarm", &w1);
	tap_check(got == 2, cases[0], "%d of 2 entered the handler (SPI %u)",
		  got, spi);
	tap_check(w1.active_count == w0.active_count &&
		  w1.event_count == w0.event_count, cases[1],
		  "pl031_alarm active_count %lu->%lu, event_count %lu->%lu",
		  w0.active_count, w1.active_count, w0.event_count,
		  w1.event_count);

	/* What autosleep does: arm the count, then suspend. */
	wait_sources_idle();
	armed = read_line("/sys/power/wakeup_count", count, sizeof(count)) &&
		!write_str("/sys/power/wakeup_count", count);
	got = inject_two();
	wakeup_stat("pl031_alarm", &w2);
	tap_check(!stayawake_source_active() && !w2.active_since_ms, cases[2],
		  "pl031_alarm active_since %llu ms", w2.active_since_ms);
	alarm_suspend(3, &as);
	tap_check(armed && got == 2 && as.ok, cases[3],
		  "wakeup_count %s %s, %d of 2 interrupts; write: %s, "
		  "success %ld->%ld, suspended %.2f s", count,
		  armed ? "written" : "refused", got,
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, as.suspended_ns / 1e9);
	return tap_done();
}

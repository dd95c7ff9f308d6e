// SPDX-License-Identifier: GPL-2.0
/*
 * A spurious RTC interrupt (no alarm pending) must leave no wakeup hold
 * behind. On QEMU virt the PL031's interrupt is made pending in the GIC
 * distributor through /dev/mem; the handler runs, finds no alarm and must
 * release its "pl031_alarm" hold. Witnesses: the interrupt count in
 * /proc/interrupts and the source's counters in wakeup_sources.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define PL031_DT "/proc/device-tree/pl031@9010000/interrupts"
#define GIC_DT "/proc/device-tree/intc@8000000/reg"
#define GICD_ISPENDR 0x200

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


static const char *const cases[] = {
	"the spurious interrupt reached the handler",
	"the handler took its hold",
	"and released it: no hold left behind",
};

int main(void)
{
	struct wakeup_stat w0 = { 0 }, w1 = { 0 };
	uint32_t irq[3], reg[4];
	volatile uint32_t *gicd;
	long i0, i1;
	int64_t end;
	int fd;

	tap_init("rtc_spurious");
	if (read_be32s(PL031_DT, irq, 3) != 3 || read_be32s(GIC_DT, reg, 4) != 4) {
		/* Each planned case, so the plan is the same on every arch. */
		for (i0 = 0; i0 < 3; i0++)
			tap_skip(cases[i0], "no PL031 and GIC in the device tree");
		return tap_done();
	}
	if (!wakeup_stat("pl031_alarm", &w0))
		tap_bail("no pl031_alarm wakeup source: rtc-pl031 patch missing?");

	fd = open("/dev/mem", O_RDWR | O_SYNC);
	if (fd < 0)
		tap_bail("/dev/mem: %s", strerror(errno));
	/* reg = <addr_hi addr_lo size_hi size_lo> of the distributor */
	gicd = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    ((off_t)reg[0] << 32) | reg[1]);
	if (gicd == MAP_FAILED)
		tap_bail("mmap GIC distributor: %s", strerror(errno));

	/* interrupts = <GIC_SPI n flags>: INTID 32 + n */
	i0 = irq_count("rtc-pl031");
	gicd[(GICD_ISPENDR + 4 * ((32 + irq[1]) / 32)) / 4] = 1u << ((32 + irq[1]) % 32);

	end = clock_ns(CLOCK_MONOTONIC) + SEC_NS;
	while ((i1 = irq_count("rtc-pl031")) == i0 && clock_ns(CLOCK_MONOTONIC) < end)
		;
	wakeup_stat("pl031_alarm", &w1);

	tap_check(i1 == i0 + 1, cases[0],
		  "rtc-pl031 interrupts %ld->%ld (SPI %u)", i0, i1, irq[1]);
	tap_check(w1.active_count == w0.active_count + 1,
		  cases[1], "pl031_alarm active_count %lu->%lu",
		  w0.active_count, w1.active_count);
	tap_check(!stayawake_source_active() && wakeup_stat("pl031_alarm", &w1) &&
		  !w1.active_since_ms, cases[2],
		  "pl031_alarm active_since %llu ms", w1.active_since_ms);
	return tap_done();
}

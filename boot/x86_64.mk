# SPDX-License-Identifier: GPL-2.0
# QEMU and toolchain settings for the x86_64 guest (data only).
KARCH        := x86_64
CROSS_COMPILE ?=
DEB_ARCH     := amd64
KIMAGE       := arch/x86/boot/bzImage
QEMU_BIN     := qemu-system-x86_64
# pc, not q35: q35 did not power off after an S3 resume.
QEMU_MACHINE := pc
QEMU_CPU     := qemu64
# -smp 2 hung at boot under -icount; keep one CPU.
QEMU_SMP     := 1
QEMU_MEM     := 1024
CONSOLE      := ttyS0
NEEDS_DTB    :=
QEMU_EXTRA   :=
# IRQ 8 goes to rtc-cmos's own handler, not the HPET's RTC emulation: the
# RTC driver's path is the one under test (tests/rtc_spurious).
GUEST_ARGS   := hpet=disable
# The hibernate test's swap drive, virtio-blk on PCI: the Makefile makes it
# (sparse, all zeros) in build/x86_64*/swap.img before every boot.
SWAP_SIZE    := 64M
SWAP_DEVICE  := virtio-blk-pci
# The whole suite in one guest: about 13 minutes here, more beside other
# work; the host's hard limit per guest (TIMEOUT), in seconds.
GUEST_TIMEOUT := 1500

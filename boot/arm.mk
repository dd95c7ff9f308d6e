# SPDX-License-Identifier: GPL-2.0
# QEMU and toolchain settings for the 32-bit ARM guest (armhf, data only).
KARCH        := arm
CROSS_COMPILE ?= arm-linux-gnueabihf-
DEB_ARCH     := armhf
KIMAGE       := arch/arm/boot/zImage
QEMU_BIN     := qemu-system-arm
# highmem=off: nothing above 4 GiB for a kernel without LPAE.
QEMU_MACHINE := virt,highmem=off
QEMU_CPU     := cortex-a15
QEMU_SMP     := 2
QEMU_MEM     := 1024
CONSOLE      := ttyAMA0
# The same virt board as arm64: boot/make-dtb.sh adds the PSCI idle state
# s2idle needs and marks the power key a wakeup source.
NEEDS_DTB    := 1
QEMU_EXTRA   :=
GUEST_ARGS   :=
# No hibernation configured (tests/expected/skips-arm): no swap drive.
SWAP_SIZE    :=
SWAP_DEVICE  :=
# U-Boot path (make test-uboot): Debian's qemu_arm build, as on arm64.
UBOOT_BIN    := /usr/lib/u-boot/qemu_arm/u-boot.bin
UBOOT_ENV_SIZE := 0x40000
FIT_ADDR     := 0x50000000
# The FIT's zImage decompresses itself to the start of RAM, so it is
# loaded clear of it.
FIT_ARCH     := arm
FIT_LOAD     := 0x42000000
# Lines added to U-Boot's environment: bootm puts the ramdisk and the
# device tree at the top of this much RAM, which must be lowmem (the
# kernel cannot reach a device tree in highmem and hangs silently).
UBOOT_ENV_EXTRA := bootm_size=0x10000000
# The whole suite in one guest: about 16 minutes here, more beside other
# work; the host's hard limit per guest (TIMEOUT), in seconds.
GUEST_TIMEOUT := 1800

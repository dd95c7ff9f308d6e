# SPDX-License-Identifier: GPL-2.0
# QEMU and toolchain settings for the arm64 guest (data only).
KARCH        := arm64
CROSS_COMPILE ?= aarch64-linux-gnu-
DEB_ARCH     := arm64
KIMAGE       := arch/arm64/boot/Image
QEMU_BIN     := qemu-system-aarch64
QEMU_MACHINE := virt
QEMU_CPU     := cortex-a57
QEMU_SMP     := 2
QEMU_MEM     := 1024
CONSOLE      := ttyAMA0
# The guest needs a DTB with a PSCI idle state so that s2idle freezes
# timekeeping; boot/make-dtb.sh derives it from QEMU's own.
NEEDS_DTB    := 1
QEMU_EXTRA   :=
GUEST_ARGS   :=
# No hibernation configured on arm64 (tests/expected/skips-arm64): no swap
# drive.
SWAP_SIZE    :=
SWAP_DEVICE  :=
# U-Boot path (make test-uboot): Debian's u-boot-qemu as -bios, its
# environment in the second pflash, the FIT image put in RAM by QEMU's
# generic loader as a board's boot ROM or TFTP would.
UBOOT_BIN    := /usr/lib/u-boot/qemu_arm64/u-boot.bin
UBOOT_ENV_SIZE := 0x40000
FIT_ADDR     := 0x50000000
# The FIT's kernel: Image, 2 MiB aligned (text_offset 0).
FIT_ARCH     := arm64
FIT_LOAD     := 0x40400000
# Lines added to U-Boot's environment: none.
UBOOT_ENV_EXTRA :=
# The whole suite in one guest: about 13 minutes here, more beside other
# work; the host's hard limit per guest (TIMEOUT), in seconds.
GUEST_TIMEOUT := 1500

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Arch-blind QEMU launcher. Every setting comes from the environment,
# filled in by the Makefile from boot/$(ARCH).mk.
#
#   run-qemu.sh dumpdtb FILE   write QEMU's own device tree (same options)
#   run-qemu.sh run            boot, console on stdio, hard host timeout
#   run-qemu.sh interactive    boot for a person (no timeout)
set -eu

: "${QEMU_BIN:?}" "${QEMU_MACHINE:?}" "${QEMU_CPU:?}" "${QEMU_SMP:?}" "${QEMU_MEM:?}"

# TCG always: nested KVM hangs at boot on these machines.
base_args() {
	echo "-nodefaults -nographic -no-reboot -accel tcg" \
		"-machine $QEMU_MACHINE -cpu $QEMU_CPU -smp $QEMU_SMP -m $QEMU_MEM" \
		"${QEMU_EXTRA:-}"
}

boot_args() {
	: "${KERNEL:?}" "${INITRD:?}" "${CONSOLE:?}"
	for f in "$KERNEL" "$INITRD" ${DTB:+"$DTB"}; do
		[ -f "$f" ] || { echo "run-qemu: missing $f" >&2; exit 2; }
	done
	echo "-serial stdio -kernel $KERNEL -initrd $INITRD" \
		"${DTB:+-dtb $DTB}" \
		"-append 'console=$CONSOLE panic=-1 oops=panic ${APPEND:-}'"
}

case "${1:-}" in
dumpdtb)
	# shellcheck disable=SC2046
	eval "$QEMU_BIN $(base_args) -machine dumpdtb=$2" >/dev/null
	;;
run)
	: "${TIMEOUT:?}"
	# The guest powers off by itself; the timeout catches a hang.
	eval "timeout -k 10 $TIMEOUT $QEMU_BIN $(base_args) $(boot_args)" \
		</dev/null
	;;
interactive)
	eval "exec $QEMU_BIN $(base_args) $(boot_args)"
	;;
*)
	echo "usage: run-qemu.sh dumpdtb FILE | run | interactive" >&2
	exit 2
	;;
esac

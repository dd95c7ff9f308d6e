#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Arch-blind QEMU launcher. Every setting comes from the environment,
# filled in by the Makefile from boot/$(ARCH).mk.
#
#   run-qemu.sh dumpdtb FILE [uboot]
#                              write QEMU's own device tree (same options;
#                              with U-Boot as firmware virt omits the PL061)
#   run-qemu.sh run            boot, console on stdio, hard host timeout;
#                              boot/host-requests.sh answers the guest's
#                              requests through QMP (sa.host=qmp tells it)
#   run-qemu.sh interactive    boot for a person (no timeout)
#   run-qemu.sh uboot          boot through U-Boot (-bios), the FIT image put
#                              in RAM, U-Boot's environment in pflash 1
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

uboot_args() {
	: "${UBOOT_BIN:?}" "${UBOOT_FLASH:?}" "${FIT:?}" "${FIT_ADDR:?}"
	for f in "$UBOOT_BIN" "$UBOOT_FLASH" "$FIT"; do
		[ -f "$f" ] || { echo "run-qemu: missing $f" >&2; exit 2; }
	done
	echo "-serial stdio -bios $UBOOT_BIN" \
		"-drive if=pflash,format=raw,unit=1,file=$UBOOT_FLASH" \
		"-device loader,file=$FIT,addr=$FIT_ADDR,force-raw=on"
}

case "${1:-}" in
dumpdtb)
	fw=""
	[ "${3:-}" != uboot ] || fw="-bios ${UBOOT_BIN:?}"
	eval "$QEMU_BIN $(base_args) $fw -machine dumpdtb=$2" >/dev/null
	;;
run)
	: "${TIMEOUT:?}"
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	mkfifo "$dir/console"
	"$(dirname "$0")/host-requests.sh" "$dir/qmp" <"$dir/console" &
	APPEND="${APPEND:-} sa.host=qmp"
	# The guest powers off by itself; the timeout catches a hang. The
	# console goes to stdout and to the helper; QEMU's status is ours.
	{
		rc=0
		eval "timeout -k 10 $TIMEOUT $QEMU_BIN $(base_args)" \
			"$(boot_args) -qmp unix:$dir/qmp,server=on,wait=off" \
			</dev/null || rc=$?
		echo "$rc" >"$dir/rc"
	} | tee "$dir/console"
	wait
	exit "$(cat "$dir/rc")"
	;;
interactive)
	eval "exec $QEMU_BIN $(base_args) $(boot_args)"
	;;
uboot)
	: "${TIMEOUT:?}"
	eval "timeout -k 10 $TIMEOUT $QEMU_BIN $(base_args) $(uboot_args)" \
		</dev/null
	;;
*)
	echo "usage: run-qemu.sh dumpdtb FILE | run | interactive | uboot" >&2
	exit 2
	;;
esac

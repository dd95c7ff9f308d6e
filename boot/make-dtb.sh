#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Derive the arm64 guest's device tree from QEMU's own (dumped with the very
# options the guest boots with) and add a PSCI retention idle state to every
# CPU. Without a cpuidle state s2idle never freezes timekeeping, so
# CLOCK_MONOTONIC would keep running across a suspend and could not witness it.
# Mark the power key a wakeup source, so that a key press wakes the system.
#
#   make-dtb.sh OUT.dtb [uboot]   (QEMU_* settings in the environment)
set -eu

out=$1
tmp=${out%.dtb}.tmp
here=$(dirname "$0")

"$here/run-qemu.sh" dumpdtb "$tmp.dtb" "${2:-}"
dtc -q -I dtb -O dts -o "$tmp.dts" "$tmp.dtb"

ncpu=$(grep -c 'device_type = "cpu"' "$tmp.dts")
[ "$ncpu" -ge 1 ] || { echo "make-dtb: no cpu nodes in QEMU's DTB" >&2; exit 1; }

{
	cat <<'DTS'

/ {
	cpus {
		idle-states {
			entry-method = "psci";

			cpu_retention: cpu-retention {
				compatible = "arm,idle-state";
				/* power_state: standby (retention), no power down */
				arm,psci-suspend-param = <0x00000001>;
				entry-latency-us = <20>;
				exit-latency-us = <40>;
				min-residency-us = <100>;
			};
		};
DTS
	i=0
	while [ "$i" -lt "$ncpu" ]; do
		printf '\t\tcpu@%x {\n\t\t\tcpu-idle-states = <&cpu_retention>;\n\t\t};\n' "$i"
		i=$((i + 1))
	done
	printf '\t};\n};\n'
	# virt's power key (gpio-keys on the PL061; QMP system_powerdown
	# presses it) wakes the system, as a board's power key does. With
	# U-Boot as firmware virt has no PL061, and no key to mark.
	if grep -q 'compatible = "gpio-keys"' "$tmp.dts"; then
		printf '\n&{/gpio-keys/poweroff} {\n\twakeup-source;\n};\n'
	fi
} >>"$tmp.dts"

dtc -q -I dts -O dtb -o "$out" "$tmp.dts"
rm -f "$tmp.dtb"

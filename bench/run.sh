#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: build (a) vanilla 6.1, (b) the series with the feature off,
# (c) the series; boot each in turn with the same initramfs and run the
# wakeup benchmarks under -icount (deterministic guest time) and without
# (wall clock), then the duty-cycle comparison on (c). Writes
# build/bench/report.md and build/bench/dutycycle-$ARCH.svg.
#
# Last, make test's cold and warm wall time (bench/turnaround.sh; skip it
# with TURNAROUND=no).
#
#   BENCH_ARCHES="arm64 x86_64" ROUNDS=3 bench/run.sh
set -eu

out=build/bench
arches=${BENCH_ARCHES:-arm64 x86_64}
# The kernel version measured (make reads KVER from the environment too).
kver=${KVER:-6.1}
rounds=${ROUNDS:-3}
mkdir -p "$out"
touch "$out/raw.txt"

for a in $arches; do
	# Keep the other arches' figures: one report for all.
	grep -v "^$a " "$out/raw.txt" >"$out/raw.tmp" || true
	mv "$out/raw.tmp" "$out/raw.txt"
	echo "bench: $a: building the three kernels and the guest"
	make -s ARCH="$a" initramfs dtb kernel
	make -s ARCH="$a" VARIANT=off kernel
	make -s ARCH="$a" VARIANT=vanilla kernel
	for mode in icount wall; do
		extra=
		[ "$mode" = wall ] || extra="-icount shift=0,sleep=off"
		r=1
		while [ "$r" -le "$rounds" ]; do
			# Alternate the kernels inside each round.
			for v in vanilla off on; do
				vv=$v
				[ "$v" != on ] || vv=
				log=$out/$a-$mode-$v-$r.log
				echo "bench: $a $mode round $r: $v"
				make -s ARCH="$a" VARIANT="$vv" BENCH=wakeup \
					QEMU_EXTRA="$extra" TIMEOUT=900 \
					bench-boot >"$log" 2>&1 || true
				grep -q 'STAYAWAKE-BENCH-END status=0' "$log" || {
					echo "bench: $log: the guest did not finish" >&2
					exit 1
				}
				tr -d '\r' <"$log" | sed -n "s/^BENCH /$a $mode $v $r /p" \
					>>"$out/raw.txt"
				tr -d '\r' <"$log" | sed -n "s/^BENCH-SLAB /$a slab $v $r /p" \
					>>"$out/raw.txt"
			done
			r=$((r + 1))
		done
	done
	echo "bench: $a: duty cycle (stayawake vs wake_lock + EPOLLWAKEUP)"
	log=$out/$a-duty.log
	make -s ARCH="$a" BENCH=dutycycle TIMEOUT=900 bench-boot >"$log" 2>&1 || true
	grep -q 'STAYAWAKE-BENCH-END status=0' "$log" || {
		echo "bench: $log: the guest did not finish" >&2
		exit 1
	}
	cross=$(sed -n 's/^CROSS_COMPILE *?= *//p' "boot/$a.mk")
	for v in vanilla off on; do
		d=build/$kver/$a
		[ "$v" = on ] || d=$d-$v
		# text + data of vmlinux
		echo "$a size $v $("${cross}size" "$d/kernel/vmlinux" |
			awk 'NR == 2 { print $1 + $2 }')" >>"$out/raw.txt"
	done
	# Where the growth is: the objects the series touches, (a) vs (c).
	for o in kernel/sched/stayawake.o kernel/sched/core.o kernel/fork.o \
		 kernel/exit.o kernel/signal.o kernel/time/alarmtimer.o \
		 fs/timerfd.o fs/proc/array.o drivers/base/power/wakeup.o \
		 kernel/power/suspend.o kernel/power/autosleep.o \
		 drivers/rtc/interface.o drivers/rtc/class.o \
		 drivers/rtc/rtc-pl031.o drivers/rtc/rtc-cmos.o; do
		[ -f "build/$kver/$a/kernel/$o" ] || continue
		sz() {
			[ -f "$1" ] || { echo 0; return; }
			"${cross}size" "$1" | awk 'NR == 2 { print $1 + $2 }'
		}
		echo "$a obj $o $(sz "build/$kver/$a-vanilla/kernel/$o") $(sz "build/$kver/$a/kernel/$o")" \
			>>"$out/raw.txt"
	done
	# stayawake.o by what its symbols are for (nm sizes; strings apart).
	"${cross}nm" -S -t d "build/$kver/$a/kernel/kernel/sched/stayawake.o" |
	awk -v a="$a" 'NF == 4 {
		k = "core"
		if ($4 ~ /trace|event|print_fmt|TRACE_SYSTEM|^symbols/)
			k = "trace"
		else if ($4 ~ /debugfs|proc_stayawake/)
			k = "views"
		s[k] += $2
	}
	END { for (k in s) print a, "part", k, s[k] }' >>"$out/raw.txt"
	bench/plot.sh "$log" "$out/dutycycle-$a.svg" "$a"
done
[ "${TURNAROUND:-yes}" = no ] || ARCHES="$arches" bench/turnaround.sh "$out"
bench/report.sh "$out" >"$out/report.md"
echo "bench: report $out/report.md"

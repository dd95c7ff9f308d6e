#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make test's wall time per arch, cold (a fresh clone of HEAD: no build
# folder, an empty ccache) and then warm (nothing changed), appended to
# OUT/raw.txt as "ARCH turnaround cold|warm SECONDS RC".
#
#   ARCHES="arm64 x86_64" bench/turnaround.sh OUT
set -eu

out=$(cd "$1" && pwd)
arches=${ARCHES:-arm64 x86_64}
top=$(pwd)
work=$out/turnaround
rm -rf "$work"
mkdir -p "$work"
git clone -q "$top" "$work/src"
mkdir -p "$work/ccache"

for a in $arches; do
	grep -v "^$a turnaround " "$out/raw.txt" >"$out/raw.tmp" 2>/dev/null || true
	mv "$out/raw.tmp" "$out/raw.txt"
done
for kind in cold warm; do
	for a in $arches; do
		echo "bench: turnaround: $kind make ARCH=$a test"
		t0=$(date +%s)
		rc=0
		CCACHE_DIR=$work/ccache make -C "$work/src" ARCH="$a" test \
			>"$out/turnaround-$kind-$a.log" 2>&1 || rc=$?
		t1=$(date +%s)
		echo "$a turnaround $kind $((t1 - t0)) $rc" >>"$out/raw.txt"
		tail -n 1 "$out/turnaround-$kind-$a.log"
	done
done
rm -rf "$work"

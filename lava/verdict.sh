#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make test's verdict (boot/verdict.sh) on the console LAVA logged: a LAVA
# run judged as a boot is (every planned case ran, only expected skips, no
# kernel report), besides LAVA's own results (lava/results.py).
#
#   lava/verdict.sh ARCH OUTDIR TEST...
# Reads OUTDIR/console.raw (lava/run.sh); writes OUTDIR/console.log as a
# boot prints it: the plan once, the definitions' sentinels summed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
arch=$1
out=$(cd "$2" && pwd)
shift 2
raw=$out/console.raw
[ -f "$raw" ] || { echo "lava-verdict: no $raw" >&2; exit 2; }
{
	echo "STAYAWAKE-PLAN $*"
	grep -v -e '^STAYAWAKE-PLAN ' -e '^STAYAWAKE-RESULT ' "$raw" || true
	sed -n 's/^STAYAWAKE-RESULT passed=\([0-9]*\) failed=\([0-9]*\) skipped=\([0-9]*\)$/\1 \2 \3/p' "$raw" |
		awk '{ p += $1; f += $2; s += $3 }
		     END { if (NR) print "STAYAWAKE-RESULT passed=" p " failed=" f " skipped=" s }'
} >"$out/console.log"
PLAN="$*" "$here/../boot/verdict.sh" "$arch" "$out/console.log" 0

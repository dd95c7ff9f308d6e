#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sum per-arch verdicts ("ARCH: N passed, N failed") into the closing line.
# A missing summary means that arch never got as far as a verdict: a failure.
#
#   sum-verdicts.sh SUMMARY...
set -u

passed=0
failed=0
for s in "$@"; do
	line=$(cat "$s" 2>/dev/null)
	p=$(echo "$line" | sed -n 's/.* \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
	if [ -z "$p" ]; then
		name=$(basename "$(dirname "$s")")
		case $s in *-uboot.log.summary) name=$name-uboot ;; esac
		echo "$name: no verdict (build or boot failed)"
		f=1
		p=0
	else
		echo "$line"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

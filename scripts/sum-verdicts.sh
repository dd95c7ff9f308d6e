#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sum per-boot verdicts ("NAME: N passed, N failed, N skipped") into the
# closing line. A missing summary means that boot never got as far as a
# verdict: a failure.
#
#   sum-verdicts.sh SUMMARY...
set -u

passed=0
failed=0
skipped=0
for s in "$@"; do
	line=$(cat "$s" 2>/dev/null)
	set -- $(echo "$line" | sed -n 's/.* \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
	if [ $# -ne 3 ]; then
		name=$(basename "$(dirname "$s")")
		case $s in *-uboot.log.summary) name=$name-uboot ;; esac
		echo "$name: no verdict (build or boot failed)"
		set -- 0 1 0
	else
		echo "$line"
	fi
	passed=$((passed + $1))
	failed=$((failed + $2))
	skipped=$((skipped + $3))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

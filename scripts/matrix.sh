#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run cells of the KVER x ARCH matrix and print one table: cell, kernel
# release, passed, failed, skipped, soak, time. A cell runs `make test`
# (every boot of that kernel and arch) then a soak of $CYCLES cycles; a
# MATRIX_PLAN file may give a cell a plan of its own ("CELL TESTS CYCLES" per
# line; TESTS: all, a comma list or @FILE, a file of test names; CYCLES 0:
# no soak), which then runs as one judged boot.
#
#   matrix.sh OUTDIR CELL...      (CELL is KVER-ARCH, e.g. 6.12-arm)
# Environment: CYCLES (soak cycles, default 200), MATRIX_PLAN (a plan file).
# Lists (summaries, a plan line) are split into words on purpose.
# shellcheck disable=SC2046,SC2086
set -u

out=$1
shift
mkdir -p "$out"
table=$out/matrix.md
red=0
tp=0 tf=0 ts=0

# A cell's line of PLAN, or "CELL all $CYCLES".
plan_of() {
	line=""
	[ -z "${MATRIX_PLAN:-}" ] ||
		line=$(sed -e 's/#.*//' "$MATRIX_PLAN" | awk -v c="$1" '$1 == c' | tail -n 1)
	echo "${line:-$1 all ${CYCLES:-200}}"
}

# "N passed, N failed, N skipped" of summary files, summed.
sum_of() {
	cat "$@" 2>/dev/null |
		sed -n 's/.* \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' |
		awk '{ p += $1; f += $2; s += $3; n++ } END { print p + 0, f + 0, s + 0, n + 0 }'
}

{
	echo "| cell | kernel release | passed | failed | skipped | soak | time |"
	echo "|---|---|---:|---:|---:|---|---:|"
} >"$table"

for cell in "$@"; do
	kver=${cell%%-*}
	arch=${cell#*-}
	set -- $(plan_of "$cell")
	tests=$2
	cycles=$3
	# @FILE: the tests FILE lists, one a line
	case $tests in
	@*) tests=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${tests#@}" |
		paste -sd, -) ;;
	esac
	# A missing or empty list would run the default plan, or nothing.
	[ -n "$tests" ] || { echo "matrix: $cell: no tests in $2" >&2; exit 2; }
	mk="make --no-print-directory KVER=$kver ARCH=$arch"
	log=$out/$cell.log
	start=$(date +%s)
	echo "  MATRIX  $cell: tests $tests, soak $cycles cycles (log $log)"
	if [ "$tests" = all ]; then
		summaries=$($mk -s summaries)
		rm -f $summaries
		$mk -k test >"$log" 2>&1
		rc=$?
	else
		summaries=$($mk -s summaries | cut -d' ' -f1)
		rm -f $summaries
		$mk APPEND="sa.tests=$tests" test-one >"$log" 2>&1
		rc=$?
	fi
	set -- $(sum_of $summaries)
	passed=$1 failed=$2 skipped=$3 judged=$4
	# Every planned boot must have judged: a missing verdict is a failure.
	[ "$judged" -eq "$(echo $summaries | wc -w)" ] || { failed=$((failed + 1)); rc=1; }
	soak="not run"
	if [ "$cycles" -gt 0 ]; then
		if $mk CYCLES="$cycles" soak >"$out/$cell-soak.log" 2>&1; then
			soak="$cycles ok"
		else
			soak="$cycles FAILED"
			rc=1
		fi
	fi
	# The first summary is the patched boot's, beside its console.
	console=$(echo $summaries | cut -d' ' -f1)
	release=$(sed -n 's/.*Linux version \([^ ]*\) .*/\1/p' \
		"${console%.summary}" 2>/dev/null | head -n 1)
	t=$(($(date +%s) - start))
	[ "$rc" -eq 0 ] || red=1
	tp=$((tp + passed)) tf=$((tf + failed)) ts=$((ts + skipped))
	printf '| %s | %s | %s | %s | %s | %s | %dm%02ds |\n' "$cell" \
		"${release:-?}" "$passed" "$failed" "$skipped" "$soak" \
		$((t / 60)) $((t % 60)) >>"$table"
	[ "$rc" -eq 0 ] || tail -n 30 "$log" | sed "s/^/  $cell: /"
done
cat "$table"
# The closing line, as make test's: every cell's cases summed.
echo "$tp passed, $tf failed, $ts skipped"
exit "$red"

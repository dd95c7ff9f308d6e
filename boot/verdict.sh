#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Judge one guest run from its console log against what was planned.
#
#   verdict.sh ARCH LOG QEMU_STATUS
# Environment: PLAN (the tests the guest was told to run, in order),
# EXPECTED (the folder of expected cases: one file per test, and
# skips-ARCH), SKIPS (the skips file that applies; default
# $EXPECTED/skips-ARCH), KUNIT (the kernel's kunit.py: when set, its KTAP
# parser must read the same counts from the log, and nothing crashed).
# Prints "ARCH: N passed, N failed, N skipped" and writes it to LOG.summary,
# the cases and its findings as JUnit to junit.xml beside LOG (junit.awk);
# exits non-zero when the run is red, naming why.
set -u

arch=$1
log=$2
qemu_rc=$3
here=$(dirname "$0")
: "${PLAN:?verdict.sh: PLAN (the tests planned) is not set}"
EXPECTED=${EXPECTED:-$here/../tests/expected}
SKIPS=${SKIPS:-$EXPECTED/skips-$arch}
red=0
problems=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Findings go to stderr and, for junit.xml, to $tmp/problems.
fail() {
	echo "$arch: FAIL: $*" >&2
	echo "$*" >>"$tmp/problems"
	red=1
	problems=$((problems + 1))
}

# A list, indented, on stderr.
show() {
	sed "s/^/  $arch: /" "$1" >&2
	sed "s/^/  /" "$1" >>"$tmp/problems"
}

# fail_list FILE WHY: red, with the list, when FILE is not empty.
fail_list() {
	[ -s "$1" ] || return 0
	fail "$2"
	show "$1"
}

: >"$tmp/problems"
badness=$(sed '/^#/d' "$here/badness")
# The serial console ends lines with CR LF.
tr -d '\r' <"$log" >"$tmp/log"

if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
	fail "guest timed out (no power-off before the host's limit)"
fi

# ---- the sentinel, and the plan the guest says it ran
result=$(sed -n 's/.*STAYAWAKE-RESULT passed=\([0-9]*\) failed=\([0-9]*\) skipped=\([0-9]*\).*/\1 \2 \3/p' "$tmp/log" | tail -n 1)
sentinel=yes
if [ -z "$result" ]; then
	sentinel=no
	last=$(sed -n 's/^# ---- \([^ ]*\).*/\1/p' "$tmp/log" | tail -n 1)
	fail "no STAYAWAKE-RESULT sentinel: the guest hung, panicked or init died${last:+ (in test '$last')}"
	result="0 0 0"
fi
set -- $result
s_passed=$1
s_failed=$2
s_skipped=$3
[ "$s_failed" -eq 0 ] || fail "the guest counted $s_failed failed cases"

ran=$(sed -n 's/^STAYAWAKE-PLAN //p' "$tmp/log" | tail -n 1 | tr -s ' ' | sed 's/ *$//')
want=$(echo $PLAN)
[ "$sentinel" = no ] || [ "$ran" = "$want" ] ||
	fail "the guest ran the plan '$ran', not '$want'"

# ---- KTAP: a subtest per test, its cases "    ok N ID # detail" (IDs:
# ktap.awk); "harness" cases are what /init found wrong after a test
grep -E '^ +(not )?ok [0-9]+ ' "$tmp/log" | sed 's/^ *//' >"$tmp/all"
grep -E '^not ok [0-9]+ harness( |$)' "$tmp/all" >"$tmp/extra-failures"
grep -vE '^not ok [0-9]+ harness( |$)' "$tmp/all" >"$tmp/lines"
c_skipped=$(grep -c ' # SKIP' "$tmp/lines")
c_passed=$(($(grep -c '^ok ' "$tmp/lines") - c_skipped))
c_failed=$(($(grep -c '^not ok ' "$tmp/lines") + $(wc -l <"$tmp/extra-failures")))
if [ "$sentinel" = yes ] &&
   [ "$c_passed $c_failed $c_skipped" != "$s_passed $s_failed $s_skipped" ]; then
	fail "the sentinel says $s_passed passed, $s_failed failed, $s_skipped skipped;" \
	     "the console's case lines $c_passed, $c_failed, $c_skipped"
fi
if grep -q '^not ok' "$tmp/all"; then
	fail "failed cases:"
	grep '^not ok' "$tmp/all" >"$tmp/f"
	show "$tmp/f"
fi

# ---- the kernel's KTAP parser reads the same counts, nothing crashed
if [ -n "${KUNIT:-}" ]; then
	python3 "$KUNIT" parse <"$tmp/log" >"$tmp/kunit" 2>&1
	k=$(sed -n 's/.*Testing complete\. Ran [0-9]* tests: *//p' "$tmp/kunit" | tail -n 1)
	k_count() {
		echo "$k" | tr ',' '\n' | sed -n "s/^ *$1: *\([0-9]*\).*/\1/p" | grep . || echo 0
	}
	got_k="$(k_count passed) $(k_count failed) $(k_count skipped)"
	bad_k="$(k_count crashed) $(k_count errors)"
	if [ -z "$k" ] || [ "$bad_k" != "0 0" ] ||
	   [ "$got_k" != "$c_passed $c_failed $c_skipped" ]; then
		fail "kunit.py parse reads '${k:-no result}', not $c_passed passed," \
		     "$c_failed failed, $c_skipped skipped"
		grep -E 'CRASHED|ERROR' "$tmp/kunit" | head -n 10 >"$tmp/kc"
		show "$tmp/kc"
	fi
fi

# ---- the cases planned, as data; each case has an ID of its own
sed -E 's/^(not )?ok [0-9]+ //; s/ # .*//' "$tmp/lines" | sort >"$tmp/got"
: >"$tmp/want"
: >"$tmp/want-skips"
for t in $want; do
	if [ ! -f "$EXPECTED/$t" ]; then
		fail "no expected cases for test '$t' ($EXPECTED/$t)"
		continue
	fi
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' -e "s/^/$t: /" "$EXPECTED/$t" |
		awk -v mode=ids -f "$here/case-id.awk" -f "$here/ktap.awk" >>"$tmp/want"
	[ -f "$SKIPS" ] && grep "^$t: " "$SKIPS" |
		awk -v mode=ids -f "$here/case-id.awk" -f "$here/ktap.awk" >>"$tmp/want-skips"
done
sort -o "$tmp/want" "$tmp/want"
uniq -d "$tmp/want" >"$tmp/same-id"
fail_list "$tmp/same-id" "planned cases that share an ID (tests/expected/; ktap.awk):"
comm -23 "$tmp/want" "$tmp/got" >"$tmp/missing"
comm -13 "$tmp/want" "$tmp/got" >"$tmp/unplanned"
uniq -d "$tmp/got" >"$tmp/twice"
fail_list "$tmp/twice" "cases named more than once (a case needs a name of its own):"
fail_list "$tmp/missing" "planned cases that did not run:"
fail_list "$tmp/unplanned" "cases that ran but are not planned (tests/expected/):"

# ---- skips are red unless expected, with their reason, for this arch
sed -n -E 's/^ok [0-9]+ (.* # SKIP.*)/\1/p' "$tmp/lines" | sort >"$tmp/skips"
sort -o "$tmp/want-skips" "$tmp/want-skips"
comm -13 "$tmp/want-skips" "$tmp/skips" >"$tmp/unexpected-skips"
comm -23 "$tmp/want-skips" "$tmp/skips" >"$tmp/skips-not-taken"
fail_list "$tmp/unexpected-skips" "skips not expected for $arch ($SKIPS):"
fail_list "$tmp/skips-not-taken" "skips expected for $arch that did not happen:"

# ---- kernel reports
if grep -Eq "$badness" "$tmp/log"; then
	fail "kernel reports in the console:"
	grep -En "$badness" "$tmp/log" | head -n 20 >"$tmp/b"
	show "$tmp/b"
fi

# junit.xml beside the log (console-uboot.log: junit-uboot.xml)
junit=$(dirname "$log")/$(basename "$log" .log | sed 's/^console/junit/').xml
awk -v cell="$arch" -f "$here/case-id.awk" -f "$here/junit.awk" "$tmp/problems" "$tmp/log" >"$junit"
if ! xmllint --noout --schema "$here/../tests/junit.xsd" "$junit" \
	>"$tmp/xmllint" 2>&1; then
	fail "$junit does not validate against tests/junit.xsd:"
	show "$tmp/xmllint"
fi

failed=$((c_failed > s_failed ? c_failed : s_failed))
[ "$red" -eq 0 ] || [ "$failed" -gt 0 ] || failed=$problems
echo "$arch: $c_passed passed, $failed failed, $c_skipped skipped" | tee "$log.summary"
if [ "$red" -ne 0 ]; then
	echo "$arch: full console log: $log" >&2
	exit 1
fi
exit 0

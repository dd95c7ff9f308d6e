#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Judge one guest run from its console log against what was planned.
#
#   verdict.sh ARCH LOG QEMU_STATUS
# Environment: PLAN (the tests the guest was told to run, in order),
# EXPECTED (the folder of expected cases: one file per test, and
# skips-ARCH), SKIPS (the skips file that applies; default
# $EXPECTED/skips-ARCH).
# Prints "ARCH: N passed, N failed, N skipped" and writes it to LOG.summary;
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

fail() {
	echo "$arch: FAIL: $*" >&2
	red=1
	problems=$((problems + 1))
}

# A list, indented, on stderr.
show() {
	sed "s/^/  $arch: /" "$1" >&2
}

# fail_list FILE WHY: red, with the list, when FILE is not empty.
fail_list() {
	[ -s "$1" ] || return 0
	fail "$2"
	show "$1"
}

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

# ---- case lines: "ok N test: case # detail", "not ok N ...", "# SKIP why"
grep -E '^(not )?ok [0-9]+ ' "$tmp/log" >"$tmp/lines"
grep -E '^not ok - ' "$tmp/log" >"$tmp/extra-failures"
c_skipped=$(grep -c ' # SKIP ' "$tmp/lines")
c_passed=$(($(grep -c '^ok ' "$tmp/lines") - c_skipped))
c_failed=$(($(grep -c '^not ok ' "$tmp/lines") + $(wc -l <"$tmp/extra-failures")))
if [ "$sentinel" = yes ] &&
   [ "$c_passed $c_failed $c_skipped" != "$s_passed $s_failed $s_skipped" ]; then
	fail "the sentinel says $s_passed passed, $s_failed failed, $s_skipped skipped;" \
	     "the console's case lines $c_passed, $c_failed, $c_skipped"
fi
if [ -s "$tmp/extra-failures" ] || grep -q '^not ok' "$tmp/lines"; then
	fail "failed cases:"
	grep -E '^not ok' "$tmp/log" >"$tmp/f"
	show "$tmp/f"
fi

# ---- the cases planned, as data; each case named once per line
sed -E 's/^(not )?ok [0-9]+ //; s/ # .*//' "$tmp/lines" | sort >"$tmp/got"
: >"$tmp/want"
: >"$tmp/want-skips"
for t in $want; do
	if [ ! -f "$EXPECTED/$t" ]; then
		fail "no expected cases for test '$t' ($EXPECTED/$t)"
		continue
	fi
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' -e "s/^/$t: /" "$EXPECTED/$t" >>"$tmp/want"
	[ -f "$SKIPS" ] && grep "^$t: " "$SKIPS" >>"$tmp/want-skips"
done
sort -o "$tmp/want" "$tmp/want"
comm -23 "$tmp/want" "$tmp/got" >"$tmp/missing"
comm -13 "$tmp/want" "$tmp/got" >"$tmp/unplanned"
uniq -d "$tmp/got" >"$tmp/twice"
fail_list "$tmp/twice" "cases named more than once (a case needs a name of its own):"
fail_list "$tmp/missing" "planned cases that did not run:"
fail_list "$tmp/unplanned" "cases that ran but are not planned (tests/expected/):"

# ---- skips are red unless expected, with their reason, for this arch
sed -n -E 's/^ok [0-9]+ (.* # SKIP .*)/\1/p' "$tmp/lines" | sort >"$tmp/skips"
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

failed=$((c_failed > s_failed ? c_failed : s_failed))
[ "$red" -eq 0 ] || [ "$failed" -gt 0 ] || failed=$problems
echo "$arch: $c_passed passed, $failed failed, $c_skipped skipped" | tee "$log.summary"
if [ "$red" -ne 0 ]; then
	echo "$arch: full console log: $log" >&2
	exit 1
fi
exit 0

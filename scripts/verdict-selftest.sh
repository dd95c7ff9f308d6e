#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The verdict judges what it claims: a console log made from the plan and
# tests/expected is green, and each way a run can fall short of the plan
# turns it red. No guest needed; CI runs it before the builds.
#
#   verdict-selftest.sh ARCH
set -eu
cd "$(dirname "$0")/.."

arch=$1
: "${KUNIT:?verdict-selftest.sh: KUNIT (the kernel's kunit.py) is not set}"
plan=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' tests/order | tr '\n' ' ')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

# The console of a run that did exactly what was planned: each test's TAP
# made from tests/expected, turned into KTAP by the guest's own ktap.awk.
good_log() {
	echo "STAYAWAKE-PLAN $plan"
	echo "KTAP version 1"
	echo "1..$(echo $plan | wc -w)"
	k=0
	for t in $plan; do
		k=$((k + 1))
		echo "# ---- $t (uptime 1.00 s)"
		n=0
		sed -e '/^#/d' -e '/^[[:space:]]*$/d' "tests/expected/$t" |
		while IFS= read -r c; do
			n=$((n + 1))
			skip=$(grep -F "$t: $c # SKIP " "tests/expected/skips-$arch" || true)
			if [ -n "$skip" ]; then
				echo "ok $n $skip"
			else
				echo "ok $n $t: $c # detail"
			fi
		done >"$tmp/out-$t"
		awk -v mode=suite -v test="$t" -v num=$k -f boot/case-id.awk -f boot/ktap.awk \
			"$tmp/out-$t" "$tmp/out-$t"
	done
	total=$(for t in $plan; do sed -e '/^#/d' -e '/^[[:space:]]*$/d' "tests/expected/$t"; done | wc -l)
	s=$(for t in $plan; do grep "^$t: " "tests/expected/skips-$arch" || true; done | wc -l)
	echo "STAYAWAKE-RESULT passed=$((total - s)) failed=0 skipped=$s"
}

# judge NAME WANT(green|red) LOG [REASON]: red must say REASON.
judge() {
	if PLAN="$plan" KUNIT="${KUNIT:-}" boot/verdict.sh "$arch" "$3" 0 >"$tmp/out" 2>&1; then
		got=green
	else
		got=red
	fi
	if [ -n "${4:-}" ] && ! grep -qF "$4" "$tmp/out"; then
		got="$got without '$4'"
	fi
	if [ "$got" = "$2" ]; then
		echo "ok - verdict-selftest $arch: $1 is $2"
	else
		echo "not ok - verdict-selftest $arch: $1 is $got, not $2"
		sed 's/^/#   /' "$tmp/out"
		bad=1
	fi
}

# junit_has NAME XML PATTERN COUNT: the verdict's junit.xml has COUNT
# lines matching PATTERN
junit_has() {
	got=$(grep -cE "$3" "$2" || true)
	if [ "$got" = "$4" ]; then
		echo "ok - verdict-selftest $arch: $1"
	else
		echo "not ok - verdict-selftest $arch: $1: $got, not $4, of '$3'"
		bad=1
	fi
}

good_log >"$tmp/good"
judge "the planned run" green "$tmp/good"
cases=$(grep -cE '^    ok [0-9]+ ' "$tmp/good")
junit_has "junit.xml: a testcase per planned case" "$tmp/good.xml" '<testcase ' "$cases"
junit_has "junit.xml: a testsuite per test" "$tmp/good.xml" '<testsuite ' "$(echo $plan | wc -w)"

first=$(grep -m1 -E '^    ok [0-9]+ ' "$tmp/good")
# a planned case missing (and the sentinel counting what is left)
awk -v drop="$first" '$0 == drop { next }
	/^STAYAWAKE-RESULT/ { match($0, /passed=[0-9]+/); n = substr($0, RSTART + 7, RLENGTH - 7) - 1;
		sub(/passed=[0-9]+/, "passed=" n) } { print }' "$tmp/good" >"$tmp/missing"
judge "a missing case" red "$tmp/missing" "planned cases that did not run"

# a case nobody planned (counted by the sentinel too)
awk -v add="    ok 99 rtc_alarm_a_case_nobody_planned # detail" '
	/^STAYAWAKE-RESULT/ { print add; match($0, /passed=[0-9]+/); n = substr($0, RSTART + 7, RLENGTH - 7) + 1;
		sub(/passed=[0-9]+/, "passed=" n) } { print }' "$tmp/good" >"$tmp/extra"
judge "an extra case" red "$tmp/extra" "cases that ran but are not planned"

# one case printed twice
awk -v c="$first" '$0 == c { print } /^STAYAWAKE-RESULT/ { match($0, /passed=[0-9]+/);
		n = substr($0, RSTART + 7, RLENGTH - 7) + 1; sub(/passed=[0-9]+/, "passed=" n) }
	{ print }' "$tmp/good" >"$tmp/twice"
judge "a case printed twice" red "$tmp/twice" "cases named more than once"

# a renamed case: same count, another name
sed "0,/^    ok \([0-9]*\) rtc_alarm_/s//    ok \1 rtc_alarm_renamed_/" "$tmp/good" >"$tmp/renamed"
judge "a renamed case" red "$tmp/renamed" "cases that ran but are not planned"

# a case that skips where the data expects it to run
awk -v c="$first" '$0 == c { sub(/ # .*/, ""); print $0 " # SKIP not expected"; next }
	/^STAYAWAKE-RESULT/ { match($0, /passed=[0-9]+/); n = substr($0, RSTART + 7, RLENGTH - 7) - 1;
		sub(/passed=[0-9]+/, "passed=" n); match($0, /skipped=[0-9]+/);
		k = substr($0, RSTART + 8, RLENGTH - 8) + 1; sub(/skipped=[0-9]+/, "skipped=" k) }
	{ print }' "$tmp/good" >"$tmp/skip"
judge "an unexpected skip" red "$tmp/skip" "skips not expected"

# the sentinel disagrees with the case lines
sed 's/^STAYAWAKE-RESULT passed=\([0-9]*\)/STAYAWAKE-RESULT passed=1\1/' "$tmp/good" >"$tmp/count"
judge "a sentinel that disagrees with the case lines" red "$tmp/count" "the console's case lines"

# the guest counted a failure whose line did not survive on the console
sed 's/failed=0/failed=1/' "$tmp/good" >"$tmp/lost"
judge "a failure counted by the guest but not printed" red "$tmp/lost" "the guest counted 1 failed"

# a failed case
sed "0,/^    ok \([0-9]*\) rtc_alarm_/s//    not ok \1 rtc_alarm_/" "$tmp/good" |
	sed 's/^STAYAWAKE-RESULT passed=\([0-9]*\) failed=0/STAYAWAKE-RESULT passed=\1 failed=1/' |
	awk '/^STAYAWAKE-RESULT/ { match($0, /passed=[0-9]+/); n = substr($0, RSTART + 7, RLENGTH - 7) - 1;
		sub(/passed=[0-9]+/, "passed=" n) } { print }' >"$tmp/failed"
judge "a failed case" red "$tmp/failed" "failed cases:"

# no sentinel: the guest hung or died
grep -v '^STAYAWAKE-RESULT' "$tmp/good" >"$tmp/hung"
judge "a run without its sentinel" red "$tmp/hung" "no STAYAWAKE-RESULT sentinel"
junit_has "junit.xml: a hang is a failed verdict case" "$tmp/hung.xml" \
	'<testcase classname="[^"]*\.verdict" name="no_stayawake_result_sentinel' 1

# another plan than the one asked for
sed 's/^STAYAWAKE-PLAN .*/STAYAWAKE-PLAN rtc_alarm/' "$tmp/good" >"$tmp/plan"
judge "a guest that ran another plan" red "$tmp/plan" "the guest ran the plan"

# a test's subtest without its closing line: the kernel's parser calls it
# crashed although every case line is there
first_test=$(echo $plan | cut -d' ' -f1)
grep -vx "ok 1 $first_test" "$tmp/good" >"$tmp/crashed"
judge "a KTAP subtest without its result line" red "$tmp/crashed" "kunit.py parse reads"

# a kernel report
sed 's/^# ---- api /WARNING: CPU: 0 PID: 1 at kernel\/sched\/core.c:1\n&/' "$tmp/good" >"$tmp/warn"
judge "a kernel warning" red "$tmp/warn" "kernel reports in the console"

exit "$bad"

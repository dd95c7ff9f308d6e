#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Judge one guest run from its console log.
#
#   verdict.sh ARCH LOG QEMU_STATUS
# Prints "ARCH: N passed, N failed" and writes it to LOG.summary; exits
# non-zero when the run is red, naming why.
set -u

arch=$1
log=$2
qemu_rc=$3
red=0

fail() {
	echo "$arch: FAIL: $*" >&2
	red=1
}

# Kernel reports that make any run red (rcutorture's console-badness set,
# plus lockdep and KASAN signatures).
badness='WARNING:|BUG:|Oops|Call [Tt]race:|Kernel panic|INFO: possible|possible recursive locking|possible circular locking|inconsistent lock state|KASAN:|UBSAN:|kernel BUG'

result=$(sed -n 's/.*STAYAWAKE-RESULT passed=\([0-9]*\) failed=\([0-9]*\).*/\1 \2/p' "$log" | tail -n 1)
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
	fail "guest timed out (no power-off before the host's limit)"
fi
if [ -z "$result" ]; then
	last=$(sed -n 's/^# ---- //p' "$log" | tail -n 1)
	fail "no STAYAWAKE-RESULT sentinel: the guest hung, panicked or init died${last:+ (in test '$last')}"
	result="0 1"
fi
set -- $result
passed=$1
failed=$2

if grep -q '^not ok' "$log"; then
	fail "failed cases:"
	grep '^not ok' "$log" | sed "s/^/  $arch: /" >&2
	[ "$failed" -gt 0 ] || failed=1
fi
if grep -Eq "$badness" "$log"; then
	fail "kernel reports in the console:"
	grep -En "$badness" "$log" | head -n 20 | sed "s/^/  $arch: /" >&2
	failed=$((failed + 1))
fi

echo "$arch: $passed passed, $failed failed" | tee "$log.summary"
if [ "$red" -ne 0 ]; then
	echo "$arch: full console log: $log" >&2
	exit 1
fi
exit 0

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compare the kernel's selftests on the patched and the vanilla kernel, case
# by case (make selftests).
#
#   selftests-table.sh ARCH PATCHED_LOG VANILLA_LOG REPORT_MD
# Writes a markdown table to REPORT_MD and prints it; exits 1 when the
# patched kernel is worse than vanilla in any case, did not finish, or
# printed a kernel report.
set -u

arch=$1
patched=$2
vanilla=$3
report=$4
badness=$(sed '/^#/d' "$(dirname "$0")/../boot/badness")

# One "KEY<TAB>RESULT" line per case, in the order the log gives them.
# Cases: KTAP lines (ok/not ok), the timers tests' "... [OK]" lines (named
# by the text before the first colon, numbered when repeated) and each
# program's exit status.
cases() {
	awk '
	function put(key, res) {
		if (++seen[prog ": " key] > 1)
			key = key " (" seen[prog ": " key] ")"
		printf "%s: %s\t%s\n", prog, key, res
	}
	# The serial console ends its lines with CR LF.
	{ sub(/\r$/, "") }
	/^# ---- selftest / { prog = $4; next }
	prog == "" { next }
	/^SELFTEST-EXIT / {
		rc = $3
		res = rc == 0 ? "PASS" : rc == 4 ? "SKIP" : \
		      rc == 124 ? "FAIL (timed out)" : "FAIL (exit " rc ")"
		put("exit status", res)
		prog = ""
		next
	}
	/^(not )?ok [0-9]+ / {
		res = /^not / ? "FAIL" : "PASS"
		line = $0
		sub(/^(not )?ok [0-9]+ /, "", line)
		# kselftest puts "# SKIP" before the name, the harness after it.
		if (line ~ /^# *SKIP/) {
			res = "SKIP"
			sub(/^# *SKIP */, "", line)
		} else if (line ~ /# *SKIP/)
			res = "SKIP"
		sub(/ *#.*$/, "", line)
		gsub(/[ \t]+/, " ", line)
		sub(/ $/, "", line)
		put(line, res)
		next
	}
	/\[(OK|FAIL|FAILED|UNSUPPORTED|SKIP)\][ \t]*$/ {
		res = /\[OK\]/ ? "PASS" : /\[(UNSUPPORTED|SKIP)\]/ ? "SKIP" : "FAIL"
		line = $0
		sub(/\[[A-Z]+\][ \t]*$/, "", line)
		sub(/:.*$/, "", line)
		gsub(/[ \t]+/, " ", line)
		sub(/^ /, "", line)
		sub(/ $/, "", line)
		put(line, res)
	}
	END {
		if (prog != "")
			printf "%s: exit status\tFAIL (did not finish)\n", prog
	}' "$1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases "$patched" >"$tmp/p"
cases "$vanilla" >"$tmp/v"

rank() {
	case $1 in
	PASS) echo 2 ;;
	SKIP) echo 1 ;;
	*) echo 0 ;;
	esac
}

worse=0
total=0
{
	echo "# Kernel selftests on $arch: patched vs vanilla"
	echo
	echo "Same binaries (built from the patched tree), same config apart from"
	echo "the series; logs: \`$(basename "$patched")\`, \`$(basename "$vanilla")\`."
	echo
	echo "| case | patched | vanilla | |"
	echo "|---|---|---|---|"
	cut -f1 "$tmp/p" "$tmp/v" | awk '!seen[$0]++' >"$tmp/keys"
	while IFS= read -r key; do
		p=$(awk -F '\t' -v k="$key" '$1 == k { print $2; exit }' "$tmp/p")
		v=$(awk -F '\t' -v k="$key" '$1 == k { print $2; exit }' "$tmp/v")
		mark=""
		if [ "$(rank "${p:-missing}")" -lt "$(rank "${v:-missing}")" ]; then
			mark="**worse**"
			worse=$((worse + 1))
		fi
		total=$((total + 1))
		echo "| $key | ${p:-missing} | ${v:-missing} | $mark |"
	done <"$tmp/keys"
	echo
	for side in p v; do
		log=$patched
		name=patched
		[ "$side" = v ] && log=$vanilla && name=vanilla
		fin=yes
		grep -q STAYAWAKE-SELFTESTS-END "$log" || fin=no
		echo "- $name: $(grep -c '	PASS' "$tmp/$side") pass," \
		     "$(grep -c '	SKIP' "$tmp/$side") skip," \
		     "$(grep -c '	FAIL' "$tmp/$side") fail;" \
		     "finished: $fin; kernel reports: $(grep -Ec "$badness" "$log")"
	done
} >"$report"
cat "$report"

red=0
if [ "$worse" -gt 0 ]; then
	echo "selftests $arch: the patched kernel is worse than vanilla in $worse case(s)" >&2
	red=1
fi
if ! grep -q STAYAWAKE-SELFTESTS-END "$patched"; then
	echo "selftests $arch: the patched guest did not finish; see $patched" >&2
	red=1
fi
if grep -Eq "$badness" "$patched"; then
	echo "selftests $arch: kernel reports in $patched:" >&2
	grep -En "$badness" "$patched" | head -n 10 >&2
	red=1
fi
[ "$red" -eq 0 ] &&
	echo "selftests $arch: patched no worse than vanilla in all $total cases"
exit $red

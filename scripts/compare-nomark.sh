#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Nothing marked behaves like vanilla: the nomark test's rows (each case's
# 'got "..."') of the vanilla boot against the patched boot's, row by row
# (make compare-nomark, part of make test).
#
#   compare-nomark.sh ARCH VANILLA_LOG PATCHED_LOG OUT
# Writes the table to OUT.md and prints it; writes
# "ARCH nomark vanilla=patched: N passed, N failed, 0 skipped" (a row the
# same is passed, one that differs or is missing on a side failed) to
# OUT.summary. Exits 1 when a row differs, a side has no rows, or a boot
# was not judged (its LOG.summary is missing).
set -u

arch=$1
vanilla=$2
patched=$3
out=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$out.md" "$out.summary"
mkdir -p "$(dirname "$out")"

# "CASE<TAB>RESULT" per nomark case line (KTAP: its ID after nomark_), in
# the console's order.
rows() {
	tr -d '\r' <"$1" |
		sed -n -E 's/^ *(not )?ok [0-9]+ nomark_([a-z0-9_]*) # got "([^"]*)".*/\2\t\3/p'
}

red=0
# take_rows SIDE LOG: the rows of one boot into $tmp/SIDE.
take_rows() {
	if [ ! -f "$2.summary" ]; then
		echo "$arch: FAIL: the $1 boot was not judged (no $2.summary)" >&2
		red=1
	fi
	rows "$2" >"$tmp/$1" 2>/dev/null || : >"$tmp/$1"
	if [ ! -s "$tmp/$1" ]; then
		echo "$arch: FAIL: no nomark rows in the $1 boot ($2)" >&2
		red=1
	fi
}
take_rows vanilla "$vanilla"
take_rows patched "$patched"

# Every case of either side, vanilla's order first; a side without it
# shows "(no row)".
awk -F '\t' -v arch="$arch" '
	!($1 in seen) { seen[$1] = 1; order[++n] = $1 }
	FILENAME == ARGV[1] { v[$1] = $2; next }
	{ p[$1] = $2 }
	END {
		print "nomark, " arch ": nothing marked, the patched kernel against the vanilla one"
		print ""
		print "| case | vanilla | patched | same |"
		print "| --- | --- | --- | --- |"
		for (i = 1; i <= n; i++) {
			c = order[i]
			a = (c in v) ? v[c] : "(no row)"
			b = (c in p) ? p[c] : "(no row)"
			ok = (c in v) && (c in p) && a == b
			print "| " c " | " a " | " b " | " (ok ? "yes" : "**no**") " |"
		}
	}' "$tmp/vanilla" "$tmp/patched" >"$out.md"
same=$(grep -c ' | yes |$' "$out.md")
differ=$(grep -c ' | \*\*no\*\* |$' "$out.md")
cat "$out.md"
failed=$differ
[ "$differ" -eq 0 ] || red=1
# A boot not judged or without rows is a failure even with no row differing.
[ "$red" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "$arch nomark vanilla=patched: $same passed, $failed failed, 0 skipped" |
	tee "$out.summary"
if [ "$red" -ne 0 ]; then
	echo "$arch: FAIL: nothing marked does not behave like vanilla ($out.md)" >&2
	exit 1
fi
exit 0

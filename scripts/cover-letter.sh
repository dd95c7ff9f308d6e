#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write DIR/0000-cover-letter.patch for BASE..TIP of a git tree: git
# format-patch's cover letter (shortlog, diffstat) with the subject and
# blurb of the template DIR/cover-letter.in (first line: the subject).
# The date is the tip's author date, so the same tree gives the same file.
#
#   cover-letter.sh GIT_TREE BASE..TIP DIR
set -eu

tree=$1
range=$2
dir=$3
template=$dir/cover-letter.in

[ -f "$template" ] || { echo "cover-letter: no $template" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

git -C "$tree" format-patch -q --cover-letter --no-signature --zero-commit \
	-o "$tmp" "$range"
date=$(git -C "$tree" log -1 --format=%aD "${range#*..}")
subject=$(sed -n 1p "$template")
sed -n '3,$p' "$template" >"$tmp/blurb"

# Replace the date, the subject placeholder and the blurb line.
awk -v date="$date" -v subject="$subject" -v blurb="$tmp/blurb" '
	!done_date && /^Date: / { print "Date: " date; done_date = 1; next }
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline line < blurb) > 0)
			print line
		next
	}
	{ print }
' "$tmp/0000-cover-letter.patch" >"$dir/0000-cover-letter.patch"
grep -q '\*\*\* .* HERE \*\*\*' "$dir/0000-cover-letter.patch" &&
	{ echo "cover-letter: a placeholder is left" >&2; exit 1; }
echo "cover-letter: $dir/0000-cover-letter.patch"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate a series directory from a git tree of the kernel with
# git format-patch: patches are changed by editing commits, never hunks.
# The series file keeps its leading comment lines; a DIR/cover-letter.in
# makes DIR/0000-cover-letter.patch too (scripts/cover-letter.sh).
#
#   export-series.sh GIT_TREE BASE..TIP DIR
set -eu

tree=$1
range=$2
dir=$3

base=${range%%..*}
git -C "$tree" merge-base --is-ancestor "$base" "${range#*..}" 2>/dev/null || {
	echo "export: $base is not an ancestor of ${range#*..} in $tree;" \
		"after a rebase move the tag: git tag -f $base <commit>" >&2
	exit 1
}

header=$(sed -n '/^#/p;/^[^#]/q' "$dir/series" 2>/dev/null || true)
rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
git -C "$tree" format-patch -q --no-signature --zero-commit -o "$(cd "$dir" && pwd)" "$range"
{
	[ -n "$header" ] && printf '%s\n' "$header"
	(cd "$dir" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-')
} >"$dir/series"
echo "export: $(grep -vc '^#' "$dir/series") patches in $dir"
# A series with a template gets its cover letter from the same range.
[ ! -f "$dir/cover-letter.in" ] ||
	"$(dirname "$0")/cover-letter.sh" "$tree" "$range" "$dir"

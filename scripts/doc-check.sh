#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The series adds no documentation warnings: kernel-doc -none on each .c and
# .h file it changes, and the kernel's htmldocs (Sphinx) on each top
# directory of Documentation/ holding a .rst file it changes. Each check runs
# on the unpatched tree too, and only what it lacks fails: 6.1 has
# warnings of its own in these files.
#
#   doc-check.sh SRC BASE WORKDIR SERIES_DIR...   (BASE: the unpatched tree)
# DOCDIRS="a b", if set, are the directories Sphinx builds instead.
set -eu

# Debian's python3 and sphinx-build, not a local one (pyenv).
export PATH="/usr/bin:$PATH"
# Neither tree gets a __pycache__: SRC is only read.
export PYTHONDONTWRITEBYTECODE=1
export LC_ALL=C

die() {
	echo "doc-check: $*" >&2
	exit 1
}

[ $# -ge 4 ] || die "usage: doc-check.sh SRC BASE WORKDIR SERIES_DIR..."
# make -C would read a relative O= from inside the tree.
src=$(readlink -f "$1")
base=$(readlink -f "$2")
mkdir -p "$3"
work=$(readlink -f "$3")
shift 3
out=$work/out
[ -x "$src/scripts/kernel-doc" ] || die "$src is no kernel tree"
command -v sphinx-build >/dev/null || die "no sphinx-build: make deps"

# Lines of $2 that $1 lacks (each line counted), compared without tree paths
# and line numbers: a patch moves the lines below it.
new_lines() {
	awk -v a="$base" -v b="$src" '
	function key(s,  i) {
		while ((i = index(s, a)) > 0)
			s = substr(s, 1, i - 1) substr(s, i + length(a))
		while ((i = index(s, b)) > 0)
			s = substr(s, 1, i - 1) substr(s, i + length(b))
		gsub(/:[0-9]+:/, ":", s)
		return s
	}
	FILENAME == ARGV[1] { seen[key($0)]++; next }
	{ k = key($0); if (seen[k] > 0) seen[k]--; else print }' "$1" "$2"
}

# The files the series changes, as its +++ lines name them.
for dir in "$@"; do
	for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$dir/series"); do
		sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$dir/$p"
	done
done | sort -u >"$work/files"

# kernel-doc, from each tree's top so it names files as the series does. A
# file the series adds has nothing to compare with; one it adds and removes
# again is skipped.
: >"$work/kdoc.base"
: >"$work/kdoc.patched"
nk=0
for f in $(grep -E '\.[ch]$' "$work/files" || true); do
	[ -f "$src/$f" ] || continue
	nk=$((nk + 1))
	(cd "$src" && scripts/kernel-doc -none "$f") >>"$work/kdoc.patched" 2>&1 || true
	[ ! -f "$base/$f" ] ||
		(cd "$base" && scripts/kernel-doc -none "$f") >>"$work/kdoc.base" 2>&1 || true
done
new_lines "$work/kdoc.base" "$work/kdoc.patched" >"$work/kdoc.new"

# Sphinx reaches a file from its directory's index.rst; one directly under
# Documentation/ needs the whole book.
dirs=${DOCDIRS:-$(sed -n 's|^Documentation/\([^/]*\)/.*\.rst$|\1|p' "$work/files" |
	sort -u | tr '\n' ' ')}
dirs=${dirs% }
if [ -z "${DOCDIRS:-}" ] && grep -q '^Documentation/[^/]*\.rst$' "$work/files"; then
	dirs=.
fi
: >"$work/sphinx.base"
: >"$work/sphinx.patched"
# sphinx TREE LOG: into an empty $out every time, since Sphinx warns only
# about what it reads, and it reads again only what changed.
sphinx() {
	rm -rf "$out"
	echo "doc-check: htmldocs SPHINXDIRS=\"$dirs\" of $1"
	make -C "$1" O="$out" SPHINXDIRS="$dirs" -j"$(nproc)" \
		htmldocs >"$2" 2>&1 || {
		tail -n 30 "$2" >&2
		die "htmldocs failed in $1 (log: $2)"
	}
}
if [ -n "$dirs" ]; then
	sphinx "$base" "$work/sphinx.base"
	# Last, so $out keeps the patched HTML to look at.
	sphinx "$src" "$work/sphinx.patched"
fi
new_lines "$work/sphinx.base" "$work/sphinx.patched" >"$work/sphinx.new"

bad=0
if [ -s "$work/kdoc.new" ]; then
	echo "doc-check: kernel-doc -none warns where the unpatched tree does not:"
	cat "$work/kdoc.new"
	bad=1
fi
if [ -s "$work/sphinx.new" ]; then
	echo "doc-check: htmldocs warns where the unpatched tree does not:"
	cat "$work/sphinx.new"
	bad=1
fi
[ "$bad" = 1 ] || echo "doc-check: nothing new (logs: $work/kdoc.*, $work/sphinx.*)"
echo "doc-check: kernel-doc on $nk files, Sphinx on ${dirs:-nothing}"
exit "$bad"

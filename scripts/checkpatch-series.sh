#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the tree's checkpatch.pl --strict on every patch of every series.
#
#   checkpatch-series.sh TREE DIR...
set -eu

# Debian's python3 (with python3-ply) for spdxcheck.py, not a local one.
export PATH=/usr/bin:$PATH
tree=$1
shift
top=$(pwd)

# spdxcheck.py reads LICENSES/ from a git repository at checkpatch's --root.
# The unpacked tree is no repository (and must not become one: setlocalversion
# would change the release), so give checkpatch a shadow root that is.
root=$(dirname "$tree")/checkpatch-root
if [ ! -d "$root/.git" ]; then
	rm -rf "$root"
	mkdir -p "$root"
	for f in "$tree"/*; do
		[ "$(basename "$f")" = LICENSES ] || ln -s "$f" "$root/"
	done
	cp -r "$tree/LICENSES" "$root/"
	git -C "$root" init -q
	git -C "$root" add LICENSES
	git -C "$root" -c user.name=checkpatch -c user.email=checkpatch@localhost \
		commit -q -m LICENSES
fi
bad=0
n=0
for dir in "$@"; do
	for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$dir/series"); do
		n=$((n + 1))
		# From the root, not from a git checkout of ours: checkpatch
		# looks at the git tree it runs in.
		# The tarball has no history, so checkpatch cannot look up
		# the shas of Fixes: tags; they were checked against public
		# sources (wip/series/fixes-research.md).
		if ! (cd "$root" && ./scripts/checkpatch.pl --strict -q \
			--ignore UNKNOWN_COMMIT_ID "$top/$dir/$p"); then
			echo "checkpatch: $dir/$p is not clean" >&2
			bad=1
		fi
	done
done
echo "checkpatch: $n patches checked"
exit "$bad"

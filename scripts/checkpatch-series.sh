#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the tree's checkpatch.pl --strict on every patch of every series.
#
#   checkpatch-series.sh TREE DIR...
set -eu

tree=$1
shift
bad=0
n=0
for dir in "$@"; do
	for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$dir/series"); do
		n=$((n + 1))
		if ! "$tree/scripts/checkpatch.pl" --strict -q "$dir/$p"; then
			echo "checkpatch: $dir/$p is not clean" >&2
			bad=1
		fi
	done
done
echo "checkpatch: $n patches checked"
exit "$bad"

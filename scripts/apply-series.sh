#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Apply quilt-style series to a kernel tree, no fuzz allowed.
# An unlisted patch file or a series line with no file is an error, as in
# OpenWrt's quilt.mk.
#
#   apply-series.sh TREE DIR...     (each DIR has a 'series' file)
set -eu

tree=$1
shift

die() {
	echo "apply-series: $*" >&2
	exit 1
}

series_entries() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1/series"
}

for dir in "$@"; do
	[ -f "$dir/series" ] || die "$dir/series: missing"
	for p in $(series_entries "$dir"); do
		[ -f "$dir/$p" ] || die "$dir/series lists $p, which does not exist"
	done
	for f in "$dir"/*.patch; do
		[ -e "$f" ] || continue
		# The cover letter describes the series; it is no patch.
		[ "$(basename "$f")" = 0000-cover-letter.patch ] && continue
		series_entries "$dir" | grep -qx "$(basename "$f")" ||
			die "$f is listed in no series ($dir/series)"
	done
done

for dir in "$@"; do
	for p in $(series_entries "$dir"); do
		echo "  APPLY   $dir/$p"
		patch -d "$tree" -p1 -F0 -N -s --no-backup-if-mismatch \
			<"$dir/$p" || die "$dir/$p does not apply without fuzz"
	done
done

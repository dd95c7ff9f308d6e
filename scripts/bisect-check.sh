#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the kernel after every patch of the series, incrementally, with the
# test config (a Kconfig symbol that does not exist yet is dropped until its
# patch adds it), then once more with CONFIG_SCHED_STAYAWAKE=n.
#
#   bisect-check.sh WORKDIR CONFIG TARGET TARBALL SERIES_DIR...
# Kernel make arguments: $KARGS (ARCH=, CROSS_COMPILE=) and the compiler $KCC.
set -eu

work=$1
config=$2
target=$3
tarball=$4
shift 4
tree=$work/src
out=$work/out

die() {
	echo "bisect-check: $*" >&2
	exit 1
}

# build [scripts/config options]
build() {
	cp "$config" "$out/.config"
	# shellcheck disable=SC2068
	[ $# -eq 0 ] || "$tree/scripts/config" --file "$out/.config" $@
	# shellcheck disable=SC2086
	if ! make -s -C "$tree" O="$out" $KARGS CC="$KCC" olddefconfig \
		>"$work/build.log" 2>&1 ||
	   ! make -s -C "$tree" O="$out" $KARGS CC="$KCC" -j"$(nproc)" "$target" \
		>>"$work/build.log" 2>&1; then
		tail -n 30 "$work/build.log" >&2
		return 1
	fi
}

mkdir -p "$work" "$out"
top=$(basename "$tarball" .tar.xz)
rm -rf "$tree" "${work:?}/$top"
tar -C "$work" -xf "$tarball"
mv "$work/$top" "$tree"

n=0
echo "bisect-check: base"
build || die "the unpatched tree does not build"
for dir in "$@"; do
	for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$dir/series"); do
		n=$((n + 1))
		patch -d "$tree" -p1 -F0 -s <"$dir/$p"
		echo "bisect-check: $dir/$p"
		build || die "does not build after $dir/$p"
	done
done
echo "bisect-check: all $n patches with CONFIG_SCHED_STAYAWAKE=n"
build -d SCHED_STAYAWAKE || die "does not build with CONFIG_SCHED_STAYAWAKE=n"
grep -q '^# CONFIG_SCHED_STAYAWAKE is not set' "$out/.config" ||
	die "could not switch CONFIG_SCHED_STAYAWAKE off"
echo "bisect-check: every patch builds"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's busybox-static for DEB_ARCH and copy its binary to OUT.
# Same route for every arch, so the guest never depends on the host's busybox.
#
#   fetch-busybox.sh DEB_ARCH OUT
set -eu

arch=$1
out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
if ! apt-get download -q "busybox-static:$arch" >/dev/null 2>&1; then
	apt-get update -qq
	apt-get download -q "busybox-static:$arch" >/dev/null
fi
dpkg -x busybox-static_*.deb root
cd - >/dev/null
cp "$work/root/bin/busybox" "$out"
file_arch=$(od -An -j18 -N2 -tu2 "$out" | tr -d ' ')
echo "busybox for $arch: $(basename "$work"/busybox-static_*.deb) (e_machine $file_arch)"

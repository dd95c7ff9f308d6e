#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# LAVA's device-type templates (qemu.jinja2 & co.) as lava-server ships
# them, without installing lava-server: its postinst sets up a PostgreSQL
# database and services. Fetches the Debian package and extracts the folder.
#
#   lava/device-types.sh DIR    -> DIR/usr/share/lava-server/device-types
# Prints the folder, for LAVA_DEVICE_TYPES.
set -eu
dir=$1
dt=$dir/usr/share/lava-server/device-types
if [ ! -f "$dt/qemu.jinja2" ]; then
	mkdir -p "$dir/deb"
	rm -f "$dir"/deb/lava-server_*.deb
	(cd "$dir/deb" && apt-get download -q lava-server >/dev/null)
	dpkg-deb --fsys-tarfile "$dir"/deb/lava-server_*.deb |
		tar -x -C "$dir" ./usr/share/lava-server/device-types
fi
echo "$dt"

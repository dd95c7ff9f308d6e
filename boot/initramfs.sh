#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write the gen_init_cpio list for the guest initramfs on stdout. No root
# needed: owners and modes come from the list, not from the build host.
#
#   initramfs.sh BUSYBOX INIT STAYAWAKE DEMO BENCHDIR TESTDIR PLATFORM TEST...
set -eu

busybox=$1
init=$2
stayawake=$3
demo=$4
benchdir=$5
testdir=$6
platform=$7
shift 7

cat <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/null 0666 0 0 c 1 3
dir /bin 0755 0 0
dir /sbin 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 1777 0 0
dir /root 0700 0 0
dir /tests 0755 0 0
dir /bench 0755 0 0
file /bin/busybox $busybox 0755 0 0
slink /bin/sh busybox 0777 0 0
file /bin/stayawake $stayawake 0755 0 0
file /bin/stayawake-demo $demo 0755 0 0
file /bench/wakeup $benchdir/wakeup 0755 0 0
file /bench/dutycycle $benchdir/dutycycle 0755 0 0
file /init $init 0755 0 0
file /bin/stayawake-tests $(dirname "$init")/run-tests 0755 0 0
file /bin/stayawake-lava $(dirname "$init")/../lava/stayawake-lava 0755 0 0
dir /etc 0755 0 0
file /etc/badness $(dirname "$init")/badness 0644 0 0
file /etc/ktap.awk $(dirname "$init")/ktap.awk 0644 0 0
file /etc/case-id.awk $(dirname "$init")/case-id.awk 0644 0 0
file /etc/platform $platform 0644 0 0
file /tests/order $testdir/order 0644 0 0
LIST
for t in "$@"; do
	echo "file /tests/$t $testdir/$t 0755 0 0"
done

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The host's side of the input tests. Reads the guest's console on stdin and
# answers the one request a test may print at the end of a line:
#
#   STAYAWAKE-HOST press-power N   press the power key N s from now (0-99)
#
# through QEMU's QMP socket (system_powerdown: virt's gpio-keys, pc's ACPI
# power button). Anything else is refused: nothing the guest prints is
# evaluated. What it did goes to stderr, into the console log.
#
#   host-requests.sh QMP_SOCKET
set -eu
sock=$1

# One QMP command after the handshake; its reply, or socat's error.
qmp() {
	printf '{"execute":"qmp_capabilities"}\n{"execute":"%s"}\n' "$1" |
		socat -t 1 - "UNIX-CONNECT:$sock" 2>&1 | grep -v '"QMP"' |
		tr -d '\r\n'
}

press_power() {
	sleep "$1"
	echo "stayawake-host: press-power: system_powerdown: $(qmp system_powerdown)" >&2
}

cr=$(printf '\r')
while IFS= read -r line || [ -n "$line" ]; do
	line=${line%"$cr"}
	case $line in
	*"STAYAWAKE-HOST press-power "[0-9] | \
	*"STAYAWAKE-HOST press-power "[0-9][0-9])
		press_power "${line##* }" &
		;;
	*"STAYAWAKE-HOST "*)
		echo "stayawake-host: refused: ${line#*STAYAWAKE-HOST }" >&2
		;;
	esac
done
# A press still pending finds no QEMU; it says so and ends.
wait

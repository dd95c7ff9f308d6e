#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what the host needs (scripts/deps-packages) from Debian's packages.
# Idempotent: one dpkg-query per package when everything is there.
# scripts/check-deps.sh proves the list complete.
set -eu
cd "$(dirname "$0")/.."

PKGS=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/deps-packages)

# A package an installed one provides counts as installed: NodeSource's
# nodejs provides npm (and conflicts with Debian's).
provided=$(dpkg-query -W -f='${db:Status-Status} ${Provides}\n' |
	sed -n 's/^installed //p' | tr ',' '\n' |
	sed -e 's/(.*//' -e 's/[[:space:]]//g')

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) printf '%s\n' "$provided" | grep -qx "$p" || missing="$missing $p" ;;
	esac
done

# busybox-static:arm64 and :armhf are downloaded, not installed (they would
# replace the host's); their package lists need the foreign architectures.
FOREIGN="arm64 armhf"
foreign=""
for a in $FOREIGN; do
	dpkg --print-foreign-architectures | grep -qx "$a" || foreign="$foreign $a"
done

[ -z "$missing" ] && [ -z "$foreign" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing${foreign:+; foreign architectures:$foreign}; run 'make deps' as root" >&2
	exit 1
fi
for a in $foreign; do
	dpkg --add-architecture "$a"
done
echo "deps: installing:$missing"
apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing

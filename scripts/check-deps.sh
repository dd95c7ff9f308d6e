#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prove that `make deps` is complete, after it ran: every command the host
# side runs (scripts/deps-commands) comes from a package that deps installs
# (scripts/deps-packages, with what those depend on) or from one that every
# Debian has (Essential or Priority required); and every word of our
# scripts that names an installed program is listed there, as a command or
# as a word that is not run. Only Debian's paths count: a program a user
# put in /usr/local or a pyenv shim is not what a fresh machine has.
#
#   check-deps.sh
set -eu
cd "$(dirname "$0")/.."
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
problem() {
	echo "check-deps: $*" >&2
	bad=1
}

# "a b: why" lines: the words before the colon.
sed -e 's/#.*//' -e 's/:.*//' scripts/deps-commands | tr -s ' \t' '\n\n' |
	sed '/^$/d' >"$tmp/words"
grep -v '^-' "$tmp/words" | sort -u >"$tmp/commands"
sed -n 's/^-//p' "$tmp/words" | sort -u >"$tmp/ignored"
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/deps-packages | sort -u >"$tmp/listed"

# The packages deps installs, with everything they pull in.
# shellcheck disable=SC2046
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances $(cat "$tmp/listed") 2>/dev/null |
	sed -n 's/^\([^ <][^ :]*\).*/\1/p' | cat - "$tmp/listed" | sort -u >"$tmp/closure"
grep -qx rsync "$tmp/closure" 2>/dev/null || [ -s "$tmp/closure" ] ||
	problem "apt-cache depends gave nothing: run 'apt-get update' first"

everywhere() {
	dpkg-query -W -f='${Essential} ${Priority}\n' "$1" 2>/dev/null |
		grep -Eq '^yes|required'
}

# Each command's path, and its target; merged /usr means dpkg may know a
# file by /bin rather than /usr/bin. One dpkg -S for all of them.
while read -r c; do
	path=$(command -v "$c" 2>/dev/null) || {
		problem "'$c' is not installed (no package of scripts/deps-packages brought it)"
		continue
	}
	# An alternative (awk: mawk or gawk) counts by every program that
	# can stand behind it: a fresh machine has the one it ships.
	alts=""
	case "$(readlink "$path")" in
	/etc/alternatives/*)
		alts=$(update-alternatives --list "$(basename "$(readlink "$path")")" 2>/dev/null) ;;
	esac
	for f in "$path" "$(readlink -f "$path")" $alts; do
		printf '%s %s\n%s %s\n' "$c" "$f" "$c" "$(echo "$f" | sed 's|^/usr/|/|')"
	done
done <"$tmp/commands" >"$tmp/paths"
sort -u -o "$tmp/paths" "$tmp/paths"
# shellcheck disable=SC2046
dpkg -S $(cut -d' ' -f2 "$tmp/paths") 2>/dev/null |
	sed -n 's/^\([^:]*\)\(:[a-z0-9]*\)\{0,1\}: \(.*\)/\3 \1/p' >"$tmp/owners"

for c in $(cut -d' ' -f1 "$tmp/paths" | sort -u); do
	pkgs=$(grep "^$c " "$tmp/paths" | cut -d' ' -f2 | while read -r f; do
		grep "^$f " "$tmp/owners" | cut -d' ' -f2- | tr -d ',' | tr ' ' '\n'
	done | sort -u | sed '/^$/d')
	ok=no
	for p in $pkgs; do
		if grep -qx "$p" "$tmp/closure" || everywhere "$p"; then
			ok=yes
			break
		fi
	done
	[ "$ok" = yes ] ||
		problem "'$c' ($(command -v "$c")) comes from ${pkgs:-no package}, which scripts/deps-packages does not install"
done

# Words of our host scripts that name an installed program: each must be
# accounted for in scripts/deps-commands.
for f in Makefile .ci/run boot/*.sh boot/*.mk scripts/*.sh bench/*.sh demo/*.sh; do
	sed -e 's/\(^\|[[:space:]]\)#.*$//' "$f"
done | tr -c 'A-Za-z0-9_.+-' '\n' | grep -E '^[a-z][a-z0-9_.+-]*$' | sort -u |
while read -r w; do
	case "$(command -v "$w" 2>/dev/null)" in
	/*) echo "$w" ;;
	esac
done >"$tmp/named"
comm -23 "$tmp/named" "$tmp/commands" | comm -23 - "$tmp/ignored" >"$tmp/unlisted"
if [ -s "$tmp/unlisted" ]; then
	problem "programs named in the scripts but not in scripts/deps-commands: $(tr '\n' ' ' <"$tmp/unlisted")"
fi

[ "$bad" = 0 ] || exit 1
echo "check-deps: $(wc -l <"$tmp/commands") commands, each from a package make deps installs or every Debian has"

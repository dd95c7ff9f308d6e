#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fail unless every line of every fragment landed in .config.
# merge_config.sh only warns; this makes a dropped line a build error.
#
#   check-config.sh .config FRAGMENT...
set -eu

config=$1
shift
bad=0

# The symbols a fragment sets; a later fragment's line wins, as in
# merge_config.sh, so only the last setting of a symbol is checked.
syms() {
	sed -nE 's/^(# )?(CONFIG_[A-Za-z0-9_]+)[= ].*/\2/p' "$1"
}

i=0
for frag in "$@"; do
	i=$((i + 1))
	later=$(shift "$i"; for f in "$@"; do syms "$f"; done)
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$config" && continue
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$config" || continue
			;;
		*) continue ;;
		esac
		sym=$(echo "$line" | sed -E 's/^(# )?(CONFIG_[A-Za-z0-9_]+).*/\2/')
		echo "$later" | grep -qx "$sym" && continue
		got=$(grep -E "^$sym=|^# $sym is not set" "$config" || echo "(absent: unmet dependencies)")
		echo "config: $frag:$n: wanted '$line', got '$got'" >&2
		bad=1
	done <"$frag"
done

[ "$bad" = 0 ] || { echo "config: fragment lines did not land (above)" >&2; exit 1; }
echo "config: every fragment line landed in $config"

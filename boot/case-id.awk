# SPDX-License-Identifier: GPL-2.0
# A case's ID, for ktap.awk (guest and host) and junit.awk: its name lower
# case, every run of other characters than letters and digits one "_".
function id(name) {
	name = tolower(name)
	gsub(/[^a-z0-9]+/, "_", name)
	sub(/^_/, "", name)
	sub(/_$/, "", name)
	return name
}

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# SVG of the duty-cycle benchmark: for (A) stayawake, (B) wake_lock +
# EPOLLWAKEUP and (E) stayawake in an epoll event loop, the system awake/suspended and the task working (holding the
# system) or waiting, from the SPAN and SUSP lines of the guest.
#
#   plot.sh DUTY_LOG OUT.svg LABEL
set -eu

tr -d '\r' <"$1" | awk -v label="$3" '
$1 == "SPAN" { n = ++ns[$2]; w0[$2, n] = $4; w1[$2, n] = $5; s1[$2, n] = $8
	if ($8 > tmax) tmax = $8 }
$1 == "SUSP" { n = ++nz[$2]; z0[$2, n] = $3; z1[$2, n] = $4 }
function x(t) { return 150 + t * 820 / tmax }
function rect(t0, t1, y, color) {
	if (t1 > t0)
		printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"18\" fill=\"%s\"/>\n", x(t0), y, x(t1) - x(t0), color
}
END {
	if (tmax <= 0) tmax = 1
	print "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"350\" font-family=\"sans-serif\" font-size=\"12\">"
	print "<rect width=\"1000\" height=\"350\" fill=\"white\"/>"
	printf "<text x=\"10\" y=\"20\" font-size=\"14\">%s: 200 ms work + 5 s alarm wait under autosleep</text>\n", label
	nw = split("A B E", ways, " ")
	split("(A) stayawake,(B) wake_lock,(E) event loop", lab, ",")
	for (k = 1; k <= nw; k++) {
		w = ways[k]; y = 40 + (k - 1) * 100
		printf "<text x=\"10\" y=\"%d\">%s system</text>\n", y + 13, lab[k]
		printf "<text x=\"10\" y=\"%d\">(%s) task</text>\n", y + 38, w
		rect(0, tmax, y, "#6c6")
		for (i = 1; i <= nz[w]; i++)
			rect(z0[w, i], z1[w, i], y, "#999")
		for (i = 1; i <= ns[w]; i++) {
			rect(w0[w, i], w1[w, i], y + 25, "#f90")
			rect(w1[w, i], s1[w, i], y + 25, "#fdb")
		}
	}
	for (s = 0; s <= tmax; s += 10)
		printf "<text x=\"%.1f\" y=\"340\" font-size=\"10\" fill=\"#555\">%d s</text>\n", x(s), s
	print "<text x=\"600\" y=\"20\" font-size=\"10\" fill=\"#555\">system: green awake, grey suspended; task: orange working (holding), pale waiting</text>"
	print "</svg>"
}' >"$2"
echo "  SVG     $2"

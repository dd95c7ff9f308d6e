#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Draw the demo's timeline as SVG from the raw trace lines ("@ ...") the
# guest printed: system awake/suspended, the worker's boost state, the keys
# it read (make demo KEY=1), and the wakeup sources as they fire.
#
#   timeline.sh CONSOLE_LOG OUT.svg [LABEL]
set -eu

log=$1
svg=$2
label=${3:-$(basename "$svg" .svg)}

grep -q '^@ t0 ' "$log" || {
	echo "timeline: no demo trace in $log (did the guest finish?)" >&2
	exit 1
}

sed -n 's/^@ //p' "$log" | tr -d '\r' | awk -v title="$label" '
function ts(line,   i, n, f) {
	n = split(line, f, " ")
	for (i = 1; i <= n; i++)
		if (f[i] ~ /^[0-9]+\.[0-9]+:$/)
			return substr(f[i], 1, length(f[i]) - 1) - t0
	return -1
}
$1 == "t0" { t0 = $2; next }
{
	t = ts($0)
	if (t < 0)
		next
	if (t > tmax)
		tmax = t
	# Awake again at dpm_resume_noirq: on S3 machine_suspend ends
	# before the clock has caught up with the sleep.
	if ($0 ~ /machine_suspend\[[0-9]+\] begin/) {
		sys_t[++nsys] = t; sys_s[nsys] = "suspended"
	} else if ($0 ~ /dpm_resume_noirq\[[0-9]+\] begin/) {
		sys_t[++nsys] = t; sys_s[nsys] = "awake"
	} else if ($0 ~ /stayawake_[a-z]+: comm=worker /) {
		ev = $0; sub(/.*stayawake_/, "", ev); sub(/:.*/, "", ev)
		why = $0; sub(/.*reason=/, "", why)
		st = (ev == "deboost") ? "deboosted" : (ev == "unmark") ? "off" : "boosted"
		wk_t[++nwk] = t; wk_s[nwk] = st; wk_r[nwk] = why
	} else if ($0 ~ /stayawake-demo: worker read KEY_POWER/) {
		key_t[++nkey] = t
	} else if ($0 ~ /wakeup_source_activate: /) {
		name = $0; sub(/.*wakeup_source_activate: /, "", name); sub(/ .*/, "", name)
		if (name == "autosleep")
			next
		if (!(name in row))
			row[name] = nrows++
		ws_t[++nws] = t; ws_n[nws] = name
	}
}
function x(t) { return 110 + t * 860 / tmax }
function band(y, t1, t2, color, label) {
	if (t2 <= t1)
		return
	printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"26\" fill=\"%s\"><title>%s %.3f-%.3f s</title></rect>\n",
		x(t1), y, x(t2) - x(t1), color, label, t1, t2
}
END {
	if (tmax <= 0)
		tmax = 1
	tmax += 0.5
	h = 210 + 18 * nrows
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", h
	printf "<rect width=\"1000\" height=\"%d\" fill=\"white\"/>\n", h
	printf "<text x=\"10\" y=\"20\" font-size=\"15\">stayawake demo (%s): the worker waits for an alarm in epoll_wait, the system suspends, the RTC or a key wakes it</text>\n", title
	print "<text x=\"10\" y=\"63\">system</text><text x=\"10\" y=\"103\">worker</text><text x=\"10\" y=\"143\">input</text><text x=\"10\" y=\"183\">wakeup</text>"
	# system: awake unless a machine_suspend span says otherwise
	prev = 0; state = "awake"
	for (i = 1; i <= nsys; i++) {
		band(45, prev, sys_t[i], state == "awake" ? "#6c6" : "#999", state)
		prev = sys_t[i]; state = sys_s[i]
	}
	band(45, prev, tmax, state == "awake" ? "#6c6" : "#999", state)
	# worker: off until marked
	prev = 0; state = "off"
	for (i = 1; i <= nwk; i++) {
		if (state != "off")
			band(85, prev, wk_t[i], state == "boosted" ? "#f90" : "#fdb", state)
		prev = wk_t[i]; state = wk_s[i]
		printf "<text x=\"%.1f\" y=\"80\" font-size=\"9\" fill=\"#555\">%s</text>\n", x(prev), wk_r[i]
	}
	if (state != "off")
		band(85, prev, tmax, state == "boosted" ? "#f90" : "#fdb", state)
	# input: each key the worker read, with the time
	for (i = 1; i <= nkey; i++)
		printf "<text x=\"%.1f\" y=\"143\" fill=\"#c30\">&#9660; KEY_POWER</text>\n", x(key_t[i]) - 5
	for (i = 1; i <= nws; i++) {
		y = 170 + 18 * row[ws_n[i]]
		printf "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#36c\" stroke-width=\"2\"/>\n", x(ws_t[i]), x(ws_t[i]), y, y + 14
	}
	for (n in row)
		printf "<text x=\"975\" y=\"%d\" font-size=\"10\" text-anchor=\"end\" fill=\"#36c\">%s</text>\n", 181 + 18 * row[n], n
	for (s = 0; s <= tmax; s += 2)
		printf "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#555\">%d s</text>\n", x(s), h - 8, s
	printf "<text x=\"600\" y=\"20\" font-size=\"10\" fill=\"#555\" transform=\"translate(0,12)\">green awake, grey suspended; orange boosted, pale deboosted</text>\n"
	print "</svg>"
}' >"$svg"
echo "  SVG     $svg"

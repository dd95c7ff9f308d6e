#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a LAVA job (lava/job.sh, QEMU device type) here with lava-run from
# lava-dispatcher, no lava-server: the device dictionary is rendered from
# lava-server's qemu.jinja2 (render.py), the job checked with LAVA's strict
# schema (validate.py), the verdict read from LAVA's results (results.py),
# since lava-run exits 0 whatever the tests did.
#
#   lava/run.sh JOB.yaml OUTDIR
#
# OUTDIR gets device.yaml, lava.log (lava-run's log: YAML, a line each),
# cases.txt ("RESULT DEFINITION CASE"), console.raw (the guest console as
# LAVA logged it, for lava/verdict.sh), lava-run's own output files.
# Prints "N passed, N failed, N skipped"; exits non-zero on a failed case
# or when LAVA or the guest fell short. LAVA_DEVICE_TYPES: where
# qemu.jinja2 is (default lava-server's, /usr/share/lava-server/device-types).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
[ $# -eq 2 ] || { echo "usage: run.sh JOB.yaml OUTDIR" >&2; exit 2; }
job=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2"
out=$(cd "$2" && pwd)
# Debian's python3: LAVA's modules are in its dist-packages only.
py=/usr/bin/python3
command -v lava-run >/dev/null || { echo "run: no lava-run (lava-dispatcher)" >&2; exit 2; }

rm -f "$out/lava.log" "$out/cases.txt" "$out/device.yaml"
"$py" "$here/validate.py" "$job"

# A guest told sa.host=qmp asks for key presses: this device's QEMU gets a
# QMP socket and boot/host-requests.sh answers from the console, as in
# make test. A lab has no such helper (then input's press cases skip).
qmp=""
grep -q 'sa\.host=qmp' "$job" && qmp=$out/qmp.sock
"$py" "$here/render.py" "$here/qemu-device.jinja2" "$job" \
	${qmp:+"-qmp unix:$qmp,server=on,wait=off"} >"$out/device.yaml"

# lava-run works in /var/lib/lava/dispatcher/tmp/ID (fixed in LAVA) and the
# guest's overlay is /lava-ID: an ID of our own, removed whatever happens.
id=$$
work=/var/lib/lava/dispatcher/tmp/$id
trap 'rm -rf "$work" "$out/qmp.sock"' EXIT INT TERM
echo "  LAVA    lava-run job $id: $(sed -n 's/^job_name: //p' "$job")"
start=$(date +%s)
# lava-run logs on stderr, a line as it comes; the console's lines
# ("lvl": "target") go on to the helper.
{
	rc=0
	PYTHONUNBUFFERED=1 lava-run --job-id "$id" --output-dir "$out" \
		--device "$out/device.yaml" "$job" 2>&1 || rc=$?
	echo "$rc" >"$out/lava-run.rc"
} | tee "$out/lava.log" |
	if [ -n "$qmp" ]; then
		sed -un 's/^{"dt": "[^"]*", "lvl": "target", "msg": "\(.*\)"}$/\1/p' |
			"$top/boot/host-requests.sh" "$qmp" 2>>"$out/host-requests.log"
	else
		cat >/dev/null
	fi
echo "  LAVA    lava-run exit $(cat "$out/lava-run.rc") after $(($(date +%s) - start)) s; log $out/lava.log"

rc=0
"$py" "$here/results.py" "$job" "$out/lava.log" "$out/cases.txt" \
	"$out/console.raw" || rc=$?
[ "$(cat "$out/lava-run.rc")" = 0 ] || { echo "lava: FAIL: lava-run exited $(cat "$out/lava-run.rc")"; rc=2; }
exit "$rc"

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a lava-run log: the cases LAVA recorded from lava-test-case, and
whether LAVA itself got through. lava-run exits 0 whatever the tests did.

  results.py JOB.yaml LOG [CASES [CONSOLE]]

Writes "RESULT DEFINITION CASE" lines to CASES, the guest's console as LAVA
logged it to CONSOLE (for lava/verdict.sh); prints the infrastructure's
findings and "N passed, N failed, N skipped". Exit status: 0 green, 1 a
case failed, 2 LAVA or the guest fell short (an error, a definition that
did not finish, counts that disagree with the guest's STAYAWAKE-RESULT).
"""
import re
import sys

import yaml

RESULT = re.compile(r"STAYAWAKE-RESULT passed=(\d+) failed=(\d+) skipped=(\d+)")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        job = yaml.safe_load(f)
    planned = []
    for action in job["actions"]:
        for i, d in enumerate(action.get("test", {}).get("definitions", [])):
            planned.append("%d_%s" % (i, d["name"]))

    cases, lava, problems, console = [], {}, [], []
    guest = [0, 0, 0]
    # One YAML flow mapping per line (LAVA's own log format).
    with open(argv[2], errors="replace") as f:
        for line in f:
            try:
                entry = yaml.load(line, Loader=yaml.CSafeLoader)
            except yaml.YAMLError:
                continue
            if not isinstance(entry, dict):
                continue
            lvl, msg = entry.get("lvl"), entry.get("msg")
            if lvl == "results" and isinstance(msg, dict):
                if msg.get("definition") == "lava":
                    lava[msg.get("case")] = msg
                else:
                    cases.append((msg.get("result"), msg.get("definition"), msg.get("case")))
            elif lvl == "error":
                problems.append("lava error: %s" % msg)
            elif lvl == "target" and isinstance(msg, str):
                console.append(msg)
                m = RESULT.search(msg)
                if m:
                    guest = [g + int(n) for g, n in zip(guest, m.groups())]

    job_result = lava.get("job", {})
    if job_result.get("result") != "pass":
        problems.append(
            "job: %s (%s: %s)"
            % (
                job_result.get("result", "no result"),
                job_result.get("error_type", "-"),
                job_result.get("error_msg", "-"),
            )
        )
    for name in planned:
        if lava.get(name, {}).get("result") != "pass":
            problems.append("definition %s did not finish" % name)

    count = {"pass": 0, "fail": 0, "skip": 0}
    other = 0
    for result, definition, case in cases:
        if result in count:
            count[result] += 1
        else:
            other += 1
    failed = count["fail"] + other
    if [count["pass"], failed, count["skip"]] != guest:
        problems.append(
            "LAVA recorded %d/%d/%d, the guest's STAYAWAKE-RESULT lines say %d/%d/%d"
            % (count["pass"], failed, count["skip"], *guest)
        )

    if len(argv) > 3:
        with open(argv[3], "w") as f:
            for c in cases:
                f.write("%s %s %s\n" % c)
    if len(argv) > 4:
        with open(argv[4], "w") as f:
            f.write("".join(line + "\n" for line in console))
    for result, definition, case in cases:
        if result != "pass" and result != "skip":
            print("not ok %s %s (%s)" % (definition, case, result))
    for p in problems:
        print("lava: FAIL: %s" % p)
    print("%d passed, %d failed, %d skipped" % (count["pass"], failed, count["skip"]))
    if problems:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

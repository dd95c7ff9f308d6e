# SPDX-License-Identifier: GPL-2.0
# One judged boot's results as JUnit XML (schema: tests/junit.xsd): a
# testsuite per test program, a testcase per KTAP case, the diagnostics
# of a failed case in its failure; what the verdict found wrong besides
# the cases (a hang, a panic, a kernel report, a case missing) is a failed
# case of a "verdict" testsuite, with the end of the console.
#
#   awk -v cell=CELL -f case-id.awk -f junit.awk PROBLEMS LOG
# PROBLEMS: the verdict's findings, one per line, details indented by two
# spaces (may be empty); LOG: the console, carriage returns removed.

function xml(s) {
	gsub(/&/, "\\&amp;", s)
	gsub(/</, "\\&lt;", s)
	gsub(/>/, "\\&gt;", s)
	gsub(/"/, "\\&quot;", s)
	# XML 1.0 has no other control characters than tab and newline
	gsub(/[\001-\010\013\014\016-\037\177]/, "", s)
	return s
}

BEGIN {
	TAIL = 60	# console lines kept with a verdict's finding
}

# The verdict's findings
FILENAME == ARGV[1] {
	if ($0 ~ /^  /) {
		detail[np] = detail[np] substr($0, 3) "\n"
	} else if ($0 != "") {
		problem[++np] = $0
	}
	next
}

{
	tail[FNR % TAIL] = $0
	lines = FNR
}

# "# ---- TEST (uptime S s)": when a test (or, with "end", the run) began
/^# ---- [^ ]+ \(uptime [0-9.]+ s\)/ {
	up = $5
	if (ns && !(ns in stime) && started[ns] != "")
		stime[ns] = up - started[ns]
	if ($3 != "end")
		next_start = up
	next
}

/^    # Subtest: / {
	name = substr($0, 16)
	suite[++ns] = name
	started[ns] = next_start
	next_start = ""
	diag = ""
	next
}

# A case: "    ok N ID # detail", "    not ok N ID # detail"
ns && /^    (not )?ok [0-9]+ / {
	line = substr($0, 5)
	failed = line ~ /^not /
	sub(/^(not )?ok [0-9]+ /, "", line)
	at = index(line, " # ")
	why = at ? substr(line, at + 3) : ""
	cname = at ? substr(line, 1, at - 1) : line
	c = ++nc[ns]
	cases[ns, c] = cname
	if (why ~ /^SKIP/) {
		kind[ns, c] = "skipped"
		text[ns, c] = substr(why, 6)
		nskip[ns]++
	} else if (failed) {
		kind[ns, c] = "failure"
		text[ns, c] = why
		out[ns, c] = diag line "\n"
		nfail[ns]++
	} else {
		kind[ns, c] = "passed"
	}
	diag = ""
	next
}

# A case's diagnostics come before its result line
ns && /^    # / {
	diag = diag substr($0, 7) "\n"
}

END {
	total = np
	fails = np
	for (s = 1; s <= ns; s++) {
		total += nc[s]
		fails += nfail[s]
	}
	printf "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	printf "<testsuites name=\"stayawake %s\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n", xml(cell), total, fails
	for (s = 1; s <= ns; s++) {
		printf "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\"", xml(suite[s]), nc[s], nfail[s], nskip[s]
		if (s in stime)
			printf " time=\"%.2f\"", stime[s]
		printf ">\n"
		for (c = 1; c <= nc[s]; c++) {
			printf "    <testcase classname=\"%s.%s\" name=\"%s\"", xml(cell), xml(suite[s]), xml(cases[s, c])
			if (kind[s, c] == "passed") {
				printf "/>\n"
				continue
			}
			printf ">\n"
			if (kind[s, c] == "skipped")
				printf "      <skipped message=\"%s\"/>\n", xml(text[s, c])
			else
				printf "      <failure message=\"%s\">%s</failure>\n", xml(text[s, c]), xml(out[s, c])
			printf "    </testcase>\n"
		}
		printf "  </testsuite>\n"
	}
	if (np) {
		first = lines > TAIL ? lines - TAIL + 1 : 1
		console = ""
		for (i = first; i <= lines; i++)
			console = console tail[i % TAIL] "\n"
		printf "  <testsuite name=\"verdict\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\">\n", np, np
		for (p = 1; p <= np; p++) {
			printf "    <testcase classname=\"%s.verdict\" name=\"%s\">\n", xml(cell), xml(id(problem[p]))
			printf "      <failure message=\"%s\">%s</failure>\n", xml(problem[p]), xml(detail[p])
			printf "      <system-out>%s</system-out>\n", xml(console)
			printf "    </testcase>\n"
		}
		printf "  </testsuite>\n"
	}
	printf "</testsuites>\n"
}

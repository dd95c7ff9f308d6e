# SPDX-License-Identifier: GPL-2.0
# The tests' TAP as KTAP version 1, and their case IDs. Guest (busybox awk)
# and host (mawk, gawk) both run it, so the IDs have one definition.
#
# A case's ID is its name with the test's in front, as case-id.awk makes it:
#   "lend: pipe: the job's loan, traced" -> lend_pipe_the_job_s_loan_traced
#
#   awk -v mode=suite -v test=T -v num=K -f case-id.awk -f ktap.awk OUT OUT
#	test T's output (read twice: the plan comes first) as subtest K
#   awk -v mode=ids -f case-id.awk -f ktap.awk FILE...
#	"T: case[ # SKIP why]" lines as "ID[ # SKIP why]"

# "NAME # REST" -> ID # REST; a case named after "ok N " or "not ok N "
function result(s,    at) {
	at = index(s, " # ")
	if (!at)
		return id(s)
	return id(substr(s, 1, at - 1)) substr(s, at)
}

function is_result(s) {
	return s ~ /^(not )?ok [0-9]+ / || s ~ /^not ok - /
}

mode == "ids" {
	if ($0 !~ /^#/ && $0 !~ /^[ \t]*$/)
		print result($0)
	next
}

# First pass: count the cases, and whether one failed.
FNR == NR {
	if (is_result($0)) {
		cases++
		if ($0 ~ /^not ok /)
			failed = 1
	}
	next
}

function header() {
	print "    KTAP version 1"
	print "    # Subtest: " test
	print "    1.." cases + 0
	headed = 1
}

FNR == 1 {
	header()
}

# The program's own header and plan (KTAP plans come first: printed above)
/^TAP version / || /^1\.\.[0-9]+$/ || /^[ \t]*$/ {
	next
}

# What /init found wrong after the program (left processes, no closing
# line): a case of its own, "harness", so every failure is a case.
/^not ok - / {
	n++
	print "    not ok " n " harness # " substr($0, 10)
	next
}

is_result($0) {
	n++
	ok = $0 ~ /^ok / ? "ok" : "not ok"
	sub(/^(not )?ok [0-9]+ /, "")
	print "    " ok " " n " " result($0)
	next
}

# Anything else is a diagnostic line.
{
	sub(/^# ?/, "")
	print "    # " $0
}

END {
	if (mode != "suite")
		exit
	# No output at all (/init never lets it happen): a plan of 0, crashed
	if (!headed)
		header()
	print (failed ? "not ok " : "ok ") num " " test
}

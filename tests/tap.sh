# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# TAP for the bash suites (one result dialect: tests/check reads it all).
# A suite sources this, calls tap_begin [PLAN] first, tap_ok / tap_not_ok
# per result and tap_end last: "TAP version 13", "ok N - DESC" /
# "not ok N - DESC", diagnostics as "# ...", and the plan "1..N" first
# (tap_begin N) or, when the count is not known up front, last (tap_end).
# A suite that dies before tap_end prints no trailing plan (or fewer
# results than planned) and tests/check fails it (tap_counts, the reader
# tests/check and tests/check-matrix share).
tap_n=0
tap_failed=0
tap_planned=

tap_begin() {
	echo "TAP version 13"
	if [ -n "${1:-}" ]; then
		tap_planned=$1
		echo "1..$1"
	fi
}

tap_ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}

tap_not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
}

# tap_todo DESC REASON: a known failure, "not ok N - DESC # TODO REASON":
# counted, shown, and neither passed nor failed (tap_counts: skipped).
tap_todo() {
	tap_n=$((tap_n + 1))
	echo "not ok $tap_n - $1 # TODO $2"
}

# tap_relay PREFIX: stdin's "ok - X" / "not ok - X" lines (a helper's
# unnumbered results) as numbered results "PREFIX: X"; other lines as
# they are.
tap_relay() {
	local line

	while IFS= read -r line; do
		case "$line" in
		"ok - "*)	tap_ok "${1:+$1: }${line#ok - }" ;;
		"not ok - "*)	tap_not_ok "${1:+$1: }${line#not ok - }" ;;
		*)		printf '%s\n' "$line" ;;
		esac
	done
}

tap_end() {
	[ -n "$tap_planned" ] || echo "1..$tap_n"
}

# tap_counts FILE: "PASSED FAILED SKIPPED RESULTS PLAN PROBLEM" of the TAP
# in FILE (tests/tap.sh): the results are the "ok N - X" / "not ok N - X"
# lines at the start of a line (KTAP's indented subtests are not counted:
# their parent's line is); an ok with "# SKIP" and a not ok with
# "# TODO" are skipped, neither passed nor failed.
# PLAN is the "1..N" line's N (-1: none); PROBLEM is "-" or what is wrong
# with the stream (no plan or two, results other than planned, numbers
# out of order).
tap_counts() {
	awk '
	/^1\.\.[0-9]+/ { nplan++; plan = substr($1, 4) + 0; next }
	/^(not )?ok [0-9]+( |$)/ {
		results++
		num = ($1 == "not") ? $3 : $2
		if (num + 0 != results && !badnum)
			badnum = "result " num " where " results " was due"
		if ($1 == "not" && $0 ~ / # TODO /)
			skipped++
		else if ($1 == "not")
			failed++
		else if (toupper($0) ~ /# SKIP/)
			skipped++
		else
			passed++
	}
	END {
		if (nplan == 0)
			problem = "no plan"
		else if (nplan > 1)
			problem = nplan " plans"
		else if (results != plan)
			problem = results " results of " plan " planned"
		else if (badnum)
			problem = badnum
		else
			problem = "-"
		printf "%d %d %d %d %d %s\n", passed, failed, skipped, results,
			nplan ? plan : -1, problem
	}' "$1" 2>/dev/null || echo "0 0 0 0 -1 no output"
}

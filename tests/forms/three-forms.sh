#!/usr/bin/env bash
# Every trace fixture in tests/data rendered as text, JSON and HTML: the three forms carry the same verdict,
# fix, next steps and notes (issue 21: one report model, three renderings). Usage: three-forms.sh NEXTSTEP_BINARY
set -u
bin=$1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$src" || exit 1
# The reports are written first and compared in one Python process at the end (three_forms.py batch): a Python
# start per check was a third of this test's CPU. $tmp/checks lists them; queue NAME KIND adds the three forms
# just written. The text and the page come from one run (`--html FILE` prints the text as a run without it
# does, checked for every fixture when this was changed) and the JSON from another: two starts of nextstep a
# check, not three (under the sanitizers a start costs some 40 ms of CPU).
n=0
: >"$tmp/checks"
queue() { # NAME KIND
	n=$((n + 1))
	if ! { mv "$tmp/text" "$tmp/$n.text" && mv "$tmp/json" "$tmp/$n.json" && mv "$tmp/page.html" "$tmp/$n.html"; }; then
		t_check "$1" 1 "a form was not written"
		return
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$tmp/$n.text" "$tmp/$n.json" "$tmp/$n.html" >>"$tmp/checks"
}
# check NAME FILE [OPTION...]: the three forms of `trace OPTION... FILE` agree
check() {
	local name=$1 f=$2 code
	shift 2
	rm -f "$tmp/page.html"
	"$bin" trace "$@" --html "$tmp/page.html" "$f" >"$tmp/text" 2>/dev/null
	code=$?
	# not a trace the report reads (a bad fixture's error): no page
	[ "$code" -le 1 ] && [ -e "$tmp/page.html" ] || return 0
	"$bin" trace "$@" --format json "$f" >"$tmp/json" 2>/dev/null || return 0
	grep -q '"devices":\[{' "$tmp/json" || return 0 # nothing to route
	queue "$name" trace
}
for f in tests/data/trace_*.json; do
	name=$(basename "$f" .json)
	case $name in *.expect) continue ;; esac
	check "$name" "$f"
done
# check_job NAME INPUT COMMAND...: the job report of `nextstep COMMAND... INPUT` (INPUT "-": the .in file on
# stdin) agrees in its three forms
check_job() {
	local name=$1 in=$2 code
	shift 2
	rm -f "$tmp/page.html"
	"$bin" "$@" --html "$tmp/page.html" <"$in" >"$tmp/text" 2>/dev/null
	code=$?
	[ "$code" -le 1 ] || { t_check "$name" 1 "exit $code"; return; }
	"$bin" "$@" --format json <"$in" >"$tmp/json" 2>/dev/null
	queue "$name" --job
}
for d in tests/data/job-*; do
	check_job "$(basename "$d")" /dev/null trace "$d"
done
check_job "job straggler (summaries)" tests/cli/cases/job_straggler_and_bad_line.in job -
# check_diff NAME BEFORE AFTER: the diff's headline and its checks of BEFORE's predictions agree
check_diff() {
	local name=$1 code
	shift
	rm -f "$tmp/page.html"
	"$bin" diff --html "$tmp/page.html" "$@" >"$tmp/text" 2>/dev/null
	code=$?
	[ "$code" -le 3 ] || { t_check "$name" 1 "exit $code"; return; }
	"$bin" diff --format json "$@" >"$tmp/json" 2>/dev/null
	queue "$name" --diff
}
check_diff "diff fixtures" tests/data/diff/before.json tests/data/diff/after.json
check_diff "diff slower" tests/data/diff/before.json tests/data/diff/slower.json
check_diff "diff the optimizer fused" tests/data/trace_optimizer_launches.json tests/data/diff/optimizer_fused.json
check_diff "diff a trace against itself" tests/data/trace_buckets.json tests/data/trace_buckets.json
# the kernels' bounds and the roofs' words come from the op placement
for f in tests/data/trace_roofline*.json; do
	check "$(basename "$f" .json) --roofline" "$f" --roofline
done
python3 "$here/three_forms.py" batch <"$tmp/checks" >"$tmp/results"
# its last line counts the checks it ran: one that stopped early fails the test, not passes the rest
grep -qx "checked $n" "$tmp/results" || t_check "three_forms.py batch ran every check" 1 "$(tail -3 "$tmp/results")"
while IFS=$'\t' read -r name status detail; do
	[ -n "$status" ] && t_check "$name" "$status" "$detail"
done <"$tmp/results"
t_finish "three forms"

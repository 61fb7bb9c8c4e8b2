#!/usr/bin/env bash
# What the --html page says, without a browser (issue 19, item 5): a job's page leads with the job, as the text
# report does; host threads carry the names the trace's thread_name metadata gives them, not their ids; a pass
# the trace does not mark says "not marked", not 0 %. Each check failed on the binary before the change.
# Usage: page-content.sh NEXTSTEP_BINARY
set -u
bin=$1
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() {
	fail=$((fail + 1))
	echo "FAIL: $1"
}
# first_line FILE PATTERN: the line number of PATTERN's first match (a large one when absent).
first_line() { grep -n -m1 -- "$2" "$1" | cut -d: -f1 | grep . || echo 999999; }

# tests/data/job-dir holds the two ranks of one job: `trace` gives their job report, and the page's job section
# comes before the ranks' own sections.
if "$bin" trace --html "$tmp/job.html" tests/data/job-dir >/dev/null 2>&1 &&
	[ "$(first_line "$tmp/job.html" '<article class="job"')" -lt "$(first_line "$tmp/job.html" '<article class="trace"')" ]; then
	ok
else
	ko "trace DIR --html: the job's section is not first"
fi
# The same from the ranks' summaries: the job, then the list of its inputs.
if "$bin" trace --summary tests/data/job-dir >"$tmp/ranks.ndjson" 2>/dev/null &&
	"$bin" job --html "$tmp/summaries.html" "$tmp/ranks.ndjson" >/dev/null 2>&1 &&
	[ "$(first_line "$tmp/summaries.html" '<article class="job"')" -lt "$(first_line "$tmp/summaries.html" '<details class="inputs"')" ]; then
	ok
else
	ko "job --html: the job's section is not first"
fi

# trace_python_frames.json names its threads 10 and 11 "thread 10 (python)" and "pt_autograd_0" (ph "M"
# thread_name events); both are busy in the step, so both are rows of the timeline strip.
"$bin" trace --html "$tmp/threads.html" tests/data/trace_python_frames.json >/dev/null 2>&1
for name in "thread 10 (python)" "pt_autograd_0"; do
	if grep -qF "text-anchor=\"end\">$name</text>" "$tmp/threads.html"; then ok; else ko "no timeline row labelled '$name'"; fi
done
if grep -q 'text-anchor="end">tid [0-9]' "$tmp/threads.html"; then ko "a named thread is labelled by its id"; else ok; fi
if grep -qF '<title>pt_autograd_0 (pid 10, tid 11): busy' "$tmp/threads.html"; then ok; else ko "the row's tooltip lacks the ids"; fi

# The same trace marks its backward pass only (autograd::engine::evaluate_function): forward and optimizer
# are "not marked" in the passes table and have no column of zeros in the steps table.
if grep -q '<tr data-pass="forward" class="not-marked">.*not marked' "$tmp/threads.html" &&
	grep -q '<tr data-pass="optimizer" class="not-marked">.*not marked' "$tmp/threads.html" &&
	grep -q '<tr data-pass="backward"><td>' "$tmp/threads.html"; then ok; else ko "unmarked passes are not said to be"; fi
if grep -q '<th class="n">forward ms</th>' "$tmp/threads.html"; then ko "a column of zeros for the unmarked forward pass"; else ok; fi

# A job none of whose ranks has device activity has nothing to route: its banner says so, as the text report's
# verdict line does, with no verdict drawn from the zeros (it said compute-bound before).
printf '%s\n' '{"nextstep_summary":1,"rank":0,"world_size":2,"file":"rank-0.json","t0":"0","quality":"good","devices":[]}' \
	'{"nextstep_summary":1,"rank":1,"world_size":2,"file":"rank-1.json","t0":"0","quality":"good","devices":[]}' \
	>"$tmp/nodev.ndjson"
if "$bin" job -q --html "$tmp/nodev.html" "$tmp/nodev.ndjson" >/dev/null 2>&1 &&
	grep -qF '<p>No device activity in any rank' "$tmp/nodev.html" &&
	! grep -q 'data-regime="compute"' "$tmp/nodev.html"; then ok; else ko "job --html: no device activity on any rank is not said"; fi

# The head's time of analysis: SOURCE_DATE_EPOCH as a UTC date, checked against GNU date's (leap days, 2100
# and 2400, five-digit years, the last second gmtime_r can hold: strftime printed it as year -2147481749); past
# it the page says "unknown".
for epoch in 0 951782400 951868799 951868800 4107456000 4107542400 13574476800 13574563200 1767225600 \
	253402300799 253402300800 67768036191676799 67768036191676800; do
	want=$(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null) || want=unknown
	got=$(SOURCE_DATE_EPOCH=$epoch "$bin" trace --html - tests/data/trace_buckets.json 2>/dev/null |
		sed -n 's/.*<time id="analysed">\([^<]*\)<.*/\1/p')
	if [ "$got" = "$want" ]; then ok; else ko "SOURCE_DATE_EPOCH=$epoch: the page says '$got', date -u '$want'"; fi
done

echo "page content: $pass passed, $fail failed"
[ "$fail" = 0 ]

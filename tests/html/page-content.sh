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

echo "page content: $pass passed, $fail failed"
[ "$fail" = 0 ]

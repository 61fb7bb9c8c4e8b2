#!/usr/bin/env bash
# Memory that runs out is an error, never a different report: each allocation of `nextstep trace` on a few
# fixtures is made to fail in turn (alloc_fail.so preloaded), and every run must either exit 1 with a
# "nextstep: ..." message (out of memory, or what could not be done for want of it) or print exactly what the
# run without a failure prints, with its exit status; none may crash. The first case reads the installed device table (a data folder with a one-device devices.json: an
# allocation of its read or parse that fails is "out of memory", not a table left out), the others a data folder
# without one, as an install without it. The job cases (a folder of rank traces) try only their last
# allocations, the job's merge and report: their ranks' reading is what the trace cases try. A plain build
# only: a sanitizer's runtime must be loaded first.
# Usage: alloc-fail.sh NEXTSTEP ALLOC_FAIL_SO
set -u
bin=${1:?usage: alloc-fail.sh NEXTSTEP ALLOC_FAIL_SO}
so=${2:?usage: alloc-fail.sh NEXTSTEP ALLOC_FAIL_SO}
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/none" "$tmp/table"
cp tests/job/a100-half-bf16-devices.json "$tmp/table/devices.json"
export SOURCE_DATE_EPOCH=1700000000

# name | data folder | allocations tried (all, or the last N) | trace arguments: two devices with steps (the
# thread that records them) and the device table, a gzip input with Python frames, the page and the text from
# one decision (ops placed on the table's device: the page draws the roofline, and states the input's size and
# digest, each compared too); the job's reference rank, a straggler judged step by step (host jitter) with its
# own routes, and one judged by its allocator calls (the job's part starts some 120 allocations before the
# end); two files' reports labelled line by line (-q), the last 60 allocations: each file's report is kept in
# memory to be cut into lines. About 1,760 runs; JSON's writer adds 1,000 more points, each a cJSON
# allocation, and is left out. Each case is one start of nextstep whose preloaded library forks the runs
# before main (tests/trace/alloc_fail.c): 9 s of wall and 8 s of CPU in all, against 48 s and 46 s when the
# shell started each run and compared its output with cmp (same sitting, 2026-12-05, the other core busy).
cases=(
	"two_devices|table|all|tests/data/trace_two_devices.json"
	"gzip|none|all|$tmp/buckets.json.gz"
	"html|table|all|--roofline --html $tmp/page.html tests/data/trace_compute_at_roof.json"
	"job|table|130|tests/data/job-dir"
	"job_jitter|table|130|tests/data/job-jitter-oneoff"
	"job_alloc|table|130|tests/data/job-jitter-alloc"
	"quiet|none|60|-q tests/data/trace_two_devices.json tests/data/trace_buckets.json"
)
gzip -c tests/data/trace_buckets.json >"$tmp/buckets.json.gz"
runs=0 bad=0
for c in "${cases[@]}"; do
	IFS='|' read -r name folder tried rest <<<"$c"
	read -r -a args <<<"$rest"
	page=
	[[ " ${args[*]} " != *" --html $tmp/page.html "* ]] || page=$tmp/page.html
	# alloc_fail.c's constructor runs the whole case in this one start: the program without a failure, then
	# with each allocation failing in turn, each run judged there
	NEXTSTEP_DATADIR=$tmp/$folder ALLOC_SWEEP=$tried ALLOC_SWEEP_DIR=$tmp ALLOC_SWEEP_PAGE=$page \
		LD_PRELOAD=$so "$bin" trace -j 1 "${args[@]}" >"$tmp/sweep" 2>&1
	rc=$?
	sed "s/^FAIL: /FAIL $name: /" "$tmp/sweep" | grep -v '^alloc-sweep: [0-9]* runs, [0-9]* bad$'
	summary=$(sed -nE 's/^alloc-sweep: ([0-9]+) runs, ([0-9]+) bad$/\1 \2/p' "$tmp/sweep")
	if [ -z "$summary" ]; then
		echo "FAIL $name: no sweep ran (exit $rc; $so not preloaded?)"
		bad=$((bad + 1))
		continue
	fi
	read -r n b <<<"$summary"
	runs=$((runs + n)) bad=$((bad + b))
	[ "$rc" = 0 ] || [ "$b" -gt 0 ] || { echo "FAIL $name: the sweep exited $rc"; bad=$((bad + 1)); }
done
echo "alloc-fail: $runs runs, $bad bad"
[ "$bad" = 0 ] && [ "$runs" -gt 0 ]

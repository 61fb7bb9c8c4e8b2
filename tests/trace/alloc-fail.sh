#!/usr/bin/env bash
# Memory that runs out is an error, never a different report: each allocation of `nextstep trace` on a few
# fixtures is made to fail in turn (alloc_fail.so preloaded), and every run must either exit 1 with a
# "nextstep: ..." message (out of memory, or what could not be done for want of it) or print exactly what the run without a failure prints, with its exit status; none
# may crash. The first case reads the installed device table (a data folder with a one-device devices.json: an
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
# memory to be cut into lines. About 1,760 runs, 30 s; JSON's writer adds 1,000 more points, each a cJSON
# allocation, and is left out.
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
	export NEXTSTEP_DATADIR=$tmp/$folder
	rm -f "$tmp/page.html" "$tmp/want.html"
	ALLOC_COUNT_FILE=$tmp/count LD_PRELOAD=$so "$bin" trace -j 1 "${args[@]}" >"$tmp/want" 2>&1
	want_rc=$?
	[ ! -e "$tmp/page.html" ] || mv "$tmp/page.html" "$tmp/want.html"
	total=$(cat "$tmp/count" 2>/dev/null)
	if [ -z "$total" ] || [ "$total" -lt 10 ]; then
		echo "FAIL $name: $so counted no allocations (not preloaded?)"
		bad=$((bad + 1))
		continue
	fi
	first=1
	[ "$tried" = all ] || first=$((total > tried ? total - tried + 1 : 1))
	for ((i = first; i <= total; i++)); do
		rm -f "$tmp/page.html"
		ALLOC_FAIL_AT=$i LD_PRELOAD=$so "$bin" trace -j 1 "${args[@]}" >"$tmp/got" 2>&1
		rc=$?
		runs=$((runs + 1))
		if [ "$rc" -ge 128 ]; then
			echo "FAIL $name: allocation $i of $total failing: exit $rc (a crash)"
		elif [ "$rc" = 1 ] && grep -q '^nextstep: ' "$tmp/got"; then
			continue
		elif [ "$rc" = "$want_rc" ] && cmp -s "$tmp/got" "$tmp/want" &&
			{ [ ! -e "$tmp/want.html" ] || cmp -s "$tmp/page.html" "$tmp/want.html"; }; then
			continue
		else
			echo "FAIL $name: allocation $i of $total failing: exit $rc, and not the report without a failure:"
			diff "$tmp/want" "$tmp/got" | head -n 6
		fi
		bad=$((bad + 1))
	done
done
echo "alloc-fail: $runs runs, $bad bad"
[ "$bad" = 0 ] && [ "$runs" -gt 0 ]

#!/usr/bin/env bash
# Parallel reading changes nothing but the time: on 8 generated ranks (4 plain, 4 gzip) and a bad file among
# them, `nextstep trace` at -j 1, -j 3 and -j 8 must give byte-identical stdout, stderr and exit status for the
# job report (text and JSON), --per-rank, -q --per-rank and --summary. Skips (77) without ../shared.
# Usage: jobs-identical.sh NEXTSTEP_BINARY
set -u
bin=$1
gen=$(dirname "$0")/../../../shared/tools/make-trace
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$gen"
mkdir -p "$tmp/job"
"$gen" --out "$tmp/job" --ranks 8 --straggler 2 --clock-skew 100 --steps 4 >/dev/null 2>&1 || exit 1
for r in 4 5 6 7; do gzip "$tmp/job/rank-$r.pt.trace.json" || exit 1; done
echo '{"traceEvents": [' >"$tmp/job/rank-8-truncated.json" # a bad file, in the middle of the order
fail=0
for opts in "" "--format json" "--per-rank" "-q --per-rank" "--summary"; do
	for j in 1 3 8; do
		# shellcheck disable=SC2086 # opts is a list of words
		"$bin" trace -j "$j" $opts "$tmp/job" >"$tmp/out.$j" 2>"$tmp/err.$j"
		echo $? >"$tmp/code.$j"
	done
	for j in 3 8; do
		for f in out err code; do
			cmp -s "$tmp/$f.1" "$tmp/$f.$j" ||
				{ echo "FAIL: trace $opts: -j $j's $f differs from -j 1's"; fail=1; }
		done
	done
	[ "$(cat "$tmp/code.1")" = 1 ] || { echo "FAIL: trace $opts: exit $(cat "$tmp/code.1"), not 1 (bad file)"; fail=1; }
	grep -q 'rank-8-truncated.json' "$tmp/err.1" || { echo "FAIL: trace $opts: the bad file is not named"; fail=1; }
done
"$bin" trace -j 3 "$tmp/job" 2>/dev/null | grep -q '^job (8 ranks): straggler-bound: rank 2' ||
	{ echo "FAIL: the job report does not name rank 2 (the generator's straggler)"; fail=1; }
[ $fail = 0 ] && echo "jobs-identical: 5 outputs x -j 1/3/8 identical"
exit $fail

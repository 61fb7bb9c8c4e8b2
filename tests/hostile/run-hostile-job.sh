#!/bin/bash
# run-hostile-job.sh NEXTSTEP [SANITIZED]: the reproductions of issue 26 (jobs at cluster scale, every new
# surface bounded), each under a CPU-time limit and (unsanitized builds) an address-space limit. The issue's
# bound: 5 s of CPU and 200 MB per 100 MB of input, a located error otherwise. Summaries are generated here
# (gen-summaries.sh), in a temporary directory. The harness is hostile-lib.sh.
set -u
bin=$1 sanitized=${2:-OFF}
. "$(cd "$(dirname "$0")" && pwd)/hostile-lib.sh"
gen() { sh "$here/gen-summaries.sh" "$@"; }

# 2. 40,000 process groups (12 MB): each collective's group found by hash, not by a scan of the groups seen
# (28 s before). Every rank but the straggler waits 2.5 ms a step (gen-summaries.sh's arithmetic).
gen 2 100 40000 40000 1 >"$tmp/groups.nd"
cpu_s=2 check "40,000 process groups" 0 'rank 1 comm: 30% exposed = 25% waiting for rank 0' "$bin" job "$tmp/groups.nd"

# 3. 80,000 one-step ranks (34 MB): the straggler search reads each rank's leave-one-out medians from one
# sorted table, and a repeated rank is found by hash (20,000 ranks took 16 s before; 80,000 did not finish).
gen 80000 1 0 1 1 >"$tmp/ranks.nd"
cpu_s=3 check "80,000 ranks, one straggler" 0 '^job \(80000 ranks\): straggler-bound: rank 0' "$bin" job "$tmp/ranks.nd"
{ cat "$tmp/ranks.nd"; gen 1 1 0 1 0 80000 79999; } >"$tmp/ranks-again.nd"
cpu_s=3 check "...and rank 79,999 again" 1 'ranks-again.nd:80001: rank 79999 again \(first from rank-79999\)' \
	"$bin" job "$tmp/ranks-again.nd"
rm -f "$tmp/ranks.nd" "$tmp/ranks-again.nd"

# 4. 800 ranks x 400 steps, half of them slow (46 MB): a straggler's slowest steps are counted against one
# table of each step's longest time on the ranks that are no stragglers (10 s before). The 400 slow ranks are
# equally slow: each is the slowest in all 400 steps, so each is "device" (before, compared with each other,
# none was ever slowest: "inputs").
gen 800 400 0 1 400 >"$tmp/slow.nd"
cpu_s=3 check "800 ranks x 400 steps, half of them slow" 0 \
	'straggler: rank 399 - .*the slowest rank in 400 of 400 steps\) -> the same kernels run slower on this rank in every step' \
	"$bin" job "$tmp/slow.nd"
rm -f "$tmp/slow.nd"

# The order the merger relies on is checked where a summary is read: steps that overlap, exposed pieces of two
# collectives out of order. A rank number not below the world size is refused by `job` as by `trace DIR`.
gen 2 2 2 >"$tmp/order.nd"
sed '1s/"step":1,"start":10000000/"step":1,"start":5000000/' "$tmp/order.nd" >"$tmp/overlap.nd"
check "overlapping steps" 1 'overlap.nd:1: summary: "steps"\[1\]: starts before the step before it ends' \
	"$bin" job "$tmp/overlap.nd"
sed '2s/"start":16000000,\(.*\)"exposed":\[\[16000000,19000000,3000000\]\]/"start":8000000,\1"exposed":[[8000000,9000000,1000000]]/' \
	"$tmp/order.nd" >"$tmp/pieces.nd"
check "exposed pieces out of order" 1 'pieces.nd:2: summary: "collectives"\[1\]."exposed": starts before an earlier' \
	"$bin" job "$tmp/pieces.nd"
gen 1 1 0 1 0 2 5 >"$tmp/beyond.nd"
check "a rank beyond its world" 1 'beyond.nd:1: rank 5 is not a rank of a world of 2' "$bin" job "$tmp/order.nd" "$tmp/beyond.nd"

echo "hostile-job: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

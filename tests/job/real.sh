#!/usr/bin/env bash
# The job report on a shared real trace (issue 12 item 6): hta/sampled_rank0_2steps is one rank of a sampled
# job whose all-to-all kernels are long on every rank. Alone, it must not claim a straggler (there is nobody to
# compare it with) and must not split its comm into waiting and transfer; the report says it has a partial
# rank set. Run from the repository root: real.sh NEXTSTEP_BINARY SUMMARIZE_BINARY
set -u
bin=$1
summarize=$2
trace=../shared/traces/hta/sampled_rank0_2steps.json.gz
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$trace"

"$summarize" "$trace" >"$tmp/s.ndjson" || exit 1
"$bin" job --format json "$tmp/s.ndjson" >"$tmp/r.json" || { echo "FAIL: nextstep job exit $?"; exit 1; }
python3 - "$tmp/r.json" <<'PY' || fail=1
import json, sys
job = json.load(open(sys.argv[1]))["job"]
assert job["stragglers"] == [], "a straggler was claimed: %s" % job["stragglers"]
assert job["verdict"] != "straggler-bound", job["verdict"]
assert job["comm_split"] is False, "comm split on one rank"
assert "one rank" in job["comm_split_refused"], job["comm_split_refused"]
assert job["ranks"] == 1
print("ok: no straggler, comm not split:", job["comm_split_refused"])
PY
"$bin" job "$tmp/s.ndjson" >"$tmp/r.txt" || fail=1
grep -q '^note: one rank only' "$tmp/r.txt" || { echo "FAIL: no partial-rank note in the text report"; fail=1; }
grep -q 'straggler' "$tmp/r.txt" && grep -q '^straggler:' "$tmp/r.txt" && { echo "FAIL: a straggler line"; fail=1; }
exit $fail

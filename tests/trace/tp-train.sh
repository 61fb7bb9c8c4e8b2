#!/usr/bin/env bash
# The tensor-parallel training fixtures (issue 25 item 10e) are tests/trace/make-tp-train.py's output: it still
# writes them byte for byte. Their verdicts are checked with the other fixtures (fixtures.sh, the .expect.json
# files). Run from the repository root.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 tests/trace/make-tp-train.py "$tmp" || exit 1
for t in trace_tp_train_desc trace_tp_train_forward trace_dp_train_backward; do
	cmp -s "$tmp/$t.json" "tests/data/$t.json" || { echo "FAIL: tests/data/$t.json is not the generator's"; fail=1; }
done
[ $fail = 0 ] && echo "ok: the tensor-parallel training fixtures are the generator's"
exit $fail

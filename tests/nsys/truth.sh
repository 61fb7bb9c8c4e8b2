#!/usr/bin/env bash
# The nsys path against make-trace's exact truth: a generated Kineto trace and the same events as an Nsight
# Systems export (tests/nsys/kineto2nsys.py) give the same split to the nanosecond. Per case: the export's
# steps equal the truth file (check_split.py truth), and the whole JSON report equals the Kineto one's except
# for "source" and the export's own "export" member. Then a job: per-rank exports in a directory give the
# job report that check_job.py holds to the truth (straggler, waiting per step), with clock skew; and `diff`
# across the two formats of one capture finds no change. Skips (77) without ../shared.
# Run from the repository root: truth.sh NEXTSTEP_BINARY
set -u
bin=$1
tools=../shared/tools
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$tools/make-trace"
conv="python3 $here/kineto2nsys.py"

# name | make-trace options (new style: the categories an export's NVTX ranges round-trip)
cases=(
	"plain_3_steps|--steps 3"
	"gzip_7_steps_no_overlap|--steps 7 --overlap 0 --seed 3"
	"input_bound|--steps 3 --split compute=0.2,memory=0.1,comm=0.05,dataloader=0.5,overhead=0.1,idle=0.05 --seed 7"
	"overhead_bound|--steps 3 --split compute=0.2,memory=0.1,comm=0.05,dataloader=0.05,overhead=0.5,idle=0.1 --seed 8"
	"comm_bound|--steps 3 --split compute=0.25,memory=0.1,comm=0.5,dataloader=0.05,overhead=0.05,idle=0.05 --overlap 0.2"
)

# kineto.json nsys.json: equal apart from "source", "export" and the words of one route: unrecorded host time,
# which a Kineto trace is told to record with with_stack=True and an export (a PyTorch program here) to sample
# (docs/nsys.md, "Python or not"). Every number, bucket and cause must match.
same_but_source() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("source", None)
    d.pop("export", None)
def unworded(k, n):
    if isinstance(k, dict) and isinstance(n, dict):
        if "with_stack=True" in str(k.get("fix", "")) and "py-spy record --native" in str(n.get("fix", "")):
            for key in ("fix", "module", "next_check", "doc"):
                k.pop(key, None)
                n.pop(key, None)
        for key in set(k) & set(n):
            unworded(k[key], n[key])
    elif isinstance(k, list) and isinstance(n, list):
        for x, y in zip(k, n):
            unworded(x, y)
unworded(a, b)
sys.exit(0 if a == b else 1)
PY
}

for c in "${cases[@]}"; do
	name=${c%%|*}
	opts=${c#*|}
	ext=json
	case $name in *gzip*) ext=json.gz ;; esac
	# shellcheck disable=SC2086
	if ! "$tools/make-trace" --out "$tmp/$name.$ext" --truth "$tmp/$name.truth.json" $opts 2>"$tmp/gen.err" ||
		! $conv "$tmp/$name.$ext" "$tmp/$name.sqlite" 2>"$tmp/conv.err"; then
		t_check "$name" 1 "generating: $(cat "$tmp/gen.err" "$tmp/conv.err")"
		continue
	fi
	"$bin" trace --format json --steps "$tmp/$name.$ext" >"$tmp/k.json" 2>"$tmp/err" &&
		"$bin" trace --format json --steps "$tmp/$name.sqlite" >"$tmp/n.json" 2>>"$tmp/err"
	t_check "$name runs" $? "$(cat "$tmp/err")"
	python3 "$src/tests/trace/check_split.py" truth "$tmp/n.json" "$tmp/$name.truth.json" >"$tmp/check" 2>&1
	t_check "$name: the export's steps are the truth" $? "$(cat "$tmp/check")"
	same_but_source "$tmp/k.json" "$tmp/n.json"
	t_check "$name: the export's report is the Kineto trace's" $? "reports differ"
	rm -f "$tmp/$name".*
done

# A job of per-rank exports (the rank from the capture's environment, RANK and WORLD_SIZE), clocks skewed.
for job in "4|2|--clock-skew 3000 --seed 4" "2|1|--seed 2"; do
	IFS='|' read -r ranks straggler opts <<<"$job"
	dir=$tmp/job$ranks
	mkdir -p "$dir/t" "$dir/truth" "$dir/nsys"
	# shellcheck disable=SC2086
	"$tools/make-trace" --out "$dir/t/job.json" --truth "$dir/truth/job.truth.json" --ranks "$ranks" \
		--straggler "$straggler" --steps 3 $opts >/dev/null 2>&1
	for t in "$dir"/t/*.json; do
		$conv "$t" "$dir/nsys/$(basename "$t" .json).sqlite" 2>/dev/null
	done
	"$bin" trace --format json "$dir/nsys" >"$dir/report.json" 2>"$dir/err"
	t_check "job of $ranks rank exports runs" $? "$(cat "$dir/err")"
	python3 "$src/tests/job/check_job.py" "$dir/report.json" "$dir/truth" "$straggler" >"$dir/check" 2>&1
	t_check "job of $ranks rank exports against the truth" $? "$(cat "$dir/check")"
done

# diff across formats: one capture as a Kineto trace and as an export is the same run.
"$tools/make-trace" --out "$tmp/d.json" --steps 3 --seed 9 2>/dev/null && $conv "$tmp/d.json" "$tmp/d.sqlite" 2>/dev/null
"$bin" diff --format json "$tmp/d.json" "$tmp/d.sqlite" >"$tmp/diff.json" 2>"$tmp/err"
t_check "diff Kineto vs export runs" $? "$(cat "$tmp/err")"
python3 - "$tmp/diff.json" >"$tmp/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [k for k, v in d["buckets_ms"].items() if v["delta"] != 0 or v["before"] != v["after"]]
bad += ["%s.%s" % (c["bucket"], c["cause"]) for c in d["causes_ms"] if c["delta"] != 0]
bad += [k["name"] for k in d["kernels"] if k["delta_ms"] != 0 or k["before_count"] != k["after_count"]]
if d["step_ms"]["before"] != d["step_ms"]["after"] or d["step_ms"]["significant"]:
    bad.append("step time")
print("changed: %s" % bad if bad else "")
sys.exit(1 if bad else 0)
PY
t_check "diff Kineto vs export: no change" $? "$(cat "$tmp/check")"

t_finish "nsys truth"

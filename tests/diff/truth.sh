#!/usr/bin/env bash
# nextstep diff against make-trace's exact truth: the same seed with the data loader at 30% and then at 2% of
# the step. The per-step time, the six buckets in ms per step and the dataloader share must be what the two
# truth files say (to the nanosecond the trace is written in), for plain and gzip traces and both category
# spellings; a trace compared with itself is "no change". Expected values come from the truth JSON only.
# Usage: truth.sh NEXTSTEP_BINARY   (exit 77 = skipped: ../shared is absent)
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
gen=$root/../shared/tools/make-trace
# shellcheck source=tests/lib.sh
. "$root/tests/lib.sh"
t_need_shared "$gen"

check() { # BEFORE AFTER BEFORE_TRUTH AFTER_TRUTH
	"$bin" diff --format json "$1" "$2" >"$tmp/out.json"
	"$bin" diff "$1" "$2" >"$tmp/out.txt"
	python3 - "$tmp/out.json" "$tmp/out.txt" "$3" "$4" <<'PY'
import json, sys
out, text, tb, ta = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
def near(got, want, what):
    if abs(got - want) > 1e-6:
        sys.exit(f"{what}: nextstep {got}, truth {want}")
for side, t in (("before", tb), ("after", ta)):
    steps = [s["dur_us"] / 1e3 for s in t["steps"]]
    n = len(steps)
    near(out["step_ms"][side]["mean"], sum(steps) / n, side + " mean step")
    near(out["step_ms"][side]["min"], min(steps), side + " shortest step")
    assert out["step_ms"][side]["steps"] == n
    for b, us in t["overall"]["buckets_us"].items():
        near(out["buckets_ms"][b][side], us / 1e3 / n, f"{side} {b} ms per step")
    near(out[side]["devices"][0]["overall"]["split"]["dataloader"], t["overall"]["fractions"]["dataloader"],
         side + " dataloader share")
mb = sum(s["dur_us"] for s in tb["steps"]) / len(tb["steps"])
ma = sum(s["dur_us"] for s in ta["steps"]) / len(ta["steps"])
near(out["step_ms"]["speedup"], mb / ma, "speedup")
fb, fa = tb["overall"]["fractions"]["dataloader"], ta["overall"]["fractions"]["dataloader"]
# BEFORE is compute-bound with the data loader a high finding: "dataloader (high) fixed: 30% -> 3% of ..."
want = f"dataloader (high) fixed: {fb * 100:.0f}% -> {fa * 100:.0f}% of the step"
assert want in text, f"{want!r} not in {text!r}"
# The data loader drops under the moderate grade (5%): it was fixed, whatever the shares of the rest.
fixed = [x for x in out["verdict"]["targets"] if x["bucket"] == "dataloader"]
assert fixed and fixed[0]["fate"] == "fixed", out["verdict"]
PY
}

for style in new old; do
	for ext in json json.gz; do
		common=(--seed 11 --steps 8 --style "$style")
		"$gen" --out "$tmp/b.$ext" --truth "$tmp/b.truth.json" "${common[@]}" \
			--split compute=0.45,memory=0.1,comm=0.05,dataloader=0.3,overhead=0.05,idle=0.05 >/dev/null 2>&1
		"$gen" --out "$tmp/a.$ext" --truth "$tmp/a.truth.json" "${common[@]}" \
			--split compute=0.45,memory=0.1,comm=0.05,dataloader=0.02,overhead=0.05,idle=0.05 >/dev/null 2>&1
		check "$tmp/b.$ext" "$tmp/a.$ext" "$tmp/b.truth.json" "$tmp/a.truth.json"
		same=$("$bin" diff -q "$tmp/b.$ext" "$tmp/b.$ext")
		[ "$same" = "no change" ] || { echo "FAIL: $style $ext: a trace against itself: $same"; exit 1; }
		echo "ok: $style style, $ext"
	done
done

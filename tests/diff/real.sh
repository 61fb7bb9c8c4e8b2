#!/usr/bin/env bash
# nextstep diff on the shared ResNet-50 pair (kineto tb_plugin samples): num_workers=0 -> num_workers=4 on one
# V100. The fix is the data loader's: BEFORE has a third of the step in the loader, AFTER almost none. The diff
# must say the data loader was fixed, give a compute-bound verdict for AFTER, and a speed-up within 1% of the
# ratio of the two traces' mean ProfilerStep# durations, read here with python3 straight from the traces.
# A report saved with `nextstep trace --format json` must stand in for the BEFORE trace with the same verdict.
# Issue 21: BEFORE's next step is the data loader, and its bound is not below the step time the fix saved
# (the mean ProfilerStep# durations, read here from the traces).
# Usage: real.sh NEXTSTEP_BINARY   (exit 77 = skipped: ../shared is absent)
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$root/../shared/traces/tbp
before=$dir/resnet50_num_workers_0.pt.trace.json.gz
after=$dir/resnet50_num_workers_4.pt.trace.json.gz
# shellcheck source=tests/lib.sh
. "$root/tests/lib.sh"
t_need_shared "$before" "$after"

"$bin" diff "$before" "$after" >"$tmp/text"
"$bin" diff --format json "$before" "$after" >"$tmp/json"
"$bin" trace --format json "$before" >"$tmp/baseline.json"
"$bin" diff "$tmp/baseline.json" "$after" >"$tmp/text-from-baseline"
python3 - "$before" "$after" "$tmp" <<'PY'
import gzip, json, sys
before, after, tmp = sys.argv[1:4]
def mean_step_ms(path):
    events = json.load(gzip.open(path))["traceEvents"]
    steps = [e["dur"] for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    assert steps, path
    return sum(steps) / len(steps) / 1e3
ratio = mean_step_ms(before) / mean_step_ms(after)
d = json.load(open(tmp + "/json"))
text = open(tmp + "/text").read()
speedup = d["step_ms"]["speedup"]
assert abs(speedup / ratio - 1) < 0.01, f"speedup {speedup} vs ProfilerStep# ratio {ratio}"
assert d["step_ms"]["significant"], d["step_ms"]
assert "dataloader (high) fixed:" in text or "dataloader-bound fixed:" in text, text
assert d["verdict"]["after"] == "compute" and "compute-bound" in text.split("; ")[-1], text
assert d["buckets_ms"]["dataloader"]["after"] < 0.05 * d["step_ms"]["after"]["mean"], d["buckets_ms"]
assert d["suspect"] == [], d["suspect"]
top = json.load(open(tmp + "/baseline.json"))["devices"][0]["overall"]["next_steps"][0]
saved = mean_step_ms(before) - mean_step_ms(after)
assert top["bucket"] == "dataloader" and top["gain_us"] / 1e3 >= saved, (top, saved)
chk = [c for c in d["next_steps_checked"] if c["bucket"] == "dataloader"][0]
windows = d["step_ms"]["before"]["mean"] - d["step_ms"]["after"]["mean"]  # the diff's own step windows
assert chk["applied"] and abs(chk["achieved_us"] / 1e3 - windows) < 1e-3 and not d["prediction_exceeded"], (chk, windows)
assert abs(windows / saved - 1) < 0.05, (windows, saved)
assert "prediction: data loader: predicted up to" in text, text
same = open(tmp + "/text-from-baseline").read()
assert same == text, f"saved baseline gives {same!r}, trace gives {text!r}"
print(f"ok: speed-up {speedup:.4f}x, ProfilerStep# ratio {ratio:.4f}x; next step data loader, bound "
      f"{top['gain_us'] / 1e3:.3f} ms >= saved {saved:.3f} ms; {text.strip()}")
PY

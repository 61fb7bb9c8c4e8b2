#!/usr/bin/env bash
# nextstep diff --format json on the hand-written saved reports in tests/data/diff/: the JSON contract
# (docs/diff.md) with every expected figure worked out by hand from the fixtures' numbers (see the comments).
# Usage: fixtures.sh NEXTSTEP_BINARY
set -euo pipefail
bin=$1
cd "$(dirname "$0")/../.."
D=tests/data/diff
"$bin" diff --format json "$D/before.json" "$D/after.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
def near(got, want, what):
    if got is None or abs(got - want) > 1e-6:
        sys.exit(f"{what}: got {got}, want {want}")
# before: steps 98, 100, 102, 100 ms; after: 60, 61, 59, 60 ms
near(d["step_ms"]["before"]["mean"], 100.0, "before mean")
near(d["step_ms"]["before"]["median"], 100.0, "before median")
near(d["step_ms"]["after"]["mean"], 60.0, "after mean")
near(d["step_ms"]["after"]["min"], 59.0, "after min")
near(d["step_ms"]["after"]["max"], 61.0, "after max")
near(d["step_ms"]["speedup"], 100.0 / 60.0, "speedup")
assert d["step_ms"]["significant"] is True, "a 1.67x change with 2% jitter is significant"
lo, hi = d["step_ms"]["interval"]
assert lo > 1.5 and hi < 1.8 and lo <= 100 / 60 <= hi, f"interval {lo}-{hi}"
# whole-run bucket / 4 steps: before 144000, 40000, 0, 176000, 20000, 20000 us; after 144000, 40000, 0, 2400,
# 20000, 33600 us
want = {"compute": (36, 36), "memory": (10, 10), "comm": (0, 0), "dataloader": (44, 0.6),
        "overhead": (5, 5), "idle": (5, 8.4)}
assert set(d["buckets_ms"]) == set(want), "all six buckets"
for b, (x, y) in want.items():
    near(d["buckets_ms"][b]["before"], x, b + " before")
    near(d["buckets_ms"][b]["after"], y, b + " after")
    near(d["buckets_ms"][b]["delta"], y - x, b + " delta")
# kernels per step: the elementwise kernel 30000 -> 36000 us over 4 steps (+1.5 ms), the GEMM unchanged;
# flash_fwd is only in AFTER list and the Memcpy only in BEFORE list: a saved report lists its top kernels
# only, so the other side time is unknown (null), not zero, and those come last.
k = [(x["name"], x["before_ms"], x["after_ms"], x["delta_ms"]) for x in d["kernels"]]
assert k[0] == ("at::native::vectorized_elementwise_kernel", 7.5, 9.0, 1.5), k[0]
assert k[1][3] == 0 and k[1][0].startswith("sm90_xmma_gemm"), k[1]
assert k[2] == ("flash_fwd_kernel", None, 6.0, None), k[2]
assert k[3] == ("Memcpy HtoD (Pageable -> Device)", 2.5, None, None), k[3]
assert d["kernels"][0]["before_count"] == 800 and d["kernels"][0]["after_count"] == 800
v = d["verdict"]
assert (v["change"], v["before"], v["after"], v["regime_changed"]) == ("faster", "dataloader", "compute", True), v
# BEFORE: dataloader-bound (44%) with compute 36% graded high; dataloader fixed (1% < 5%), compute unchanged.
t = [(x["bucket"], x["was"], x["fate"]) for x in v["targets"]]
assert t == [("dataloader", "regime", "fixed"), ("compute", "high finding", "unchanged")], t
assert v["text"].startswith("step 100.0 ms -> 60.00 ms (1.67x faster)"), v["text"]
assert d["before"]["devices"][0]["overall"]["dur_us"] == 400000, "before is the saved report itself"
assert d["suspect"] == [], d["suspect"]
# causes (issue 10) in the reports, per step over 4 steps: overhead/launch 15000 -> 5000 us, overhead/sync
# 5000 -> 15000 us, idle/host_gap 20000 -> 33600 us
c = {(x["bucket"], x["cause"]): (x["before"], x["after"], x["delta"]) for x in d["causes_ms"]}
assert c == {("overhead", "launch"): (3.75, 1.25, -2.5), ("overhead", "sync"): (1.25, 3.75, 2.5),
             ("idle", "host_gap"): (5, 8.4, 3.4)}, c
'
echo "diff json contract: ok"

# A side given twice: no change at all, not a 0% win.
"$bin" diff --format json "$D/before.json" "$D/before.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["verdict"]["change"] == "no change", d["verdict"]
assert d["step_ms"]["speedup"] == 1 and all(b["delta"] == 0 for b in d["buckets_ms"].values())
'
echo "diff identical: ok"

# A profile side has shares only: no step time, no ms.
"$bin" diff --format json "$D/before_profile.json" "$D/after.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["step_ms"] is None and d["buckets_ms"] is None, d
assert d["before"]["regime"] == "dataloader" and d["before"]["label"] == "before (shares from the plugin)"
assert d["verdict"]["change"] == "time unknown" and d["verdict"]["targets"][0]["fate"] == "fixed"
'
echo "diff profile side: ok"

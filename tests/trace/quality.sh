#!/usr/bin/env bash
# The trace-quality verdict on generated traces, each checked against truth derived here, not from the program:
# - kernels deleted at random (seeded) from a make-trace trace: launch_without_activity counts exactly the
#   deleted kernels whose launch lies inside the recorded GPU work (the documented rule), with the share the
#   documented estimate gives, and the grade is degraded;
# - the same trace with all its GPU work squeezed into its first step: concentrated_steps, 1 of its steps;
# - make-graph-trace.py's CUDA-graph replays: replays, kernels and GPU time in graphs (overall and per step),
#   missing and partial replays, and the "graphs:" line, against the generator's truth.
# Needs ../shared/tools/make-trace and python3; exits 77 (skipped) without them. Run from the repository root.
set -u
bin=$1
maketrace=../shared/tools/make-trace
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$maketrace"
command -v python3 >/dev/null || t_skip "python3 not installed"
ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL $1"
	fail=$((fail + 1))
}

"$maketrace" --out "$tmp/base.json" --truth "$tmp/base.truth.json" --steps 8 --seed 11 >/dev/null 2>&1 ||
	{ echo "make-trace failed"; exit 1; }

# 1. Dropped kernels. The expected count and share follow docs/trace.md: a kernel launch (a runtime call named
#    *Launch*, not a graph or host-function launch) with no GPU record, at or before the last recorded GPU
#    record's start; implied time = that count x the mean time of the kernels recorded with a kernel launch.
for seed in 1 2 3; do
	python3 - "$tmp/base.json" "$tmp/drop.json" "$tmp/drop.want" "$seed" <<'PY' || { bad "dropping kernels (seed $seed)"; continue; }
import json, random, sys
src, out, want, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
doc = json.load(open(src))
ev = doc["traceEvents"]
GPU = ("kernel", "gpu_memcpy", "gpu_memset")
def kernel_launch(e):
    n = e.get("name", "")
    return (e.get("cat") == "cuda_runtime" and e.get("ph") == "X" and "Launch" in n and "GraphLaunch" not in n
            and "HostFunc" not in n and "correlation" in e.get("args", {}))
launch = {e["args"]["correlation"]: e for e in ev if kernel_launch(e)}
kernels = [i for i, e in enumerate(ev) if e.get("cat") == "kernel" and e.get("args", {}).get("correlation") in launch]
rng = random.Random(seed)
drop = set(rng.sample(kernels, len(kernels) * 3 // 100))
kept = [e for i, e in enumerate(ev) if i not in drop]
gpu = [e for e in kept if e.get("cat") in GPU and e.get("ph") == "X"]
last_start = max(e["ts"] for e in gpu)
seen = {e["args"].get("correlation") for e in gpu}
missing = [c for c, l in launch.items() if c not in seen and l["ts"] <= last_start]
linked = [e["dur"] for e in gpu if e.get("cat") == "kernel" and e["args"].get("correlation") in launch]
# the program's mean is integer nanoseconds of a nanosecond-exact sum
mean_ns = int(round(sum(round(d * 1000) for d in linked))) // len(linked)
gpu_ns = sum(round(e["dur"] * 1000) for e in gpu)
implied = len(missing) * mean_ns
doc["traceEvents"] = kept
json.dump(doc, open(out, "w"))
json.dump({"count": len(missing), "share": implied / (gpu_ns + implied)}, open(want, "w"))
PY
	"$bin" trace --format json "$tmp/drop.json" >"$tmp/drop.report" || { bad "nextstep on the dropped-kernel trace (seed $seed)"; continue; }
	if python3 - "$tmp/drop.report" "$tmp/drop.want" <<'PY'; then ok; else bad "launch_without_activity (seed $seed)"; fi
import json, sys
q = json.load(open(sys.argv[1]))["quality"]
want = json.load(open(sys.argv[2]))
p = {x["kind"]: x for x in q["problems"]}.get("launch_without_activity")
errs = []
if want["count"] == 0:
    errs.append("the seed dropped nothing inside the GPU work: pick another")
elif p is None:
    errs.append("no launch_without_activity problem: %s" % q)
else:
    if p["count"] != want["count"]:
        errs.append("count %d, want %d" % (p["count"], want["count"]))
    if abs(p["share"] - want["share"]) > 1e-9:
        errs.append("share %.9f, want %.9f" % (p["share"], want["share"]))
    if p["grade"] != "degraded" or q["grade"] != "degraded":
        errs.append("grades %s / %s, want degraded (share %.4f is between 0.5%% and 20%%)" % (p["grade"], q["grade"], want["share"]))
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)
PY
done

# The untouched trace has none of these problems.
"$bin" trace --format json "$tmp/base.json" | python3 -c '
import json, sys
q = json.load(sys.stdin)["quality"]
bad = [p for p in q["problems"] if p["grade"] != "good"]
sys.exit(1 if bad or q["grade"] != "good" else 0)' && ok || bad "the generated trace itself is not graded good"

# 2. All GPU work in one step: GPU records mapped linearly from [first start, last end] into the first step's
#    window (order and durations scaled alike, so streams stay in order).
python3 - "$tmp/base.json" "$tmp/conc.json" <<'PY' || bad "squeezing the GPU work"
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
steps = sorted((e for e in ev if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")), key=lambda e: e["ts"])
gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("ph") == "X"]
a = min(e["ts"] for e in gpu)
b = max(e["ts"] + e["dur"] for e in gpu)
s0, d0 = steps[0]["ts"], steps[0]["dur"]
f = (d0 * 0.9) / (b - a)
for e in gpu:
    e["ts"] = round(s0 + (e["ts"] - a) * f, 3)
    e["dur"] = round(e["dur"] * f, 3)
json.dump(doc, open(sys.argv[2], "w"))
PY
"$bin" trace --format json "$tmp/conc.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
q = d["quality"]
p = {x["kind"]: x for x in q["problems"]}.get("concentrated_steps")
steps = len([w for w in d["devices"][0]["steps"] if not w["warmup"]])
ok = p is not None and p["count"] == 1 and p["grade"] == "degraded" and q["grade"] != "good" and steps == 8
if not ok:
    print("  concentrated_steps:", p, "grade", q["grade"], "steps", steps)
sys.exit(0 if ok else 1)' && ok || bad "GPU work moved into one step is not flagged"

# 3. CUDA-graph replays against make-graph-trace.py's truth.
for seed in 4 9; do
	python3 "$here/make-graph-trace.py" "$tmp/g.json" "$tmp/g.truth" --seed "$seed"
	"$bin" trace --format json "$tmp/g.json" >"$tmp/g.report" && "$bin" trace "$tmp/g.json" >"$tmp/g.text" ||
		{ bad "nextstep on the graph trace (seed $seed)"; continue; }
	if python3 - "$tmp/g.report" "$tmp/g.truth" "$tmp/g.text" <<'PY'; then ok; else bad "graph replays (seed $seed)"; fi
import json, sys
d = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
dev = d["devices"][0]
errs = []
g = dev["overall"]["graphs"]
if (g["launches"], g["kernels"]) != (t["replays"], t["graph_kernels"]) or abs(g["gpu_us"] - t["graph_us"]) > 1e-6:
    errs.append("overall graphs %s, truth %s replays, %s kernels, %s us" % (g, t["replays"], t["graph_kernels"], t["graph_us"]))
per_step = [w["graphs"] for w in dev["steps"]]
if sum(w["launches"] for w in per_step) != t["replays"] or sum(w["kernels"] for w in per_step) != t["graph_kernels"]:
    errs.append("steps' graphs do not add up to the truth: %s" % per_step)
p = {x["kind"]: x for x in d["quality"]["problems"]}
miss = p.get("graph_replays_missing", {}).get("count", 0)
part = p.get("graph_replay_mismatch", {}).get("count", 0)
if miss != t["missing"]:
    errs.append("graph_replays_missing %d, truth %d" % (miss, t["missing"]))
if part != t["partial"]:
    errs.append("graph_replay_mismatch %d, truth %d" % (part, t["partial"]))
share = round(100 * t["graph_us"] / t["gpu_us"])
line = "graphs: %d%% of GPU time in %d replays (%s kernels)" % (share, t["replays"], format(t["graph_kernels"], ","))
if line not in text:
    errs.append("no line '%s' in the text report" % line)
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)
PY
done

# 4. Ops dropped after recording (missing_ops). The whole make-trace capture has no hole in its ops' External ids;
#    with every third CPU op deleted, the holes and the absent ids' share follow docs/trace.md's
#    rule, counted here from the cut file: a run of fewer than 512 absent ids between two recorded ids of CPU ops
#    and user annotations is a hole; 10 holes and one per hundred recorded ids make the problem, unfit from 20 %.
for cut in 0 3; do
	python3 - "$tmp/base.json" "$tmp/cut.json" "$tmp/cut.want" "$cut" <<'PY' || { bad "cutting ops (every ${cut})"; continue; }
import json, sys
src, out, want, every = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
doc = json.load(open(src))
def ext(e):
    x = e.get("args", {}).get("External id")
    return x if isinstance(x, int) and e.get("ph") in ("X", "B") and e.get("cat") in ("cpu_op", "user_annotation") else None
n = 0
kept = []
for e in doc["traceEvents"]:
    if every and e.get("cat") == "cpu_op" and ext(e) is not None:
        n += 1
        if n % every == 0:
            continue
    kept.append(e)
doc["traceEvents"] = kept
json.dump(doc, open(out, "w"))
ids = sorted({ext(e) for e in kept if ext(e) is not None})
holes = [b - a - 1 for a, b in zip(ids, ids[1:]) if 1 < b - a <= 512]
share = sum(holes) / (len(ids) + sum(holes)) if holes else 0.0
problem = len(holes) >= 10 and len(holes) >= 0.01 * len(ids)
json.dump({"holes": len(holes) if problem else 0, "share": share, "grade": ("unfit" if share >= 0.2 else "degraded") if problem else None}, open(want, "w"))
PY
	"$bin" trace --format json "$tmp/cut.json" >"$tmp/cut.out" || { bad "nextstep on the cut trace (every ${cut})"; continue; }
	if python3 - "$tmp/cut.out" "$tmp/cut.want" "$cut" <<'PY'; then ok; else bad "missing_ops (every ${cut})"; fi
import json, sys
q = json.load(open(sys.argv[1]))["quality"]
w = json.load(open(sys.argv[2]))
p = {x["kind"]: x for x in q["problems"]}.get("missing_ops")
if w["holes"] == 0:
    ok = p is None and sys.argv[3] == "0"
else:
    ok = p is not None and p["count"] == w["holes"] and abs(p["share"] - w["share"]) < 1e-9 and p["grade"] == w["grade"]
if not ok:
    print("  want %s, got %s" % (w, p))
sys.exit(0 if ok else 1)
PY
done

t_finish "trace quality"

#!/usr/bin/env bash
# The labelled real traces in tests/data/real: recorded on a GPU by examples/record/record-all.sh, each from a
# workload built to have one known bottleneck, with the expected verdict written into the MANIFEST before the
# trace was read (examples/record/README.md). For every MANIFEST line that is not `unverified`:
#   - nextstep trace exits 0 and prints the expected verdict (`not X`: any verdict but X);
#   - it counts as many steps as the trace has host ProfilerStep# spans, read here with python3 straight from the
#     trace, and as the MANIFEST's active_steps;
#   - it names the MANIFEST's GPU.
# Then the pairs a fix turns into one another (the same script with and without the fix): the data loader
# fixed leaves no high dataloader finding and a smaller dataloader share; `nextstep diff` on each pair gives a
# speed-up within 1% of the ratio of the two traces' mean ProfilerStep# durations (read here from the traces).
# Usage: recorded.sh NEXTSTEP_BINARY   (exit 77 = skipped: python3 is missing)
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$root/tests/data/real
# shellcheck source=tests/lib.sh
. "$root/tests/lib.sh"
command -v python3 >/dev/null || t_skip "python3 not found"
[ -f "$dir/MANIFEST" ] || {
	echo "FAIL: $dir/MANIFEST not found"
	exit 1
}

# One JSON report per labelled trace, and the diffs of the fix pairs, for the checks in python3 below.
while IFS=$'\t' read -r file _ expect _; do
	case $file in '' | '#'* | file) continue ;; esac
	case $expect in unverified*) continue ;; esac
	status=0
	"$bin" trace --format json "$dir/$file" >"$tmp/$file.json" 2>"$tmp/$file.err" || status=$?
	t_check "$file: exit status" "$status" "status $status: $(head -c 300 "$tmp/$file.err")"
	"$bin" trace "$dir/$file" >"$tmp/$file.txt"
done < <(sed -n '/^file\t/,$p' "$dir/MANIFEST")

pair() { # pair BEFORE_WORKLOAD AFTER_WORKLOAD: nextstep diff of the two traces, as JSON
	local before after
	before=$(awk -F'\t' -v w="$1" '$2 == w { print $1 }' "$dir/MANIFEST")
	after=$(awk -F'\t' -v w="$2" '$2 == w { print $1 }' "$dir/MANIFEST")
	"$bin" diff --format json "$dir/$before" "$dir/$after" >"$tmp/diff-$1-$2.json"
}
pair dataloader_bound dataloader_fixed
pair overhead_bound overhead_fixed
pair decode_cudnn_attention decode_batch1
pair memory_bound memory_fixed
# The memory pair again from a report saved with --roofline: the memory kernels' bound is then placed.
mem=$(awk -F'\t' '$2 == "memory_bound" { print $1 }' "$dir/MANIFEST")
memfix=$(awk -F'\t' '$2 == "memory_fixed" { print $1 }' "$dir/MANIFEST")
"$bin" trace --roofline --format json "$dir/$mem" >"$tmp/memory_bound-roofline.json"
"$bin" diff --format json "$tmp/memory_bound-roofline.json" "$dir/$memfix" >"$tmp/diff-memory-roofline.json"
pair compute_fp32 compute_bound
# The compute-bound trace as the two ranks of a job (distributedInfo added: the recording is one process):
# its job report, from the traces and from their summary lines.
python3 - "$dir/$(awk -F'\t' '$2 == "compute_bound" { print $1 }' "$dir/MANIFEST")" "$tmp" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]))
for rank in (0, 1):
    doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 2}
    json.dump(doc, open(f"{sys.argv[2]}/rank{rank}.json", "w"))
PY
"$bin" trace --format json "$tmp/rank0.json" "$tmp/rank1.json" >"$tmp/job-traces.json"
"$bin" trace --summary "$tmp/rank0.json" "$tmp/rank1.json" >"$tmp/job.ndjson"
"$bin" job --format json "$tmp/job.ndjson" >"$tmp/job-summaries.json"

status=0
python3 - "$dir" "$tmp" >"$tmp/py.out" 2>&1 <<'PY' || status=$?
import gzip, json, os, sys
dir, tmp = sys.argv[1:3]
header, rows = {}, []
for line in open(os.path.join(dir, "MANIFEST")):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    f = line.split("\t")
    if f[0] == "file":
        continue
    if len(f) == 2:
        header[f[0]] = f[1]
    else:
        rows.append(dict(zip(("file", "workload", "expect", "command"), f)))
active = int(header["active_steps"])
fails = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        fails.append(what)

def profiler_steps(path):
    events = json.load(gzip.open(path))["traceEvents"]
    # The host's spans (user_annotation); recent releases also copy each onto the GPU's timeline.
    return [e["dur"] for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
            and str(e.get("name", "")).startswith("ProfilerStep#")]

reports = {}
for r in rows:
    if r["expect"].startswith("unverified"):
        continue
    f = r["file"]
    dev = json.load(open(os.path.join(tmp, f + ".json")))["devices"][0]
    reports[r["workload"]] = dev
    verdict = dev["overall"]["verdict"]
    want = r["expect"]
    if want.startswith("not "):
        check(verdict != want[4:], f"{r['workload']}: verdict {verdict}, expected {want}")
    else:
        check(verdict == want, f"{r['workload']}: verdict {verdict}, expected {want}")
    steps = [s for s in dev["steps"] if not s.get("warmup")]
    spans = profiler_steps(os.path.join(dir, f))
    check(len(steps) == len(spans) == active,
          f"{r['workload']}: {len(steps)} steps reported, {len(spans)} ProfilerStep# spans, {active} recorded")
    text = open(os.path.join(tmp, f + ".txt")).read()
    check(header["gpu"] in text, f"{r['workload']}: names the GPU ({header['gpu']})")

def high_dataloader(dev):
    o = dev["overall"]
    return o["regime"] == "dataloader" or any(
        x["regime"] == "dataloader" and x["grade"] == "high" for x in o["findings"])
slow, fixed = reports["dataloader_bound"], reports["dataloader_fixed"]
check(high_dataloader(slow), "dataloader_bound: the data loader is the verdict or a high finding")
check(not high_dataloader(fixed), "dataloader_fixed: no high dataloader finding")
check(fixed["overall"]["split"]["dataloader"] < slow["overall"]["split"]["dataloader"],
      "dataloader_fixed: a smaller dataloader share than dataloader_bound")

by_workload = {r["workload"]: r["file"] for r in rows}
diffs = {}
for before, after in (("dataloader_bound", "dataloader_fixed"), ("overhead_bound", "overhead_fixed"),
                      ("decode_cudnn_attention", "decode_batch1"), ("memory_bound", "memory_fixed"),
                      ("compute_fp32", "compute_bound")):
    d = diffs[before] = json.load(open(os.path.join(tmp, f"diff-{before}-{after}.json")))
    b = profiler_steps(os.path.join(dir, by_workload[before]))
    a = profiler_steps(os.path.join(dir, by_workload[after]))
    ratio = (sum(b) / len(b)) / (sum(a) / len(a))
    speedup = d["step_ms"]["speedup"]
    check(abs(speedup / ratio - 1) < 0.01 and d["step_ms"]["significant"],
          f"diff {before} -> {after}: speed-up {speedup:.3f}x, ProfilerStep# ratio {ratio:.3f}x")

# Fusion (torch.compile) shortened the memory-bound kernels. The trace records shapes, so their ops were
# placed on the roofline unasked: the bound is an estimate (what a better kernel wins at the same bytes), and
# fusion, which removes bytes, won more than it but less than the time the kernels held: the diff credits the
# fix and does not call the bound wrong.
d = diffs["memory_bound"]
kernels = [c for c in d["next_steps_checked"] if c["bucket"] == "memory" and c["cause"] == "kernels"]
check(len(kernels) == 1 and kernels[0]["applied"] and kernels[0]["predicted_us"] is not None
      and kernels[0]["predicted_us"] < kernels[0]["achieved_us"] <= kernels[0]["before_us"]
      and not d["prediction_exceeded"], f"diff memory_bound -> memory_fixed: fusion credited, no bound wrong: {kernels}")
# Placed on the roofline, the memory kernels' bound is what a better kernel wins at the same bytes, a floor:
# fusion removed bytes and won more, which the diff does not call a wrong bound.
d = json.load(open(os.path.join(tmp, "diff-memory-roofline.json")))
kernels = [c for c in d["next_steps_checked"] if c["bucket"] == "memory" and c["cause"] == "kernels"]
check(len(kernels) == 1 and kernels[0]["applied"] and kernels[0]["predicted_us"] is not None
      and kernels[0]["achieved_us"] > kernels[0]["predicted_us"] and not d["prediction_exceeded"],
      f"diff memory_bound (--roofline) -> memory_fixed: fusion past the roof's floor, no bound wrong: {kernels}")
# The fp32 workload's first next step is lower precision, and moving to bf16 applied it within its estimate.
top = reports["compute_fp32"]["overall"]["next_steps"][0]
check(top["bucket"] == "compute" and "autocast" in top["fix"], f"compute_fp32: first next step is lower precision: {top['fix'][:80]}")
d = diffs["compute_fp32"]
check(d["next_steps_checked"][0]["applied"] and not d["prediction_exceeded"],
      "diff compute_fp32 -> compute_bound: the precision fix applied, within its estimate")
# The kernel-bound workloads record shapes, so their ops are placed on the roofline unasked and the kernels'
# fix, which holds most of each step, comes first with a bound from the placement; not a few-percent host item
# ranked ahead of kernels whose bound was unknown.
for workload, bucket in (("compute_bound", "compute"), ("memory_bound", "memory"), ("decode_batch1", "memory")):
    top = reports[workload]["overall"]["next_steps"][0]
    check(top["bucket"] == bucket and top.get("roofline") == "placed" and top["gain_us"] is not None
          and top["gain_share"] > 0.10,
          f"{workload}: first next step is the {bucket} kernels' fix, bounded by the placement: {top['title']}")
# compute_bound's bf16 GEMMs run at 73-75 % of the H200's dense datasheet peak, about what cuBLAS reaches:
# the lever named is less work or a lower precision, not a better kernel.
roofs = {r["bucket"]: r for r in reports["compute_bound"]["overall"]["kernel_roofs"]}
check("compute" in roofs and roofs["compute"]["lever"] == "less_work" and 0.2 < roofs["compute"]["above_share"] < 0.3,
      f"compute_bound: GEMMs near the practical roof, lever less work: {roofs.get('compute')}")
# Near their bf16 roof, the GEMMs' lower precision is fp8: the H200's fp8 peak is twice its bf16 one (1979
# against 989.5 TFLOP/s, data/devices.json), and GEMMs of 8192 x 32768 x 8192 stay FLOP-bound at fp8 (7,282
# FLOPs a byte at one byte an element, past the ridge of 1979e12 / 4.8e12 = 412), so at the fp8 roof they
# take half their bf16 roof time: fp8_share = (1 - above_share) / 2. The next step's bound is the compute
# time above that: the compute share x the placed share x (1 - fp8_share).
c = roofs.get("compute", {})
fp8 = c.get("fp8_share")
check(fp8 is not None and abs(fp8 - (1 - c["above_share"]) / 2) < 0.005,
      f"compute_bound: at the fp8 roof the GEMMs take half their bf16 roof time: {fp8}")
top = reports["compute_bound"]["overall"]["next_steps"][0]
want = reports["compute_bound"]["overall"]["split"]["compute"] * c.get("placed_share", 0) * (1 - (fp8 or 0))
check(top["bucket"] == "compute" and abs(top["gain_share"] - want) < 0.005 and "fp8 matmuls" in top["basis"],
      f"compute_bound: the compute bound is at the fp8 roof: {top['gain_share']:.4f}, derived {want:.4f}")
# ...and the line the team acts on names fp8 in a training program's words (compute_bound.py runs a backward
# pass), not the stock "write/use a fused kernel".
fix = reports["compute_bound"]["overall"]["fix"]
check("te.fp8_autocast" in fix and top["fix"] == fix, f"compute_bound: the route is fp8 training: {fix[:90]}")
# A job of ranks that record shapes bounds its kernels as each rank's own report does: the compute-bound
# trace as two ranks names the fp8 fix with the single trace's bound, from the traces and from their summary
# lines (which carry the placement) alike.
jobs = [json.load(open(os.path.join(tmp, f))) for f in ("job-traces.json", "job-summaries.json")]
single = reports["compute_bound"]["overall"]["next_steps"][0]
for name, job in zip(("traces", "summaries"), jobs):
    first = job["job"]["next_steps"][0] if "job" in job else job["next_steps"][0]
    check(first["bucket"] == "compute" and first.get("roofline") == "placed"
          and abs(first["gain_share"] - single["gain_share"]) < 0.001 and "te.fp8_autocast" in first["fix"],
          f"compute_bound as a 2-rank job ({name}): first next step {first['title']} {first['gain_share']:.4f}")
# The small model's eager decode is dispatch-bound: its next step is capturing the step, in an inference
# program's words (capture the forward with a static KV cache), not the training ones.
top = reports["decode_small"]["overall"]["next_steps"][0]
check(top.get("finding") == "step_capture" and "capture the forward" in top["fix"] and "backward" not in top["fix"],
      f"decode_small: first next step is the inference step capture: {top['title']}: {top['fix'][:80]}")
# Each fix pair's BEFORE names, as its first next step, the fix its AFTER applied, and the diff finds it
# applied within its bound: the whole step captured in a CUDA graph; another attention backend for the op
# that built a cuDNN plan per token.
for before, finding, op in (("overhead_bound", "step_capture", None),
                            ("decode_cudnn_attention", "host_op_cudnn_attention", "aten::_cudnn_attention_forward")):
    top = reports[before]["overall"]["next_steps"][0]
    check(top.get("finding") == finding and top.get("op") == op,
          f"{before}: first next step {top['title']} ({top.get('finding')}), expected {finding}")
    d = diffs[before]
    first = d["next_steps_checked"][0]
    check(first["title"] == top["title"] and first["applied"] and not d["prediction_exceeded"],
          f"diff {before}: {first['title']} applied within its bound")
sys.exit(1 if fails else 0)
PY
cat "$tmp/py.out"
t_check "labelled traces and fix pairs" "$status" "see the FAIL lines above"
t_finish trace_recorded

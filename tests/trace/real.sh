#!/usr/bin/env bash
# Real profiler traces in ../shared/traces: pinned verdicts, sane splits (buckets >= 0 and summing to each
# step, step count = ProfilerStep# markers), the TensorBoard plugin's figures for the ResNet-50 pair, and the
# awkward shapes: no distributedInfo, no ProfilerStep, ROCm hip* names, no GPU at all.
# Run from the repository root: real.sh NEXTSTEP_BINARY
set -u
bin=$1
traces=../shared/traces
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$traces"

# trace | overall verdict of device 0 (or of the host split). The reasons, where the rules of issue 10 moved them:
# mi250 was idle: its backward runs on the autograd thread (pt_autograd_0), which is host work, not idle;
# cpu_only_gloo was idle: its time is in gloo:all_reduce on two threads, communication on the host.
pins=(
	"tbp/resnet50_num_workers_0.pt.trace.json.gz|compute"
	"tbp/resnet50_num_workers_4.pt.trace.json.gz|compute"
	"hta/a100_nccl_3steps.json.gz|overhead"
	"hta/alexnet_cuda_sync_nosteps.json.gz|overhead"
	"hta/mi250_rocm_minitoy.json.gz|overhead"
	"hta/cpu_only_gloo.json.gz|comm"
	"hta/sampled_rank0_2steps.json.gz|idle"
)

for p in "${pins[@]}"; do
	trace=$traces/${p%%|*}
	want=${p#*|}
	name=$(basename "$trace")
	if ! "$bin" trace --format json --steps "$trace" >"$tmp/r.json" 2>"$tmp/err"; then
		echo "FAIL $name: nextstep failed: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	again=$(python3 "$here/check_split.py" overall "$tmp/r.json" | "$bin" - --format json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["regime"])')
	[ "$again" = "$want" ] || echo "  overall piped into 'nextstep -' routes to '$again'"
	if [ "$again" = "$want" ] && python3 "$here/check_split.py" sanity "$tmp/r.json" && python3 - "$trace" "$tmp/r.json" "$want" <<'PY'
import gzip, json, sys
trace, report, want = sys.argv[1:]
doc = json.load(gzip.open(trace))
steps = {e["name"] for e in doc["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")
         and e.get("cat") != "gpu_user_annotation" and e.get("ph") == "X"}
r = json.load(open(report))
bad = []
if r["step_markers"] != len(steps):
    bad.append("step_markers %d != %d ProfilerStep# markers in the trace" % (r["step_markers"], len(steps)))
for d in r["devices"]:
    if len(d["steps"]) != max(1, len(steps)):
        bad.append("device %s: %d windows for %d markers" % (d["device"], len(d["steps"]), len(steps)))
got = r["devices"][0]["overall"]["regime"]
if got != want:
    bad.append("verdict %s, pinned %s" % (got, want))
for line in bad:
    print("  " + line)
sys.exit(1 if bad else 0)
PY
	then
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		fail=$((fail + 1))
	fi
done

# The TensorBoard plugin's overview of the ResNet-50 pair, averaged over the 6 steps: num_workers=0: step 177.6 ms,
# data loader 33.4 %, kernels 55.5 %, memcpy+memset 1.1 %; num_workers=4: step 141.1 ms, data loader 0.8 %.
# The data loader share must agree within 2 points; the step time within 1 %.
tbp() { # trace step_ms dataloader_pct kernels_pct(or -) transfer_pct(or -)
	"$bin" trace --format json "$traces/tbp/$1" >"$tmp/tbp.json" && python3 - "$tmp/tbp.json" "$@" <<'PY'
import json, sys
report, name, step_ms, dl, kernels, transfer = sys.argv[1:]
d = json.load(open(report))["devices"][0]
o = d["overall"]
n = len(d["steps"])
bad = []
got_step = o["dur_us"] / n / 1000
if abs(got_step - float(step_ms)) > 0.01 * float(step_ms):
    bad.append("step %.1f ms, plugin %s ms" % (got_step, step_ms))
got_dl = 100 * o["buckets_us"]["dataloader"] / o["dur_us"]
if abs(got_dl - float(dl)) > 2:
    bad.append("dataloader %.1f %%, plugin %s %%" % (got_dl, dl))
if kernels != "-":
    got_k = 100 * (o["buckets_us"]["compute"] + o["memory_kernels_us"]) / o["dur_us"]
    if abs(got_k - float(kernels)) > 2:
        bad.append("kernels %.1f %%, plugin %s %%" % (got_k, kernels))
if transfer != "-":
    got_t = 100 * o["memory_transfer_us"] / o["dur_us"]
    if abs(got_t - float(transfer)) > 1:
        bad.append("memcpy+memset %.1f %%, plugin %s %%" % (got_t, transfer))
for line in bad:
    print("  %s: %s" % (name, line))
sys.exit(1 if bad else 0)
PY
}
if tbp resnet50_num_workers_0.pt.trace.json.gz 177.6 33.4 55.5 1.1 && tbp resnet50_num_workers_4.pt.trace.json.gz 141.1 0.8 - -; then
	pass=$((pass + 1))
else
	echo "FAIL TensorBoard plugin figures"
	fail=$((fail + 1))
fi

# num_workers=0: the data loader is the verdict or, with -v, the first graded finding, graded high.
# num_workers=4: the data loader appears nowhere.
"$bin" trace -v "$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz" >"$tmp/w0.txt"
"$bin" trace -v "$traces/tbp/resnet50_num_workers_4.pt.trace.json.gz" >"$tmp/w4.txt"
first=$(grep -m1 '^finding:' "$tmp/w0.txt")
if head -n1 "$tmp/w0.txt" | grep -q 'dataloader-bound' || [[ $first == "finding: dataloader "*"(high)"* ]]; then
	pass=$((pass + 1))
else
	echo "FAIL num_workers=0: dataloader is neither the verdict nor the first high finding (first: '$first')"
	fail=$((fail + 1))
fi
if grep -Eq 'dataloader-bound|^finding: dataloader' "$tmp/w4.txt"; then
	echo "FAIL num_workers=4: the data loader still shows up"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi

# ROCm hip* runtime and kernels are not communication; a trace with no GPU says so, and its gloo collectives make
# it comm-bound on the host.
"$bin" trace --format json "$traces/hta/mi250_rocm_minitoy.json.gz" >"$tmp/rocm.json"
if python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["devices"][0]["overall"]; sys.exit(0 if o["buckets_us"]["comm"] == 0 and o["comm_overlapped_us"] == 0 else 1)' "$tmp/rocm.json"; then
	pass=$((pass + 1))
else
	echo "FAIL mi250: ROCm kernels counted as communication"
	fail=$((fail + 1))
fi
if "$bin" trace "$traces/hta/cpu_only_gloo.json.gz" >"$tmp/cpu.txt" && head -n1 "$tmp/cpu.txt" | grep -q '^no device activity; ' &&
	sed -n 2p "$tmp/cpu.txt" | grep -q '^rank 34 host: comm-bound .*(gloo)'; then
	pass=$((pass + 1))
else
	echo "FAIL cpu_only: expected 'no device activity' and a gloo comm verdict on the host, got:"
	cat "$tmp/cpu.txt"
	fail=$((fail + 1))
fi

# --roofline on AlexNet: its kernels' External ids are their correlation ids, which no cpu_op has (the older
# profiler's numbering), so they can only reach their ops through their launch calls. Every such kernel, counted
# here from the trace itself, is either linked that way or counted as unlinked; most are linked.
"$bin" trace --format json --roofline "$traces/hta/alexnet_cuda_sync_nosteps.json.gz" >"$tmp/alex.json"
if python3 - "$traces/hta/alexnet_cuda_sync_nosteps.json.gz" "$tmp/alex.json" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]))
ev = doc["traceEvents"]
ops = {e["args"]["External id"] for e in ev if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
orphans = sum(1 for e in ev if e.get("cat") == "kernel" and e.get("ph") == "X"
              and e.get("args", {}).get("External id") not in ops)
roof = json.load(open(sys.argv[2]))["roofline"]
unlinked = sum(v["kernels"] for v in roof["unlinked_kernels"].values())
ok = orphans > 0 and roof["linked_by_launch"] + unlinked == orphans and roof["linked_by_launch"] > orphans // 2
if not ok:
    print("  %d kernels without an op by External id; linked by launch %d, unlinked %d"
          % (orphans, roof["linked_by_launch"], unlinked))
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL alexnet --roofline: kernels not linked through their launch calls"
	fail=$((fail + 1))
fi

# The causes inside the buckets (issue 10), each with why the trace shows it:
# - a100_nccl_3steps: backward runs on pt_autograd_0 (tid 2919752); with the GPU idle, that thread's ops are host
#   work of the process: host_threads is a large part of overhead (it was counted as idle before).
# - alexnet_cuda_sync_nosteps: no steps, and the window is mostly context creation and cudaMalloc/cudaFree: a
#   start-up capture, said so instead of routed to CUDA graphs.
# - mi250_rocm_minitoy: a two-step toy. Its 6.5 ms hipLaunchKernel (the other launch calls take 4-13 us) launched
#   the first vectorized_elementwise_kernel of its name in the trace: a first-use (code-object) load, set-up (issue
#   25), so step 1 is warm-up; step 2 (49 us) ran no kernel, so every window is warm-up: a start-up capture, with
#   init heading overhead (it was host_threads: the autograd thread waiting through the load).
# - cpu_only_gloo: all of comm is host-side gloo.
# - sampled_rank0_2steps: idle with no DataLoader span and no synchronize: host_gap (not a data-loader stall), and
#   inside Distributed Shampoo's step markers the idle cause optimizer; but the file is a sampled one (HTA's
#   trace_filter test data): its ops' External ids have holes, counted below by the documented rule from the
#   trace itself, and the report must call it unfit (missing_ops) instead of giving a verdict.
causes() { # trace python-condition-on-(o: overall, c: causes in us by "bucket.cause", d: device) message
	"$bin" trace --format json "$traces/hta/$1" >"$tmp/c.json" && python3 - "$tmp/c.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
o = d["overall"]
c = {"%s.%s" % (x["bucket"], x["cause"]): x["us"] for x in o["causes"]}
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
	if [ $? = 0 ]; then pass=$((pass + 1)); else echo "FAIL $1: $3"; fail=$((fail + 1)); fi
}
causes a100_nccl_3steps.json.gz 'c["overhead.host_threads"] > 0.2 * o["dur_us"] and c["overhead.launch"] > c["overhead.host_threads"]' \
	"the autograd thread's host work is not a large part of overhead"
causes alexnet_cuda_sync_nosteps.json.gz 'd["startup"] and c["overhead.init"] > 0.5 * o["dur_us"]' "not reported as a start-up capture"
causes mi250_rocm_minitoy.json.gz 'd["startup"] and c["overhead.init"] > 0.5 * o["buckets_us"]["overhead"]' "not start-up with init heading overhead"
causes cpu_only_gloo.json.gz 'c["comm.host"] == o["buckets_us"]["comm"] > 0.5 * o["dur_us"]' "gloo time is not host comm"
causes sampled_rank0_2steps.json.gz 'o["regime"] == "idle" and c["idle.optimizer"] > 0 and c["idle.host_gap"] > c["idle.optimizer"] and c["idle.sync_wait"] == 0' \
	"idle is not host_gap with the optimizer's part apart"
"$bin" trace --format json "$traces/hta/sampled_rank0_2steps.json.gz" >"$tmp/s.json"
if python3 - "$traces/hta/sampled_rank0_2steps.json.gz" "$tmp/s.json" <<'PY'; then
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]))
ids = sorted({e["args"]["External id"] for e in doc["traceEvents"]
              if e.get("ph") in ("X", "B") and e.get("cat") in ("cpu_op", "user_annotation")
              and isinstance(e.get("args", {}).get("External id"), int)})
holes = [b - a - 1 for a, b in zip(ids, ids[1:]) if 1 < b - a <= 512]  # runs of fewer than 512 absent ids
q = json.load(open(sys.argv[2]))["quality"]
p = [x for x in q["problems"] if x["kind"] == "missing_ops"]
want_share = sum(holes) / (len(ids) + sum(holes))
ok = (q["grade"] == "unfit" and len(p) == 1 and p[0]["count"] == len(holes) and p[0]["grade"] == "unfit"
      and abs(p[0]["share"] - want_share) < 1e-9 and len(holes) >= 10)
if not ok:
    print("  want unfit, missing_ops %d holes, share %.4f; got %s" % (len(holes), want_share, q))
sys.exit(0 if ok else 1)
PY
	pass=$((pass + 1))
else
	echo "FAIL sampled_rank0_2steps: a sampled trace (holes in its ops' External ids) is not unfit by missing_ops"
	fail=$((fail + 1))
fi
if "$bin" trace "$traces/hta/sampled_rank0_2steps.json.gz" | grep -q 'no verdict (the trace is unfit'; then
	pass=$((pass + 1))
else
	echo "FAIL sampled_rank0_2steps: the unfit sampled trace still gets a verdict"
	fail=$((fail + 1))
fi
if "$bin" trace "$traces/hta/alexnet_cuda_sync_nosteps.json.gz" | head -n1 | grep -q 'start-up, not steady state.*torch.profiler.schedule'; then
	pass=$((pass + 1))
else
	echo "FAIL alexnet: a start-up capture is routed instead of sent to a steady-state capture"
	fail=$((fail + 1))
fi

# The capture itself (docs/trace.md, "Few and unequal steps", and the with_stack hint):
# - mi250_rocm_minitoy has 2 steps of 9.325 and 0.049 ms (ProfilerStep#2 is cut to a sliver with no kernel): 190x
#   apart, the longer holding 99% of the time: the verdict is that one step's, so it is low confidence.
# - alexnet_cuda_sync_nosteps is start-up only: its advice is a steady-state capture, not with_stack=True.
# - the resnet50 samples' 6 steps are within 1.6x of each other: no unequal_steps, grade unchanged.
quality() { # trace python-condition-on-(q: quality, p: problems by kind) message
	"$bin" trace --format json "$traces/$1" >"$tmp/q.json" && python3 - "$tmp/q.json" "$2" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))["quality"]
p = {x["kind"]: x for x in q["problems"]}
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
	if [ $? = 0 ]; then pass=$((pass + 1)); else echo "FAIL $1: $3"; fail=$((fail + 1)); fi
}
quality hta/mi250_rocm_minitoy.json.gz 'q["grade"] == "degraded" and p["unequal_steps"]["grade"] == "degraded" and p["unequal_steps"]["share"] > 0.99' \
	"two steps 190x apart are not a low-confidence verdict"
quality tbp/resnet50_num_workers_0.pt.trace.json.gz '"unequal_steps" not in p and "single_step" not in p' "six alike steps flagged"
quality tbp/resnet50_num_workers_4.pt.trace.json.gz '"unequal_steps" not in p and "single_step" not in p' "six alike steps flagged"
if "$bin" trace "$traces/hta/alexnet_cuda_sync_nosteps.json.gz" | grep -q 'with_stack=True'; then
	echo "FAIL alexnet: a start-up capture is asked to record with_stack=True"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi

t_finish "trace real"

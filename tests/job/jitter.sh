#!/usr/bin/env bash
# Host jitter and the allocator (issue 25 item 10b). The fixtures are tests/job/make-jitter-job.py's: 3 ranks of
# 3 steps of 10 ms whose rank 2 loses 3 ms a step on the host with its GPU idle. The others start their
# all-reduce 4.400 ms into the step and wait until rank 2 starts it at 7.320 ms: rank 2 is the straggler, its
# slow bucket overhead, its excess 2.920 ms a step, the next step's bound 2.920 ms. What differs is where the
# 3 ms go, so the kind and its evidence (the generator's arithmetic):
# - job-jitter: one kernel launch call of 3 ms a step (the others take 10 us): 3 stalls, 9 ms, 3.000 ms a step:
#   host jitter (pin cores, freeze the GC, check the node), not CUDA graphs.
# - job-jitter-trivial: step 1 an aten::empty of 3 ms, step 2 a cudaEventRecord of 3 ms, step 3 an
#   aten::empty_strided of 3 ms holding a 40 us cudaMalloc: the stall is its other 2.960 ms. 8.960 ms over 3
#   steps = 2.986667 ms a step: host jitter; 40 us of allocator time (13.333 us a step) is not.
# - job-jitter-alloc: an aten::empty of 3 ms a step, 2.990 ms of it a nested cudaMalloc: no stall (10 us of the
#   op is its own), 2.990 ms a step in the allocator that the others never call: kind allocator, its fix the
#   caching allocator's (memory_stats, expandable segments), not the node's.
# Each from the traces and from the rank summaries (the counts travel in them), and the generator still writes
# the committed fixtures.
# Run from the repository root: jitter.sh NEXTSTEP_BINARY SUMMARIZE_BINARY
set -u
bin=$1
summarize=$2
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
fail=0

check() { # REPORT KIND STALL_US ALLOC_US FIX_PREFIX: the straggler and its fix
	python3 - "$@" <<'PY'
import json, sys
path, kind, stall, alloc, fix = sys.argv[1:]
job = json.load(open(path))["job"]
s = job["stragglers"]
assert [x["rank"] for x in s] == [2], "stragglers %r" % s
s = s[0]
assert s["bucket"] == "overhead", s["bucket"]
assert s["kind"] == kind, s["kind"]
assert abs(s.get("stall_us", 0) - float(stall)) < 0.01, s.get("stall_us")
assert abs(s.get("alloc_us", 0) - float(alloc)) < 0.01, s.get("alloc_us")
assert abs(s["excess_us"] - 2920) < 1, s["excess_us"]
assert s["fix"].startswith(fix), s["fix"]
top = job["next_steps"][0]
assert top["title"] == "straggler rank 2" and abs(top["gain_us"] - 2920) < 1, top
assert top["fix"] == s["fix"], top["fix"]
print("ok: %s: rank 2 %s, stalls %s us and allocator %s us a step, next step up to 2.920 ms"
      % (path, kind, stall, alloc))
PY
}

case_of() { # NAME VARIANT KIND STALL_US ALLOC_US FIX_PREFIX SUMMARY_GREP TEXT_GREP
	local name=$1 variant=$2 dir=tests/data/$1
	shift 2
	python3 tests/job/make-jitter-job.py "$tmp/$name" $variant || return 1
	for r in 0 1 2; do
		cmp -s "$tmp/$name/rank-$r.json" "$dir/rank-$r.json" ||
			{ echo "FAIL: $dir/rank-$r.json is not the generator's"; fail=1; }
	done
	"$bin" trace --format json "$dir" >"$tmp/$name.json" || { echo "FAIL: $name: trace exit $?"; fail=1; }
	check "$tmp/$name.json" "$1" "$2" "$3" "$4" || fail=1
	for r in 0 1 2; do "$summarize" "$dir/rank-$r.json"; done >"$tmp/$name.ndjson" || fail=1
	grep -q "$5" "$tmp/$name.ndjson" || { echo "FAIL: $name: rank 2's summary lacks $5"; fail=1; }
	"$bin" job --format json "$tmp/$name.ndjson" >"$tmp/$name.job.json" || { echo "FAIL: $name: job exit $?"; fail=1; }
	check "$tmp/$name.job.json" "$1" "$2" "$3" "$4" || fail=1
	"$bin" trace "$dir" >"$tmp/$name.text" || fail=1
	grep -q "^straggler: rank 2 .*$6" "$tmp/$name.text" ||
		{ echo "FAIL: $name: the straggler line does not say '$6'"; cat "$tmp/$name.text"; fail=1; }
}

case_of job-jitter "" host_jitter 3000 0 "host jitter" '"host_stalls":3,"host_stall_ns":9000000' \
	'3.000 ms a step in trivial host calls stalled for milliseconds'
case_of job-jitter-trivial trivial host_jitter 2986.666 13.333 "host jitter" \
	'"host_stalls":3,"host_stall_ns":8960000,"alloc_calls":1,"alloc_ns":40000' \
	'2.987 ms a step in trivial host calls stalled for milliseconds'
case_of job-jitter-alloc alloc allocator 0 2990 "the allocator" '"alloc_calls":3,"alloc_ns":8970000' \
	'2.990 ms a step in cudaMalloc/cudaFree'
# The allocator rank alone (issue 25, "Set-up that recurs"): its 2.990 ms of cudaMalloc a step, the GPU idle
# for all of it (the GEMM ends at 4.200 ms, the next kernel starts at 7.270 ms), is set-up time in all 3 steady
# steps: the caching allocator's route, not "this is start-up: profile steady state". Rank 0 has no set-up time.
"$bin" trace --format json tests/data/job-jitter-alloc/rank-2.json >"$tmp/alloc-rank2.json" || fail=1
"$bin" trace --format json tests/data/job-jitter-alloc/rank-0.json >"$tmp/alloc-rank0.json" || fail=1
python3 - "$tmp/alloc-rank2.json" "$tmp/alloc-rank0.json" <<'PY' || fail=1
import json, sys
steps = json.load(open(sys.argv[1]))["devices"][0]["overall"]["next_steps"]
# titled for what it is: set-up in every steady step is not start-up (the cause stays overhead.init)
assert not [n for n in steps if n["title"] == "start-up"], steps
init = [n for n in steps if n["title"] == "allocator calls in the steps"]
assert len(init) == 1 and abs(init[0]["gain_us"] - 2990) < 0.5, init
assert init[0]["cause"] == "init" and init[0]["finding"] == "allocator_steps", init[0]
assert init[0]["fix"].startswith("the caching allocator calls cudaMalloc/cudaFree inside the steady steps"), init[0]["fix"]
other = json.load(open(sys.argv[2]))["devices"][0]["overall"]["next_steps"]
assert not [n for n in other if "caching allocator" in n["fix"]], other
print("ok: the allocator rank alone: set-up in every step is the caching allocator's, up to 2.990 ms a step")
PY
# One rank's host jitter (issue 25, docs/trace.md "Host stalls"): rank 2 of job-jitter alone has 3 stalls of
# 3 ms (one launch a step, the GPU idle), 9 ms of the 9.120 ms of launch overhead its 3 steps hold: the launch
# overhead is host stalls (pin cores, freeze the GC), not "CUDA graphs", up to 3.040 ms a step (the 3 ms stall
# and 4 launches of 10 us a step, the generator's). Rank 0 has no
# stall: its launch overhead keeps the dispatch route.
"$bin" trace --format json tests/data/job-jitter/rank-2.json >"$tmp/jitter-rank2.json" || fail=1
"$bin" trace --format json tests/data/job-jitter/rank-0.json >"$tmp/jitter-rank0.json" || fail=1
python3 - "$tmp/jitter-rank2.json" "$tmp/jitter-rank0.json" <<'PY' || fail=1
import json, sys
steps = json.load(open(sys.argv[1]))["devices"][0]["overall"]["next_steps"]
top = steps[0]
assert top["cause"] == "launch" and top["title"] == "host stalls" and top["finding"] == "host_stalls", top
assert abs(top["gain_us"] - 3040) < 0.5, top
assert top["fix"].startswith("host stalls: calls that take microseconds") and "CUDA graphs" not in top["fix"], top
other = json.load(open(sys.argv[2]))["devices"][0]["overall"]["next_steps"]
launch = [n for n in other if n["cause"] == "launch"]
assert launch and launch[0]["title"] == "launch overhead" and "finding" not in launch[0], launch
print("ok: one rank's stalls: its launch overhead is host stalls, up to 3.040 ms a step")
PY
# Start-up nested in a trivial op is no stall (issue 25): rank 0 of job-jitter, every event 5 ms later, with an
# aten::empty_strided of 3 ms at 1 ms holding a 2.980 ms cudaDeviceGetStreamPriorityRange (a set-up call) - the
# shape of HTA's AlexNet capture, CUDA's lazy initialisation inside the first allocation (29.9 s there). Its
# own 20 us are under the 1 ms floor: no stall in the summary (the op alone would be one, 3 ms).
python3 - tests/data/job-jitter/rank-0.json "$tmp/setup-in-op.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["traceEvents"]:
    if "ts" in e:
        e["ts"] += 5000
doc["traceEvents"][:0] = [
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty_strided", "pid": 100, "tid": 100, "ts": 1000, "dur": 3000},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceGetStreamPriorityRange", "pid": 100, "tid": 100,
     "ts": 1010, "dur": 2980, "args": {"correlation": 1}}]
json.dump(doc, open(sys.argv[2], "w"))
PY
"$summarize" "$tmp/setup-in-op.json" >"$tmp/setup-in-op.ndjson" || fail=1
grep -q '"host_stalls"' "$tmp/setup-in-op.ndjson" &&
	{ echo "FAIL: CUDA's set-up inside aten::empty_strided counted as a host stall"; fail=1; }
sed 's/cudaDeviceGetStreamPriorityRange/cudaGetLastError/' "$tmp/setup-in-op.json" >"$tmp/stall-in-op.json"
"$summarize" "$tmp/stall-in-op.json" | grep -q '"host_stalls":1,"host_stall_ns":3000000' ||
	{ echo "FAIL: a 3 ms aten::empty_strided around a trivial call is no longer a stall"; fail=1; }
# The job's rank lines are the ranks' own (issue 25): rank 2's device in the job, from its trace and from its
# summary (alloc_ns and the steps travel in it), routes its recurring set-up to the allocator as rank 2's own
# report does, and its peers, which never call cudaMalloc, keep no allocator line.
for f in "$tmp/job-jitter-alloc.json" "$tmp/job-jitter-alloc.job.json"; do
	python3 - "$f" <<'PY' || fail=1
import json, sys
ranks = {r["rank"]: r for r in json.load(open(sys.argv[1]))["ranks"]}
steps = ranks[2]["devices"][0]["overall"]["next_steps"]
assert not [n for n in steps if n["title"] == "start-up" or n["fix"].startswith("this is start-up")], steps
init = [n for n in steps if n.get("finding") == "allocator_steps"]
assert len(init) == 1 and init[0]["title"] == "allocator calls in the steps", steps
assert abs(init[0]["gain_us"] - 2990) < 0.5, init
assert init[0]["fix"].startswith("the caching allocator calls cudaMalloc/cudaFree inside the steady steps")
for k in (0, 1):
    assert not [n for n in ranks[k]["devices"][0]["overall"]["next_steps"] if "caching allocator" in n["fix"]]
print("ok: %s: rank 2's own next step in the job is the allocator's, up to 2.990 ms a step" % sys.argv[1])
PY
done
# rank 0 of the allocator job has neither: its summary keeps the bytes of one written before them
grep -q '"host_stall\|"alloc_' <(head -n 1 "$tmp/job-jitter-alloc.ndjson") &&
	{ echo "FAIL: rank 0's summary names stalls or allocator calls it does not have"; fail=1; }
# A full launch queue is no host jitter (docs/trace.md, "Host stalls"; arithmetic in
# tests/data/trace_launch_queue_full.expect.json): its 15 launches of 1.185-1.190 ms block under running GEMMs,
# five a step, none of their time with the GPU idle, so the launch overhead that is left (20 tiny ops a step)
# keeps the dispatch route. The count travels in the summary all the same.
"$summarize" tests/data/trace_launch_queue_full.json | grep -q '"host_stalls":15,"host_stall_ns":17835000' ||
	{ echo "FAIL: the full launch queue's stalls are not 15 of 17.835 ms"; fail=1; }
"$bin" trace --format json tests/data/trace_launch_queue_full.json >"$tmp/queue.json" || fail=1
python3 - "$tmp/queue.json" <<'PY' || fail=1
import json, sys
top = json.load(open(sys.argv[1]))["devices"][0]["overall"]["next_steps"][0]
assert top["title"] == "launch overhead" and "finding" not in top and abs(top["gain_us"] - 282) < 0.5, top
print("ok: a full launch queue: 5 stalls a step, launch overhead keeps its route, up to 0.282 ms a step")
PY
# A stall costs the step only while the GPU is idle (docs/trace.md, "Host stalls"): the summary's evidence
# carries that part. Rank 2 of job-jitter stalls 4.250-7.250 ms into each step, inside the GPU's gap between
# its GEMM (0.200-4.200) and its fill (7.260): all 9 ms idle (the generator's times). The queue that blocks
# four launches a step (tests/data/trace_launch_queue_four.expect.json) stalls 12 times, for 14.265 ms, 17x its launch overhead, every stall inside a running GEMM: 0 idle, so its launch
# overhead keeps the dispatch route in the trace report and in a job of its summary. A summary written before
# the idle part was (the key removed) reads as it did: the stalls count whole, the host-stall route.
"$summarize" tests/data/job-jitter/rank-2.json | grep -q '"host_stall_idle":9000000' ||
	{ echo "FAIL: rank 2 of job-jitter: its 9 ms of stalls are not all with the GPU idle"; fail=1; }
python3 - tests/data/trace_launch_queue_four.json "$tmp/four.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
doc["distributedInfo"] = {"backend": "nccl", "rank": 0, "world_size": 1}
json.dump(doc, open(sys.argv[2], "w"))
PY
"$summarize" "$tmp/four.json" >"$tmp/four.ndjson" || fail=1
grep -q '"host_stalls":12,"host_stall_ns":14265000' "$tmp/four.ndjson" &&
	grep -q '"evidence":{"frames":false,"host_stall_idle":0}' "$tmp/four.ndjson" ||
	{ echo "FAIL: the four-a-step queue's summary: not 12 stalls of 14.265 ms, none idle"; fail=1; }
sed 's/,"host_stall_idle":0//' "$tmp/four.ndjson" >"$tmp/four-before.ndjson"
"$bin" trace --format json tests/data/trace_launch_queue_four.json >"$tmp/four.report.json" || fail=1
"$bin" job --format json "$tmp/four.ndjson" >"$tmp/four.job.json" || fail=1
"$bin" job --format json "$tmp/four-before.ndjson" >"$tmp/four-before.job.json" || fail=1
python3 - "$tmp/four.report.json" "$tmp/four.job.json" "$tmp/four-before.job.json" <<'PY' || fail=1
import json, sys
def launch_step(steps):
    return [n for n in steps if n.get("cause") == "launch"][0]
top = json.load(open(sys.argv[1]))["devices"][0]["overall"]["next_steps"][0]
assert top["title"] == "launch overhead" and "finding" not in top and abs(top["gain_us"] - 282) < 0.5, top
job = launch_step(json.load(open(sys.argv[2]))["ranks"][0]["devices"][0]["overall"]["next_steps"])
assert job["title"] == "launch overhead" and "finding" not in job, job
before = launch_step(json.load(open(sys.argv[3]))["ranks"][0]["devices"][0]["overall"]["next_steps"])
assert before["title"] == "host stalls" and before["finding"] == "host_stalls", before
print("ok: a queue that blocks 4 launches a step under busy kernels: launch overhead keeps its route")
PY
# the idle part is a part of the stalls: more is an error located like any other
sed 's/"host_stall_idle":0/"host_stall_idle":14265001/' "$tmp/four.ndjson" >"$tmp/four-bad.ndjson"
"$bin" job "$tmp/four-bad.ndjson" >/dev/null 2>"$tmp/four-bad.err" && fail=1
grep -q 'four-bad.ndjson:1: summary: "evidence"."host_stall_idle": more than the host stalls' "$tmp/four-bad.err" ||
	{ echo "FAIL: an idle part above the stalls is not refused: $(cat "$tmp/four-bad.err")"; fail=1; }
# A rank slow every step, with stalls in one step only, is no host jitter (straggler_stalls_are_judged_per_step):
# job-jitter-oneoff (make-jitter-job.py oneoff). Each step is 10 ms; the others' all-reduce runs 4.400-8.320 ms
# (3.920 ms exposed), rank 2's 7.320-8.320 ms (1.000 ms): non-comm 6.080 ms against 9.000 ms, an excess of
# 2.920 ms in every step. Rank 2's stalls: step 2 only, a cudaEventRecord of 150-3650 us (3.500 ms) and a launch
# of 4250-7250 us (3.000 ms), 6.500 ms; steps 1 and 3 none (4.260-7.240 ms records nothing: idle host time).
# Over the run, 6.500 / 3 = 2.167 ms a step, above half the excess (1.460 ms): the whole-run rule said host
# jitter. Step by step: step 2's 6.500 ms >= 1.460 and the others' 0 <= a quarter of it; steps 1 and 3 have 0:
# 1 step of 3, no majority, so kind "host" and the idle bucket's own route (its time is unrecorded host time).
# A summary without the steps' stalls (written before them) is judged on the whole run, as it was.
python3 tests/job/make-jitter-job.py "$tmp/job-jitter-oneoff" oneoff || fail=1
for r in 0 1 2; do
	cmp -s "$tmp/job-jitter-oneoff/rank-$r.json" "tests/data/job-jitter-oneoff/rank-$r.json" ||
		{ echo "FAIL: tests/data/job-jitter-oneoff/rank-$r.json is not the generator's"; fail=1; }
done
"$bin" trace --format json tests/data/job-jitter-oneoff >"$tmp/oneoff.json" || fail=1
for r in 0 1 2; do "$summarize" "tests/data/job-jitter-oneoff/rank-$r.json"; done >"$tmp/oneoff.ndjson" || fail=1
grep -q '"stall":0}.*"stall":6500000}.*"stall":0}' <(sed -n 3p "$tmp/oneoff.ndjson") ||
	{ echo "FAIL: rank 2's summary does not carry 0, 6.5 ms and 0 of stalls in its steps"; fail=1; }
"$bin" job --format json "$tmp/oneoff.ndjson" >"$tmp/oneoff.job.json" || fail=1
sed 's/,"stall":[0-9]*//g' "$tmp/oneoff.ndjson" >"$tmp/oneoff-before.ndjson"
"$bin" job --format json "$tmp/oneoff-before.ndjson" >"$tmp/oneoff-before.job.json" || fail=1
python3 - "$tmp/oneoff.json" "$tmp/oneoff.job.json" "$tmp/oneoff-before.job.json" <<'PY' || fail=1
import json, sys
for path in sys.argv[1:3]:
    s = json.load(open(path))["job"]["stragglers"]
    assert [x["rank"] for x in s] == [2], s
    s = s[0]
    assert s["kind"] == "host" and s["bucket"] == "idle", s
    assert abs(s["excess_us"] - 2920) < 1 and abs(s["stall_us"] - 2166.667) < 0.01, s
    assert s["stall_steps"] == 1 and s["stall_compared_steps"] == 3, s
    assert "host jitter" not in s["fix"] and s["fix"].startswith("the GPU waits on Python"), s["fix"]
before = json.load(open(sys.argv[3]))["job"]["stragglers"][0]
assert before["kind"] == "host_jitter" and "stall_steps" not in before, before
print("ok: stalls in 1 step of 3 are not host jitter: kind host, idle route; without the steps' stalls, jitter")
PY
"$bin" trace tests/data/job-jitter-oneoff | grep -q '^straggler: rank 2 .*; stalls hold most of its excess in 1 of 3 steps;' ||
	{ echo "FAIL: the straggler line does not say the stalls hold 1 of 3 steps"; fail=1; }
# the jitter fixture's stalls hold every step: 3 of 3
"$bin" trace tests/data/job-jitter | grep -q 'stalled for milliseconds, most of its excess in 3 of 3 steps;' ||
	{ echo "FAIL: job-jitter's stalls do not hold 3 of 3 steps"; fail=1; }
# a step's stall time above its duration is an error located like any other
sed '3s/"stall":6500000/"stall":99000000/' "$tmp/oneoff.ndjson" >"$tmp/oneoff-bad.ndjson"
"$bin" job "$tmp/oneoff-bad.ndjson" >/dev/null 2>"$tmp/oneoff-bad.err" && fail=1
grep -q 'oneoff-bad.ndjson:3: summary: "stall": more than the step' "$tmp/oneoff-bad.err" ||
	{ echo "FAIL: a step's stall above its dur is not refused: $(cat "$tmp/oneoff-bad.err")"; fail=1; }
# Stalls a step are not counted against host jitter (docs/trace.md, "Host stalls"): what tells a full launch
# queue from a host that lost its CPU is whether the GPU idles during the stalls. Three steps of 13 ms; in each
# (us from the step's start) a GEMM launched at 50-60 runs 100-2100, six cudaEventRecord calls of 1500 us run
# back to back from 2200 (2200-11200) with nothing on the GPU, then 20 launches of 10 us at 11300 + 20i, each
# a 5 us fill at 11315 + 20i. The median launch is 10 us (21 of them), so the floor is 1 ms (above 50 x 10 us):
# the 18 event records are stalls, 6 a step, 27 ms, every one with the GPU idle (27 ms of idle part). A step's
# launch overhead is the host inside these calls with the GPU idle: the records' 9000 us, the GEMM's launch
# (50-60) 10 us and the fills' launches 20 x 10 us (each call ends before its kernel), 9210 us; 27 ms of
# idle stalls >= half of 3 x 9210. The rule of at most four a step routed it to CUDA graphs (launch overhead,
# up to 9.210 ms); it is host stalls, up to 9.210 ms a step.
python3 - "$tmp/six.json" <<'PY' || fail=1
import json, sys
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"
ev, corr = [], [0]
def rt(name, ts, dur):
    corr[0] += 1
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
               "args": {"correlation": corr[0], "cbid": 211 if name == "cudaLaunchKernel" else 135}})
    return corr[0]
def launch(ts, name, kts, kdur):
    c = rt("cudaLaunchKernel", ts, 10)
    ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": kts, "dur": kdur,
               "args": {"device": 0, "stream": 7, "correlation": c}})
for k in range(3):
    t = k * 13000
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (k + 1), "pid": 1, "tid": 1,
               "ts": t, "dur": 13000})
    launch(t + 50, GEMM, t + 100, 2000)
    for i in range(6):
        rt("cudaEventRecord", t + 2200 + 1500 * i, 1500)
    for i in range(20):
        launch(t + 11300 + 20 * i, FILL, t + 11315 + 20 * i, 5)
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
           "traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$bin" trace --format json "$tmp/six.json" >"$tmp/six.report.json" || fail=1
"$summarize" "$tmp/six.json" | grep -q '"host_stalls":18,"host_stall_ns":27000000' ||
	{ echo "FAIL: six stalls a step: not 18 of 27 ms"; fail=1; }
python3 - "$tmp/six.report.json" <<'PY' || fail=1
import json, sys
steps = json.load(open(sys.argv[1]))["devices"][0]["overall"]["next_steps"]
top = [n for n in steps if n.get("cause") == "launch"][0]
assert top["title"] == "host stalls" and top["finding"] == "host_stalls", top
assert abs(top["gain_us"] - 9210) < 0.5 and "CUDA graphs" not in top["fix"], top
print("ok: six stalls a step with the GPU idle are host stalls, up to %.3f ms a step" % (top["gain_us"] / 1000))
PY
# A summary written before the idle part keeps the cap of four stalls a step with its stalls counted whole:
# the full queue's 15 stalls over 3 steps are more, so its launch overhead keeps the dispatch route there too.
"$summarize" tests/data/trace_launch_queue_full.json | sed 's/,"host_stall_idle":0//; s/"rank":null/"rank":0/' \
	>"$tmp/full-before.ndjson" || fail=1
"$bin" job --format json "$tmp/full-before.ndjson" >"$tmp/full-before.job.json" || fail=1
python3 - "$tmp/full-before.job.json" <<'PY' || fail=1
import json, sys
steps = json.load(open(sys.argv[1]))["ranks"][0]["devices"][0]["overall"]["next_steps"]
top = [n for n in steps if n.get("cause") == "launch"][0]
assert top["title"] == "launch overhead" and "finding" not in top and abs(top["gain_us"] - 282) < 0.5, top
print("ok: a summary without the idle part: 15 stalls over 3 steps are past the old cap, launch overhead")
PY
exit $fail

#!/usr/bin/env python3
"""Writes tests/data/job-jitter: a 3-rank job whose rank 2 is a straggler by host jitter (issue 25, item 10b).

Every rank runs the same kernels in 3 steps of 10 ms: a fill (40 us), a GEMM (4 ms), a second fill, then an
all-reduce. Every launch call takes 10 us, except that rank 2's launch of its second fill stalls for 3 ms each
step with its GPU idle (the host descheduled: another process on its cores, a GC pause). Its all-reduce starts
2.92 ms after the others', which wait for it. The kernel names, the record_param_comms op, the NCCL kernel's
args ("Collective name", "Process Group Name", ...) and distributedInfo are spelled as PyTorch 2.x's Kineto
writes them (make-trace's multi-rank traces, and the shared HTA traces, carry the same keys).

Variants (the second argument; the default writes tests/data/job-jitter):
- trivial (tests/data/job-jitter-trivial): every rank runs an aten::empty (8 us) and a cudaEventRecord (5 us)
  before the second fill's launch; rank 2's launches take 10 us, but one trivial call a step stalls for 3 ms:
  step 1 its aten::empty, step 2 its cudaEventRecord, step 3 an aten::empty_strided that holds a 40 us cudaMalloc
  (the allocator's share, 40 us, is not the stall: 2.96 ms is).
- alloc (tests/data/job-jitter-alloc): rank 2's aten::empty takes 3 ms every step, 2.99 ms of it a nested
  cudaMalloc: the caching allocator missing its cache, not jitter.
- oneoff (tests/data/job-jitter-oneoff): rank 2 is as slow in every step, but its 3 ms are a stall in step 2
  only (the launch of 4250-7250, and a cudaEventRecord of 3.5 ms at 150-3650 under the GEMM: 6.5 ms of stalls
  in the step); in steps 1 and 3 its host records nothing from 4260 to 7240 (unrecorded host time, GPU idle)
  before the launch at 7240. 6.5 ms of stalls over 3 steps is 2.167 ms a step, above half the 2.92 ms excess:
  averaged over the run the stalls looked like host jitter; step by step they hold 1 step of 3.
The nesting is as real traces have it: HTA's AlexNet capture (../shared/traces/hta) records cudaMalloc
(cuda_runtime, cbid 20, with a correlation and External id) inside aten::empty_strided and aten::empty, its
1.2-8.8 ms all of the op's time; the TensorBoard plugin's ResNet-50 captures record cudaEventRecord (cbid 135)
calls of 4 us and aten::empty ops of tens of us.

usage: make-jitter-job.py OUT_DIR [trivial|alloc|oneoff]
"""
import json
import os
import sys

FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
STEP_US, STALL_US, LAUNCH_US = 10000, 3000, 10


def rank_trace(rank, variant):
    pid = 100 + rank
    ev, corr, ext = [], [1000 * rank], [1]

    def launch(ts, dur, name, kts, kdur, stream=7, args=None, op_ext=None):
        corr[0] += 1
        a = {"correlation": corr[0]}
        if op_ext is not None:
            a["External id"] = op_ext
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": pid,
                   "ts": ts, "dur": dur, "args": a})
        ka = {"device": 0, "stream": stream, "correlation": corr[0]}
        if op_ext is not None:
            ka["External id"] = op_ext
        ka.update(args or {})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": kts, "dur": kdur,
                   "args": ka})

    def host(cat, name, ts, dur, args=None):
        a = dict(args or {})
        if cat == "cuda_runtime":
            corr[0] += 1
            a.update({"cbid": 20 if name == "cudaMalloc" else 135, "correlation": corr[0]})
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": pid, "ts": ts, "dur": dur,
                   "args": a})

    def trivial_calls(t, k, stalls):
        """aten::empty at 4220 (8 us), cudaEventRecord at 4235 (5 us); on rank 2 one of them 3 ms longer."""
        shift = STALL_US if stalls else 0
        if stalls and variant == "alloc":
            host("cpu_op", "aten::empty", t + 4220, STALL_US)
            host("cuda_runtime", "cudaMalloc", t + 4225, STALL_US - 10)
        elif stalls and k == 0:
            host("cpu_op", "aten::empty", t + 4220, STALL_US)
        elif stalls and k == 2:
            host("cpu_op", "aten::empty_strided", t + 4220, STALL_US)
            host("cuda_runtime", "cudaMalloc", t + 4225, 40)
        else:
            host("cpu_op", "aten::empty", t + 4220, 8)
            shift = STALL_US if stalls and k == 1 else 0
            host("cuda_runtime", "cudaEventRecord", t + 4235, shift or 5)
            return
        host("cuda_runtime", "cudaEventRecord", t + 4235 + shift, 5)

    for k in range(3):
        t = k * STEP_US
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (k + 1), "pid": pid,
                   "tid": pid, "ts": t, "dur": STEP_US})
        launch(t + 50, LAUNCH_US, FILL, t + 60, 40)
        launch(t + 100, LAUNCH_US, GEMM, t + 200, 4000)
        if variant == "oneoff" and rank == 2 and k != 1:
            launch(t + 7240, LAUNCH_US, FILL, t + 7260, 40)  # nothing recorded from 4260 to 7240
        elif variant in (None, "oneoff"):
            if variant == "oneoff" and rank == 2:
                host("cuda_runtime", "cudaEventRecord", t + 150, 3500)  # under the GEMM (200-4200)
            stall = STALL_US if rank == 2 else LAUNCH_US
            launch(t + 4250, stall, FILL, t + 4250 + stall + 10, 40)  # rank 2: 4250-7250, fill 7260-7300
        else:
            stall = STALL_US if rank == 2 else 0
            trivial_calls(t, k, rank == 2)
            launch(t + 4250 + stall, LAUNCH_US, FILL, t + 4250 + stall + 20, 40)
        ready = t + 4250 + STALL_US + 50 if rank == 2 else t + 4310   # 7300 (rank 2), 4310 (the others)
        ext[0] += 1
        ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": pid, "tid": pid,
                   "ts": ready, "dur": 20, "args": {"External id": ext[0]}})
        start = t + 7320 if rank == 2 else t + 4400                  # the others start, then wait for rank 2
        launch(ready + 5, LAUNCH_US, NCCL, start, t + 8320 - start, stream=13, op_ext=ext[0],
               args={"Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576,
                     "Group size": 3, "dtype": "BFloat16", "Process Group Name": "0",
                     "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2]"})
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640,
                                  "computeMajor": 9, "computeMinor": 0}],
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 3},
            "traceName": "hand-written fixture (tests/job/make-jitter-job.py): rank 2 stalls 3 ms in a "
                         + {None: "kernel launch", "trivial": "trivial host call",
                            "alloc": "cudaMalloc inside aten::empty",
                            "oneoff": "kernel launch and an event record in step 2 only"}[variant]
                         + {"oneoff": " (slow by 3 ms every step)"}.get(variant, " each step"),
            "traceEvents": ev}


def main():
    out = sys.argv[1]
    variant = sys.argv[2] if len(sys.argv) > 2 else None
    if variant not in (None, "trivial", "alloc", "oneoff"):
        sys.exit("usage: make-jitter-job.py OUT_DIR [trivial|alloc|oneoff]")
    os.makedirs(out, exist_ok=True)
    for r in range(3):
        with open(os.path.join(out, "rank-%d.json" % r), "w") as f:
            json.dump(rank_trace(r, variant), f, indent=0)
            f.write("\n")


if __name__ == "__main__":
    main()

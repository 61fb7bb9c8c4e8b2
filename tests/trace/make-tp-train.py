#!/usr/bin/env python3
"""Writes the tensor-parallel training fixtures of issue 25 item 10e: tests/data/trace_tp_train_desc.json,
trace_tp_train_forward.json and trace_dp_train_backward.json (their .expect.json files are written by hand).

One rank of a 4-rank training job (H100), 2 steps of 1000 us, every step the same. The host launches ahead of
the GPU (cudaLaunchKernel calls of 5 us at 0, 10, ..., 70 us into the step); the GPU runs:
  GEMM 5-85, all-reduce 85-305 (alone), GEMM 305-405, all-reduce 405-605 (alone), GEMM 605-705,
  GEMM 705-805 with a second all-reduce 625-785 on another stream (hidden under the GEMMs), an elementwise
  kernel 805-905, then nothing until the step ends.
The two exposed all-reduces are the tensor-parallel layers' activations; the hidden one is the data-parallel
gradients. What tells them apart differs:
- desc: the NCCL kernels carry PyTorch >= 2.4's collective args, "Process Group Description" "mesh_tp" for the
  exposed two and "mesh_dp" for the hidden one (DeviceMesh names a dimension's groups "mesh_<dim name>";
  the shared HTA A100 capture has the same keys with "default_pg"); no pass markers.
- forward: no collective args at all (older PyTorch: the kernel name only, NCCL's ncclKernel_AllReduce_...),
  but "## forward ##" (0-40 us: the launches of the first four kernels) and "## backward ##" (40-80 us)
  markers, as HTA's example traces and Lightning-style loops write them: the exposed all-reduces are launched
  in the forward pass.
- backward (the control): the same without args, the forward marker covering only the first launch
  (0-8 us) and the backward marker the rest (8-80 us): the exposed all-reduces are launched in backward, as
  gradient all-reduces are, and keep the gradient advice.

usage: make-tp-train.py OUT_DIR
"""
import json
import os
import sys

GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)"
NCCL_NEW = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
NCCL_OLD = "ncclKernel_AllReduce_RING_LL_Sum_bfloat16(ncclDevComm*, unsigned long, ncclWork*)"
STEP = 1000


def trace(variant):
    ev, corr = [], [0]
    # (launch at, kernel start, kernel end, name, stream, group): group "tp"/"dp" for the all-reduces
    work = [(0, 5, 85, GEMM, 7, None), (10, 85, 305, None, 13, "tp"), (20, 305, 405, GEMM, 7, None),
            (30, 405, 605, None, 13, "tp"), (40, 605, 705, GEMM, 7, None), (50, 625, 785, None, 17, "dp"),
            (60, 705, 805, GEMM, 7, None), (70, 805, 905, ADD, 7, None)]
    for k in range(2):
        t = k * STEP
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (k + 1), "pid": 1, "tid": 1,
                   "ts": t, "dur": STEP})
        if variant != "desc":
            fwd_end = 40 if variant == "forward" else 8
            ev.append({"ph": "X", "cat": "user_annotation", "name": "## forward ##", "pid": 1, "tid": 1,
                       "ts": t, "dur": fwd_end})
            ev.append({"ph": "X", "cat": "user_annotation", "name": "## backward ##", "pid": 1, "tid": 1,
                       "ts": t + fwd_end, "dur": 80 - fwd_end})
        for at, start, end, name, stream, group in work:
            corr[0] += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + at, "dur": 5, "args": {"cbid": 211, "correlation": corr[0]}})
            args = {"device": 0, "stream": stream, "correlation": corr[0]}
            if group is not None and variant == "desc":
                args.update({"Collective name": "allreduce", "In msg nelems": 4194304, "Out msg nelems": 4194304,
                             "Group size": 2, "dtype": "BFloat16",
                             "Process Group Name": "1" if group == "tp" else "2",
                             "Process Group Description": "mesh_" + group,
                             "Process Group Ranks": "[0, 1]" if group == "tp" else "[0, 2]"})
            if name is None:
                name = NCCL_NEW if variant == "desc" else NCCL_OLD
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": t + start,
                       "dur": end - start, "args": args})
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640,
                                  "computeMajor": 9, "computeMinor": 0}],
            "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 4},
            "traceName": "hand-written fixture (tests/trace/make-tp-train.py): tensor-parallel training, " + variant,
            "traceEvents": ev}


def main():
    out = sys.argv[1]
    for variant, name in (("desc", "trace_tp_train_desc"), ("forward", "trace_tp_train_forward"),
                          ("backward", "trace_dp_train_backward")):
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(trace(variant), f, indent=0)
            f.write("\n")


if __name__ == "__main__":
    main()

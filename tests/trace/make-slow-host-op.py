#!/usr/bin/env python3
"""Writes the slow-host-op fixtures (docs/trace.md, "A slow host op"), three 10 ms ProfilerSteps each:

tests/data/trace_slow_host_op.json: each step runs aten::add (30 us, one launch), then
  aten::scaled_dot_product_attention > aten::_scaled_dot_product_cudnn_attention > aten::_cudnn_attention_forward
  (8000, 7980, 7960 us, nested 10 us apart) whose one launch comes 7930 us in, a 16 us kernel, then aten::mul
  (30 us, one launch) and aten::mm (30 us, its 400 us GEMM 20 us in). The cuDNN op's host time is its own
  work: the launch cause names it.
tests/data/trace_host_op_dispatch.json: each step runs aten::lstm for 8000 us launching 200 kernels, one every
  40 us, each 10 us long (then an aten::mm with a 400 us GEMM): as long a call, but 40 us of host time a launch,
  which is dispatch: launch overhead.

tests/data/diff/slow_host_op_fixed.json: the first after the fix, for `nextstep diff` (the CLI case
  diff_slow_host_op_checked).

Run from the repository root: python3 tests/trace/make-slow-host-op.py"""
import json

STEP = 10000
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_execute_kernel__5x_cublas"
PID = TID = 1


def x(cat, name, ts, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": TID, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def launch(ev, corr, ts, kernel, kts, kdur):
    ev.append(x("cuda_runtime", "cudaLaunchKernel", ts, 5, correlation=corr))
    k = x("kernel", kernel, kts, kdur, device=0, stream=7, correlation=corr)
    k["pid"], k["tid"] = 0, 7
    ev.append(k)


def small_op(ev, name, corr, at):
    """A 30 us op whose launch starts 10 us in; its 10 us kernel starts 20 us in."""
    ev.append(x("cpu_op", name, at, 30))
    launch(ev, corr, at + 10, "void at::native::vectorized_elementwise_kernel<4>", at + 20, 10)


def attention_trace(step, attention, launch_at, mul_at, mm_at):
    """Three steps of `step` us: aten::add, the cuDNN attention ops (`attention`: the three nested durations,
    10 us apart) whose one launch comes `launch_at` us into the step, then aten::mul and aten::mm at the
    offsets given."""
    ev = []
    for k in range(3):
        b = k * step
        ev.append(x("user_annotation", "ProfilerStep#%d" % (k + 1), b, step))
        small_op(ev, "aten::add", 100 * (k + 1) * 10 + 1, b + 100)
        for n, (name, dur) in enumerate(zip(("aten::scaled_dot_product_attention",
                                             "aten::_scaled_dot_product_cudnn_attention",
                                             "aten::_cudnn_attention_forward"), attention)):
            ev.append(x("cpu_op", name, b + 200 + 10 * n, dur))
        launch(ev, 100 * (k + 1) * 10 + 2, b + launch_at, "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_kernel",
               b + launch_at + 20, 16)
        small_op(ev, "aten::mul", 100 * (k + 1) * 10 + 3, b + mul_at)
        ev.append(x("cpu_op", "aten::mm", b + mm_at, 30))
        launch(ev, 100 * (k + 1) * 10 + 4, b + mm_at + 10, GEMM, b + mm_at + 20, 400)
    return ev


def slow_trace():
    return attention_trace(STEP, (8000, 7980, 7960), 8150, 8300, 8400)


def dispatch_trace():
    ev = []
    for k in range(3):
        b = k * STEP
        ev.append(x("user_annotation", "ProfilerStep#%d" % (k + 1), b, STEP))
        ev.append(x("cpu_op", "aten::lstm", b + 200, 8000))
        for i in range(200):
            at = b + 200 + 40 * i
            launch(ev, 10000 * (k + 1) + i, at + 10, "void at::native::vectorized_elementwise_kernel<4>",
                   at + 20, 10)
        ev.append(x("cpu_op", "aten::mm", b + 8300, 30))
        launch(ev, 10000 * (k + 1) + 999, b + 8310, GEMM, b + 8320, 400)
    return ev


def fixed_trace():
    """The slow trace after the fix (another SDPA backend): the attention ops take 100, 80, 60 us, the steps
    2100 us, the ops packed after them at the same offsets from each op's start."""
    return attention_trace(2100, (100, 80, 60), 250, 400, 500)


def write(path, events):
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
           "traceEvents": events}
    with open(path, "w") as f:
        json.dump(doc, f, indent=0)
        f.write("\n")


write("tests/data/trace_slow_host_op.json", slow_trace())
write("tests/data/trace_host_op_dispatch.json", dispatch_trace())
write("tests/data/diff/slow_host_op_fixed.json", fixed_trace())

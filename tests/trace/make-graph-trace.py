#!/usr/bin/env python3
"""make-graph-trace.py OUT TRUTH [--seed N]: a Kineto-style trace of CUDA-graph replays with its own truth.

Each of 8 steps launches two graphs with cudaGraphLaunch: graph A (40 kernels) and graph B (25 kernels), plus a
few eager kernels with cudaLaunchKernel. Kernels run back to back on stream 7 and carry the launch's
correlation id, as CUPTI records graph kernels. Some replays are missing (no kernel recorded) and some are
recorded in part (kernels dropped from the end of the replay); the last step's replays are always whole, so no
missing replay lies past the last recorded GPU work. The truth file says what the trace holds: replays with
kernels, their kernels and kernel time, the GPU time of every record, the missing replays and the partial ones.
"""
import json
import random
import sys

STEPS, STEP_US = 8, 2000.0
GRAPHS = (("graph_a", 40, 4.0), ("graph_b", 25, 6.0))  # name, kernels per replay, kernel us


def main():
    out, truth_path = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    rng = random.Random(seed)
    ev, corr = [], 1000
    t0 = 1_000_000.0
    truth = {"replays": 0, "graph_kernels": 0, "graph_us": 0.0, "gpu_us": 0.0, "missing": 0, "partial": 0,
             "launch_calls": 0}
    for s in range(STEPS):
        start = t0 + s * STEP_US
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1,
                   "ts": start, "dur": STEP_US})
        host, gpu = start + 10.0, start + 20.0
        for name, n, us in GRAPHS:
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1,
                       "ts": host, "dur": 8.0, "args": {"correlation": corr}})
            truth["launch_calls"] += 1
            host += 20.0
            fate = "whole" if s == STEPS - 1 else rng.choice(["whole"] * 6 + ["missing", "partial"])
            kept = 0 if fate == "missing" else n - rng.randint(1, n // 2) if fate == "partial" else n
            for k in range(kept):
                ev.append({"ph": "X", "cat": "kernel", "name": "%s_kernel_%d" % (name, k), "pid": 0, "tid": 7,
                           "ts": gpu, "dur": us, "args": {"device": 0, "stream": 7, "correlation": corr}})
                gpu += us
            gpu += n * us if kept < n else 0.0  # the device was busy with what was not recorded
            truth["missing"] += fate == "missing"
            truth["partial"] += fate == "partial"
            if kept:
                truth["replays"] += 1
                truth["graph_kernels"] += kept
                truth["graph_us"] += kept * us
        for e in range(5):  # eager kernels after the graphs
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": host, "dur": 4.0, "args": {"correlation": corr}})
            host += 6.0
            ev.append({"ph": "X", "cat": "kernel", "name": "eager_kernel", "pid": 0, "tid": 7, "ts": gpu,
                       "dur": 10.0, "args": {"device": 0, "stream": 7, "correlation": corr}})
            gpu += 10.0
            truth["gpu_us"] += 10.0
    truth["gpu_us"] += truth["graph_us"]
    rng.shuffle(ev)  # Kineto does not write events in time order
    with open(out, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
    with open(truth_path, "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()

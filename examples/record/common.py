"""Shared setup for the trace-recording scripts in this folder.

Every workload script records its trace through record() below, so all traces are taken the same way: the
standard torch.profiler schedule (wait=1, warmup=1, active=N, one cycle), CPU and CUDA activities, input shapes
and FLOP estimates on, one ProfilerStep per training step, written as a gzipped Chrome trace named after the
workload, the GPU and the PyTorch version.

torch is imported only inside the functions that need it, so `--help` and byte-compiling work on a machine
without PyTorch.
"""

import argparse
import gzip
import json
import os
import re
import shutil
import sys
import tempfile

# The schedule's first two steps are not recorded: the first absorbs one-off start-up work (cuBLAS handles,
# allocator growth, worker start), the second lets the profiler itself warm up, as its docs recommend.
WAIT_STEPS = 1
WARMUP_STEPS = 1

# Keeps the overhead workload's trace (the largest: thousands of kernels per step) well under ~5 MB gzipped.
MAX_ACTIVE_STEPS = 20

EXIT_NO_CUDA = 3


def parser(description, default_active=3):
    """An argument parser with the options every script shares; scripts add their own sizes to it."""
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--out", default="traces", help="folder for the .pt.trace.json.gz file(s)")
    p.add_argument("--active", type=int, default=default_active,
                   help=f"steps recorded (after {WAIT_STEPS} wait and {WARMUP_STEPS} warm-up step)")
    return p


def parse(p, argv=None):
    args = p.parse_args(argv)
    if not 1 <= args.active <= MAX_ACTIVE_STEPS:
        p.error(f"--active must be between 1 and {MAX_ACTIVE_STEPS} (more steps make the trace too large)")
    return args


def import_torch():
    """Imports torch, or exits with a message saying what is needed."""
    try:
        import torch
    except ImportError:
        sys.exit("error: PyTorch is not installed. These scripts need PyTorch 2.x built with CUDA "
                 "(see examples/record/README.md).")
    major = int(str(torch.__version__).split(".", 1)[0])
    if major < 2:
        sys.exit(f"error: PyTorch {torch.__version__} found; these scripts are written for PyTorch 2.x.")
    return torch


def require_cuda():
    """Returns (torch, the CUDA device); exits with a clear message when there is no usable GPU."""
    torch = import_torch()
    if not torch.cuda.is_available():
        built = torch.version.cuda or "none (a CPU-only build)"
        print(f"error: CUDA is not available (PyTorch {torch.__version__}, CUDA build: {built}).\n"
              "These scripts record GPU traces: run them on a machine with an NVIDIA GPU and a CUDA build "
              "of PyTorch 2.x.", file=sys.stderr)
        sys.exit(EXIT_NO_CUDA)
    return torch, torch.device("cuda", torch.cuda.current_device())


def slug(text):
    """'NVIDIA H200' -> 'nvidia-h200', '2.5.1+cu124' -> '2.5.1-cu124': safe in a file name."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def trace_path(out_dir, workload, rank=None):
    torch = import_torch()
    gpu = slug(torch.cuda.get_device_name()) if torch.cuda.is_available() else "cpu"
    name = f"{workload}_{gpu}_torch{slug(str(torch.__version__))}"
    if rank is not None:
        name += f"_rank{rank}"
    return os.path.join(out_dir, name + ".pt.trace.json.gz")


def write_gzip_trace(prof, path):
    """Exports the profiler's Chrome trace to path, gzipped.

    Recent PyTorch gzips by itself when the path ends in .gz, older 2.x releases do not; exporting plain JSON
    and compressing it here gives a real gzip file on every 2.x release.
    """
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, plain = tempfile.mkstemp(suffix=".json", dir=os.path.dirname(path) or ".")
    os.close(fd)
    try:
        prof.export_chrome_trace(plain)
        with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
    finally:
        os.remove(plain)


def profiler_activities(torch):
    return [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]


def record(args, workload, expected, step_fn, rank=None):
    """Runs step_fn(i) for the wait, warm-up and active steps under the profiler and writes one trace.

    Each step ends with a device synchronize so that a step's GPU work lies inside its own ProfilerStep span:
    the split of step time into buckets is then exact per step. Returns the trace's path.
    """
    torch = import_torch()
    path = trace_path(args.out, workload, rank)
    written = []

    def on_trace_ready(prof):
        write_gzip_trace(prof, path)
        written.append(path)

    total_steps = WAIT_STEPS + WARMUP_STEPS + args.active
    with torch.profiler.profile(
            activities=profiler_activities(torch),
            schedule=torch.profiler.schedule(wait=WAIT_STEPS, warmup=WARMUP_STEPS, active=args.active,
                                             repeat=1),
            on_trace_ready=on_trace_ready,
            record_shapes=True,
            with_flops=True) as prof:
        # Labels the trace itself where this PyTorch can (the metadata lands as top-level JSON keys).
        if hasattr(prof, "preset_metadata_json"):
            prof.preset_metadata_json("nextstep_workload", json.dumps(workload))
            prof.preset_metadata_json("nextstep_expected", json.dumps(expected))
        for i in range(total_steps):
            step_fn(i)
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            prof.step()

    if not written:
        sys.exit(f"error: the profiler produced no trace for {workload} (is ProfilerActivity.CUDA supported "
                 "by this PyTorch build?)")
    report(path, workload, expected, rank)
    return path


def report(path, workload, expected, rank=None):
    """Prints where the trace went and what to run next; record-all.sh reads the 'trace:' line."""
    size_kib = os.path.getsize(path) / 1024
    who = f" (rank {rank})" if rank is not None else ""
    # One write, so that the lines of ranks sharing a terminal or pipe do not interleave.
    sys.stdout.write(f"trace: {path}\n"
                     f"  workload {workload}{who}, expected {expected}, {size_kib:.0f} KiB\n"
                     f"  next: nextstep trace {path}\n")
    sys.stdout.flush()

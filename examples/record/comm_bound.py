"""Records a communication-bound trace per rank: each step does a small matmul and then all-reduces a large
buffer (a stand-in for one big gradient bucket), so the step is almost all collective time.

Run it directly (it starts --world processes with torch.multiprocessing) or under torchrun, which sets
RANK/WORLD_SIZE/LOCAL_RANK. The backend is NCCL when there is one GPU per rank. NCCL refuses two ranks on
one GPU, so on a single-GPU machine it falls back to gloo, which all-reduces CUDA tensors by copying them to
the host: the trace then shows host copies and gloo work rather than NCCL kernels.
Expected nextstep verdict: comm-bound (NCCL); check a gloo trace by hand before using it as a test.
"""

import os

import common

WORKLOAD = "comm_bound"
EXPECTED = "comm-bound"


def pick_backend(torch, requested, world):
    if requested != "auto":
        return requested
    return "nccl" if torch.cuda.device_count() >= world else "gloo"


def run_rank(rank, args):
    torch = common.import_torch()
    import torch.distributed as dist

    backend = pick_backend(torch, args.backend, args.world)
    if backend == "nccl":
        local_rank = int(os.environ.get("LOCAL_RANK", rank))
        torch.cuda.set_device(local_rank % torch.cuda.device_count())
    torch, device = common.require_cuda()
    dist.init_process_group(backend, init_method=args.init_method, rank=rank, world_size=args.world)
    try:
        buffer = torch.ones(args.megabytes * (1 << 20) // 4, device=device)
        a = torch.randn(1024, 1024, device=device)

        def step(_):
            a.mul_(0.5).add_(a @ a, alpha=1e-6)
            dist.all_reduce(buffer)

        common.record(args, f"{WORKLOAD}_{backend}", EXPECTED, step, rank=rank)
    finally:
        dist.destroy_process_group()


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--world", type=int, default=2, help="processes to start (ignored under torchrun)")
    p.add_argument("--backend", choices=["auto", "nccl", "gloo"], default="auto")
    p.add_argument("--megabytes", type=int, default=256, help="size of the all-reduced fp32 buffer")
    p.add_argument("--port", type=int, default=29517, help="rendezvous port on 127.0.0.1")
    args = common.parse(p)

    if "LOCAL_RANK" in os.environ:
        args.world = int(os.environ["WORLD_SIZE"])
        args.init_method = "env://"
        run_rank(int(os.environ["RANK"]), args)
        return
    args.init_method = f"tcp://127.0.0.1:{args.port}"
    common.require_cuda()  # a clear message here, before any process is started
    import torch.multiprocessing as mp

    mp.spawn(run_rank, args=(args,), nprocs=args.world, join=True)


if __name__ == "__main__":
    main()

"""Records an overhead-bound trace: a tiny MLP trained eagerly at batch 1, so every step is thousands of
kernels that each run for a few microseconds.

The GPU finishes each kernel faster than Python, the dispatcher and cudaLaunchKernel can issue the next,
so most of the step the GPU sits waiting on the host between tiny kernels. Expected nextstep verdict:
overhead-bound (launch/dispatch overhead).

--fixed applies the fix nextstep names for that verdict: the whole training round (forward, backward and
the optimizer step) is captured once into a CUDA graph and replayed, so each round is one cudaGraphLaunch
instead of hundreds of kernel launches. The kernels are the same; the gaps between them close. Expected:
not overhead-bound.
"""

import common

EXPECTED_SLOW = "overhead-bound"
EXPECTED_FIXED = "not overhead-bound"


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--iters-per-step", type=int, default=10,
                   help="forward/backward/update rounds in one profiler step")
    p.add_argument("--fixed", action="store_true", help="replay each round from one captured CUDA graph")
    args = common.parse(p)
    workload = "overhead_fixed" if args.fixed else "overhead_bound"
    expected = EXPECTED_FIXED if args.fixed else EXPECTED_SLOW

    torch, device = common.require_cuda()
    torch.manual_seed(0)
    layers = []
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(device)
    # foreach=False keeps the optimizer at one small kernel per parameter and op, as in older code.
    # capturable=True keeps Adam's step count on the GPU, which a CUDA graph needs; eager runs are unchanged.
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False, capturable=args.fixed)
    x = torch.randn(1, args.width, device=device)
    target = torch.randn(1, args.width, device=device)

    def train_round():
        loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()

    if args.fixed:
        replay = capture_round(torch, opt, train_round)

        def step(_):
            for _ in range(args.iters_per_step):
                replay()
    else:
        def step(_):
            for _ in range(args.iters_per_step):
                opt.zero_grad(set_to_none=True)
                train_round()

    common.record(args, workload, expected, step)


def capture_round(torch, opt, train_round):
    """Captures one training round into a CUDA graph and returns its replay.

    The rounds run a few times on a side stream first, so that the autograd and optimizer state exists
    before capture (PyTorch's documented whole-network capture). Gradients are set to None before capture,
    so the captured backward writes them afresh on every replay instead of accumulating.
    """
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            train_round()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        train_round()
    return graph.replay


if __name__ == "__main__":
    main()

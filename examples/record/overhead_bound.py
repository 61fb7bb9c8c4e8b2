"""Records an overhead-bound trace: a tiny MLP trained eagerly at batch 1, so every step is thousands of
kernels that each run for a few microseconds.

The GPU finishes each kernel faster than Python, the dispatcher and cudaLaunchKernel can issue the next,
so most of the step the GPU sits waiting on the host between tiny kernels. Expected nextstep verdict:
overhead-bound (launch/dispatch overhead).
"""

import common

WORKLOAD = "overhead_bound"
EXPECTED = "overhead-bound"


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--iters-per-step", type=int, default=10,
                   help="forward/backward/update rounds in one profiler step")
    args = common.parse(p)

    torch, device = common.require_cuda()
    torch.manual_seed(0)
    layers = []
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(device)
    # foreach=False keeps the optimizer at one small kernel per parameter and op, as in older code.
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
    x = torch.randn(1, args.width, device=device)
    target = torch.randn(1, args.width, device=device)

    def step(_):
        for _ in range(args.iters_per_step):
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(model(x), target)
            loss.backward()
            opt.step()

    common.record(args, WORKLOAD, EXPECTED, step)


if __name__ == "__main__":
    main()

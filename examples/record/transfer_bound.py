"""Records a transfer-bound trace: every step copies a large batch from pageable host memory to the GPU and
then does little with it.

A copy from pageable (not pinned) host memory goes through a staging buffer at a fraction of the link's speed
and holds the host until it is done: 1 GiB a step (by default) takes tens of milliseconds, against well under
a millisecond of GPU work on the copied tensor. Expected nextstep verdict: memory-bound, with the memory time
in transfers, not kernels; the fix is on the input side (pinned memory and non_blocking copies that overlap
compute, or keeping the data on the GPU), not fusion.
"""

import common

WORKLOAD = "transfer_bound"
EXPECTED = "memory-bound"


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=16384)
    p.add_argument("--cols", type=int, default=16384)
    args = common.parse(p)

    torch, device = common.require_cuda()
    torch.manual_seed(0)
    batch = torch.randn(args.rows, args.cols)  # pageable host memory, fp32
    weights = torch.randn(args.cols, device=device)

    @torch.no_grad()
    def step(_):
        on_gpu = batch.to(device)
        return (on_gpu * weights).sum(dim=1)

    common.record(args, WORKLOAD, EXPECTED, step)


if __name__ == "__main__":
    main()

"""Records a memory-bound trace: long chains of elementwise ops and layer norms on large fp32 tensors, run
eagerly so that nothing is fused.

Each op reads and writes the whole 1 GiB tensor (by default) and does a handful of FLOPs per element, so
its arithmetic intensity is well under 1 FLOP/byte, far left of an H100/H200 ridge point: the GPU is busy
but waiting on HBM. Kernels are large (about a millisecond each), so launch overhead does not matter.
Expected nextstep verdict: memory-bound.

--fixed compiles the block with torch.compile, the fusion that verdict's route names: the chain of
element-wise ops becomes a few generated kernels that read and write the tensor fewer times. Still
memory-bound (a fused kernel still streams HBM), but a shorter step.
"""

import common

EXPECTED = "memory-bound"


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=16384)
    p.add_argument("--cols", type=int, default=16384, help="the normalised dimension")
    p.add_argument("--blocks", type=int, default=4, help="norm + elementwise blocks per step")
    p.add_argument("--fixed", action="store_true", help="fuse each block with torch.compile")
    args = common.parse(p)
    workload = "memory_fixed" if args.fixed else "memory_bound"

    torch, device = common.require_cuda()
    F = torch.nn.functional
    torch.manual_seed(0)
    x = torch.randn(args.rows, args.cols, device=device)
    scale = torch.rand(args.cols, device=device) + 0.5
    shift = torch.randn(args.cols, device=device)

    # Written op by op on purpose: an eager run launches one kernel per op and each one streams the whole
    # tensor through HBM; torch.compile would fuse this chain into a few kernels.
    def block(h):
        h = F.layer_norm(h, (args.cols,))
        h = h * scale
        h = h + shift
        h = F.gelu(h)
        h = h * torch.sigmoid(h)
        h = h + x
        return F.layer_norm(h, (args.cols,))

    # The first (unrecorded) step compiles; the recorded ones run the generated kernels.
    run_block = torch.compile(block) if args.fixed else block

    @torch.no_grad()
    def step(_):
        h = x
        for _ in range(args.blocks):
            h = run_block(h)
        return h

    common.record(args, workload, EXPECTED, step)


if __name__ == "__main__":
    main()

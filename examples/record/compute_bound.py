"""Records a compute-bound trace: the feed-forward half of a large transformer block in bf16, forward and
backward, at a large batch of tokens.

Nearly all GPU time is in big bf16 matmuls (each several hundred GFLOP, arithmetic intensity in the
thousands of FLOP/byte, far right of an H100/H200 ridge point); the GELU between them is the only
memory-bound kernel and takes a few per cent. Expected nextstep verdict: compute-bound.

--dtype float32 runs the same block in fp32 with TF32 off (PyTorch's default for matmuls): the GEMMs run on
the CUDA cores, about 15x below the bf16 tensor-core peak of an H100/H200. Still compute-bound; the fix with
the most to win is lower precision (autocast to bf16, or TF32), which nextstep's fp32 rule names.
"""

import common

EXPECTED = "compute-bound"


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--tokens", type=int, default=8192, help="batch x sequence length, flattened")
    p.add_argument("--d-model", type=int, default=8192, help="model width")
    p.add_argument("--d-ff", type=int, default=32768, help="feed-forward width (4 x d-model is usual)")
    p.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16")
    args = common.parse(p)
    workload = "compute_bound" if args.dtype == "bfloat16" else "compute_fp32"

    torch, device = common.require_cuda()
    dtype = getattr(torch, args.dtype)
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 stays fp32 (the default, said out loud)
    torch.manual_seed(0)
    block = torch.nn.Sequential(
        torch.nn.Linear(args.d_model, args.d_ff, bias=False),
        torch.nn.GELU(),
        torch.nn.Linear(args.d_ff, args.d_model, bias=False),
    ).to(device=device, dtype=dtype)
    x = torch.randn(args.tokens, args.d_model, device=device, dtype=dtype)

    def step(_):
        block.zero_grad(set_to_none=True)
        y = block(x)
        y.float().square().mean().backward()

    common.record(args, workload, EXPECTED, step)


if __name__ == "__main__":
    main()

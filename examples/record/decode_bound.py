"""Records the decode phase of LLM inference at batch 1: a decoder-only transformer generates one token at a
time from a KV cache, run eagerly in bf16.

Each new token multiplies a single row of activations by every weight matrix (matrix-vector products), so
each decode step streams all the weights from HBM for about 2 FLOPs per weight: arithmetic intensity near
1 FLOP/byte, far left of an H100/H200 ridge point. With the default sizes (width 20480, 2 layers) the weights
are 20 GB, about 2.4 ms of HBM time per layer and token against under 1 ms of eager dispatch (13 ops a
layer, measured with the profiler on), so the GPU stays busy. Expected nextstep verdict: memory-bound, even
though most of the time is in GEMM kernels: at batch 1 they are bandwidth-bound, not compute-bound.

--small decodes with a small model (width 1024, 8 layers, 16 heads: 200 MB of weights, about 42 us of HBM
time a token on an H200) eagerly: each token is some 100 ops launched one by one from Python, far more host
time than GPU time. Expected: overhead-bound, the step capture of an inference program (capture the forward
with a static KV cache) as the next step or launch overhead.

--attention cudnn forces cuDNN's attention backend. It builds an execution plan for each new shape, and
the KV length grows by one every token, so every call builds a new plan on the host (about 12 ms a call on
an H200 with PyTorch 2.11, measured) while the GPU waits. Expected: overhead-bound, with the time in one
host op rather than in many small launches.
"""

import common

# The backends each --attention choice allows; cuDNN alone for the slow-host-op variant.
BACKENDS = {"flash": ("FLASH_ATTENTION", "EFFICIENT_ATTENTION"), "cudnn": ("CUDNN_ATTENTION",)}
EXPECTED = {"flash": "memory-bound", "cudnn": "overhead-bound", "small": "overhead-bound"}
SMALL = {"d_model": 1024, "heads": 16, "layers": 8}


def build_layers(torch, args, device):
    d, dt = args.d_model, torch.bfloat16
    layers = []
    for _ in range(args.layers):
        layers.append({
            "norm1": torch.nn.LayerNorm(d, device=device, dtype=dt),
            "qkv": torch.nn.Linear(d, 3 * d, bias=False, device=device, dtype=dt),
            "out": torch.nn.Linear(d, d, bias=False, device=device, dtype=dt),
            "norm2": torch.nn.LayerNorm(d, device=device, dtype=dt),
            "up": torch.nn.Linear(d, 4 * d, bias=False, device=device, dtype=dt),
            "down": torch.nn.Linear(4 * d, d, bias=False, device=device, dtype=dt),
        })
    return layers


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--d-model", type=int, default=20480)
    p.add_argument("--heads", type=int, default=160)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--attention", choices=sorted(BACKENDS), default="flash",
                   help="scaled_dot_product_attention backends allowed")
    p.add_argument("--context", type=int, default=1024, help="tokens already in the KV cache")
    p.add_argument("--tokens-per-step", type=int, default=16, help="tokens generated in one profiler step")
    p.add_argument("--small", action="store_true", help="a small model: dispatch-bound decode (see above)")
    args = common.parse(p)

    if args.small:
        for key, value in SMALL.items():
            setattr(args, key, value)
    workload = "decode_small" if args.small else "decode_batch1" if args.attention == "flash" \
        else "decode_cudnn_attention"
    expected = EXPECTED["small" if args.small else args.attention]
    torch, device = common.require_cuda()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = [getattr(SDPBackend, name) for name in BACKENDS[args.attention]]
    F = torch.nn.functional
    torch.manual_seed(0)
    d, h = args.d_model, args.heads
    hd = d // h
    layers = build_layers(torch, args, device)
    total_steps = common.WAIT_STEPS + common.WARMUP_STEPS + args.active
    capacity = args.context + total_steps * args.tokens_per_step
    # One preallocated cache per layer; the first `context` positions stand for an earlier prefill.
    caches = [(torch.randn(1, h, capacity, hd, device=device, dtype=torch.bfloat16),
               torch.randn(1, h, capacity, hd, device=device, dtype=torch.bfloat16)) for _ in layers]
    state = {"pos": args.context, "x": torch.randn(1, 1, d, device=device, dtype=torch.bfloat16)}

    def decode_token(x, pos):
        for layer, (k_cache, v_cache) in zip(layers, caches):
            q, k, v = layer["qkv"](layer["norm1"](x)).split(d, dim=-1)
            q, k, v = (t.view(1, 1, h, hd).transpose(1, 2) for t in (q, k, v))
            k_cache[:, :, pos:pos + 1].copy_(k)
            v_cache[:, :, pos:pos + 1].copy_(v)
            a = F.scaled_dot_product_attention(q, k_cache[:, :, :pos + 1], v_cache[:, :, :pos + 1])
            x = x + layer["out"](a.transpose(1, 2).reshape(1, 1, d))
            x = x + layer["down"](F.gelu(layer["up"](layer["norm2"](x))))
        return x

    @torch.no_grad()
    def step(_):
        with sdpa_kernel(backends):
            for _ in range(args.tokens_per_step):
                state["x"] = decode_token(state["x"], state["pos"])
                state["pos"] += 1

    common.record(args, workload, expected, step)


if __name__ == "__main__":
    main()

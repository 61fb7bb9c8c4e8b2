"""Records a dataloader-bound trace, or with --fixed the same training run with the input pipeline fixed.

The dataset's __getitem__ sleeps (standing in for decoding, augmentation or a slow disk) before returning a
short sequence of token ids; the model is a small language model whose step is a few tens of milliseconds
of GPU work on an H100/H200. With num_workers=0 every batch is loaded in the training process while the GPU
waits: by default 32 samples x 4 ms = 128 ms of loading against about 25 ms of compute.
Expected nextstep verdict: dataloader-bound (or at least a `high` dataloader finding with -v).

--fixed loads with worker processes, pinned memory, prefetching and persistent workers. Sixteen workers
produce a batch every 128/16 = 8 ms on average, faster than the GPU consumes one, so the loader no longer
shows; expected: not dataloader-bound (most likely compute-bound).
"""

import time

import common

EXPECTED_SLOW = "dataloader-bound"
EXPECTED_FIXED = "not dataloader-bound"


class SlowTokens:
    """A map-style dataset whose items cost sleep_s each to produce. Top-level so workers can pickle it."""

    def __init__(self, length, seq_len, vocab, sleep_s):
        self.length = length
        self.seq_len = seq_len
        self.vocab = vocab
        self.sleep_s = sleep_s

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        import torch

        time.sleep(self.sleep_s)
        g = torch.Generator().manual_seed(index)
        ids = torch.randint(0, self.vocab, (self.seq_len + 1,), generator=g)
        return ids[:-1], ids[1:]


def loader_options(args):
    if not args.fixed:
        return {"num_workers": 0}
    return {"num_workers": args.workers, "pin_memory": True, "prefetch_factor": args.prefetch_factor,
            "persistent_workers": True}


def build_model(torch, args):
    layers = [torch.nn.Embedding(args.vocab, args.d_model)]
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.d_model, 4 * args.d_model), torch.nn.GELU(),
                   torch.nn.Linear(4 * args.d_model, args.d_model)]
    layers.append(torch.nn.Linear(args.d_model, args.vocab))
    return torch.nn.Sequential(*layers)


def main():
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--fixed", action="store_true",
                   help="load with workers, pinned memory, prefetching and persistent workers")
    p.add_argument("--workers", type=int, default=16, help="DataLoader workers with --fixed")
    p.add_argument("--prefetch-factor", type=int, default=4, help="batches each worker loads ahead, --fixed")
    p.add_argument("--sleep-ms", type=float, default=4.0, help="cost of one __getitem__")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=512)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--d-model", type=int, default=2048)
    p.add_argument("--layers", type=int, default=4, help="feed-forward blocks")
    args = common.parse(p)
    workload = "dataloader_fixed" if args.fixed else "dataloader_bound"
    expected = EXPECTED_FIXED if args.fixed else EXPECTED_SLOW

    torch, device = common.require_cuda()
    torch.manual_seed(0)
    model = build_model(torch, args).to(device=device, dtype=torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    total_steps = common.WAIT_STEPS + common.WARMUP_STEPS + args.active
    dataset = SlowTokens(total_steps * args.batch, args.seq_len, args.vocab, args.sleep_ms / 1000)
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch, shuffle=False, drop_last=True,
                                         **loader_options(args))
    # The iterator is made (and, with --fixed, the workers started) before profiling; fetching each batch
    # happens inside its step, where the profiler marks it as enumerate(DataLoader)#...__next__.
    batches = iter(loader)

    def step(_):
        inputs, targets = next(batches)
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        logits = model(inputs)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, args.vocab), targets.view(-1))
        loss.backward()
        opt.step()

    common.record(args, workload, expected, step)


if __name__ == "__main__":
    main()

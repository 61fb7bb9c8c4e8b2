#!/usr/bin/env python3
"""Turns a make-trace trace into an inference server's: every ProfilerStep#N span becomes one iteration marker
(a user_annotation over the same span), and the phase of each is chosen here, so the split of each step is
still make-trace's truth and the phases are known.

usage: server_markers.py FAMILY IN OUT PHASES_OUT
  FAMILY  vllm (execute_context_<r>(<t>)_generation_<r>(<t>)), vllm-today (execute_<t>_context_<r>(<t>_<t>)
          _generation_<r>(<t>_<t>): the batch's tokens first, token pairs in the parentheses), vllm-v1
          (execute_new_<n>_cached_<m>) or sglang (step[<MODE> bs=<n>])
Phases cycle prefill, decode, decode, mixed, ...; PHASES_OUT gets them in time order as a JSON list.
"""
import json
import sys

CYCLE = ("prefill", "decode", "decode", "mixed")


def marker(family, phase, i):
    # decode batches of 256 requests: above the 64 rows under which a decode step's GEMMs count as memory
    # (docs/trace.md, "Small-M GEMMs"), so make-trace's large GEMMs stay compute, as in its truth
    ctx = {"prefill": 2, "decode": 0, "mixed": 1}[phase]
    gen = {"prefill": 0, "decode": 256, "mixed": 7}[phase]
    if family == "vllm":
        return "execute_context_%d(%d)_generation_%d(%d)" % (ctx, 512 * ctx + i, gen, gen)
    if family == "vllm-today":
        return "execute_%d_context_%d(%d_%d)_generation_%d(%d_%d)" % (
            512 * ctx + gen, ctx, 512 * ctx, 4096 + i, gen, gen, 1)
    if family == "vllm-v1":
        return "execute_new_%d_cached_%d" % (ctx, gen)
    return "step[%s bs=%d]" % ({"prefill": "EXTEND", "decode": "DECODE", "mixed": "MIXED"}[phase], ctx + gen)


def main():
    family, src, dst, phases_out = sys.argv[1:5]
    with open(src) as f:
        doc = json.load(f)
    steps = sorted((e for e in doc["traceEvents"] if e.get("name", "").startswith("ProfilerStep#")),
                   key=lambda e: float(e["ts"]))
    phases = []
    for i, e in enumerate(steps):
        phase = CYCLE[i % len(CYCLE)]
        phases.append(phase)
        e["name"] = marker(family, phase, i)
        e["cat"] = "user_annotation"
    with open(dst, "w") as f:
        json.dump(doc, f)
    with open(phases_out, "w") as f:
        json.dump(phases, f)


main()

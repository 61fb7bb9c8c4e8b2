#!/usr/bin/env python3
"""Two ranks of one job from a single-trace fixture (docs/job.md, rule 7): the fixture's trace with a
distributedInfo of rank 0 and of rank 1 of 2. The ranks are the same work, so the job has no straggler and its
verdict is the median split's, routed as the reference rank's own report routes it.

usage: make-evidence-job.py FIXTURE.json OUT_DIR"""
import json
import os
import sys


def main():
    fixture, out = sys.argv[1], sys.argv[2]
    with open(fixture) as f:
        doc = json.load(f)
    os.makedirs(out, exist_ok=True)
    for rank in (0, 1):
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 2}
        with open(os.path.join(out, "rank-%d.json" % rank), "w") as f:
            json.dump(doc, f, indent=0)
            f.write("\n")


main()

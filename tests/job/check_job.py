#!/usr/bin/env python3
"""Checks a `nextstep job --format json` report against make-trace's truth files.

check_job.py REPORT TRUTH_DIR STRAGGLER
  - the job names STRAGGLER (or none when it is -1) as its only straggler, with compute as the bucket (the
    generator's straggler computes 1.5x longer), and the verdict says straggler-bound with regime compute;
  - every rank's waiting time per step matches the truth's comm_wait_us within 1 us, and overall too;
  - waiting + transfer of each rank's comm equals its exposed comm (the causes partition the bucket);
  - the job's next steps name the straggler's fix first, its bound the other ranks' waiting a step (the
    truth's comm_wait_us, each within 1 %), and no rank lists its own waiting as a next step.
"""
import glob
import json
import os
import sys

TOL_US = 1.0


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    report = json.load(open(sys.argv[1]))
    truth_dir = sys.argv[2]
    straggler = int(sys.argv[3])
    job = report["job"]
    names = [s["rank"] for s in job["stragglers"]]
    if straggler < 0:
        if names:
            fail("stragglers %s named, none expected" % names)
    else:
        if names != [straggler]:
            fail("stragglers %s, expected [%d]" % (names, straggler))
        if job["stragglers"][0]["bucket"] != "compute":
            fail("straggler bucket %s, expected compute" % job["stragglers"][0]["bucket"])
        if job["verdict"] != "straggler-bound" or job["regime"] != "compute":
            fail("job verdict %s/%s, expected straggler-bound/compute" % (job["verdict"], job["regime"]))
    if not job["comm_split"]:
        fail("waiting not split: %s" % job["comm_split_refused"])
    truths = {}
    for path in glob.glob(os.path.join(truth_dir, "*.json")):
        t = json.load(open(path))
        truths[t["rank"]] = t
    ranks = {r["rank"]: r for r in report["ranks"]}
    if sorted(ranks) != sorted(truths):
        fail("ranks %s, truth has %s" % (sorted(ranks), sorted(truths)))
    for rank, t in truths.items():
        r = ranks[rank]
        want = [s["comm_wait_us"] for s in t["steps"]]
        got = r["steps_comm_wait_us"]
        if len(got) != len(want):
            fail("rank %d: %d steps, truth %d" % (rank, len(got), len(want)))
        for i, (g, w) in enumerate(zip(got, want)):
            if abs(g - w) > TOL_US:
                fail("rank %d step %d: waiting %.3f us, truth %.3f us" % (rank, i, g, w))
        if abs(r["comm_wait_us"] - t["overall"]["comm_wait_us"]) > TOL_US * len(want):
            fail("rank %d: overall waiting %.3f, truth %.3f" % (rank, r["comm_wait_us"], t["overall"]["comm_wait_us"]))
        ov = r["devices"][0]["overall"]
        causes = {(c["bucket"], c["cause"]): c["us"] for c in ov["causes"]}
        parts = causes.get(("comm", "wait"), 0) + causes.get(("comm", "transfer"), 0) + causes.get(("comm", "host"), 0)
        if abs(parts - ov["buckets_us"]["comm"]) > 0.002:
            fail("rank %d: comm causes sum to %.3f, bucket %.3f" % (rank, parts, ov["buckets_us"]["comm"]))
        if causes.get(("comm", "exposed"), 0) != 0:
            fail("rank %d: comm still has an 'exposed' cause after the split" % rank)
        if any(n["bucket"] == "comm" and n["cause"] == "wait" for n in ov["next_steps"]):
            fail("rank %d lists its own waiting as a next step" % rank)
    nxt = [n for n in job["next_steps"] if n.get("rank") is not None]
    if straggler >= 0:
        if not job["next_steps"] or job["next_steps"][0].get("rank") != straggler:
            fail("the job's first next step is %s, not straggler %d" % (job["next_steps"][:1], straggler))
        gain = nxt[0]["gain_us"]
        for rank, t in truths.items():
            if rank == straggler:
                continue
            want = t["overall"]["comm_wait_us"] / len(t["steps"])
            if abs(gain - want) > 0.01 * want:
                fail("straggler fix bound %.3f us a step, rank %d waits %.3f" % (gain, rank, want))
    elif nxt:
        fail("a straggler fix with no straggler: %s" % nxt)
    print("ok: %d ranks, straggler %s" % (len(truths), straggler))


main()

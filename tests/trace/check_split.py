#!/usr/bin/env python3
"""Checks on `nextstep trace --format json --steps` output, for the tests/trace/*.sh scripts.

usage: check_split.py sanity REPORT            buckets >= 0, sum to the window, causes partition their bucket,
                                               overall + warm-up = sum of steps
       check_split.py expect REPORT EXPECT     every key in EXPECT (a subset of the report) has that value; keys
                                               starting with "_" are notes (the hand arithmetic), and
                                               "causes_us": {"overhead.sync": 20, ...} checks a window's causes,
                                               "python_us": {"overhead.launch": [[frame, us], ...]} the Python
                                               frames behind its host causes (in order, all of them)
       check_split.py truth REPORT TRUTH       per-step windows/buckets equal make-trace's --truth file (1 ns)
       check_split.py next REPORT TRUTH        the overall window's next steps against make-trace's truth: the
                                               data loader's bound, the overhead and the idle causes' bounds
                                               summed, each equal to the truth's bucket a counted step (1 %);
                                               compute's bound unknown; the known bounds sum to at most a step
       check_split.py same REPORT REPORT       two reports are equal apart from "source"
       check_split.py gpu_util TRACE REPORT    every window's gpu_util is the union of the trace's kernel intervals
                                               (cat kernel/Kernel; device args.device, else pid) inside it, over
                                               its length (1 ns); overall's is its counted steps' union over their sum
       check_split.py overall REPORT [N]       print device N's "overall" object (one line)
       check_split.py batch < CHECKS           many checks in one process (a Python start costs more than a
                                               check): each line NAME<TAB>CHECK<TAB>ARG..., CHECK one of
                                               sanity, expect, truth, next, gpu_util, same (ARG... = REPORT
                                               REPORT MESSAGE) or
                                               route (ARG... = REPORT NEXTSTEP: each device's "overall" piped
                                               into `NEXTSTEP - --format json` routes to its own regime); prints
                                               NAME<TAB>difference for each difference
Exit 0 when the check holds, 1 (with the differences on stdout) when it does not.
"""
import json
import subprocess
import sys

BUCKETS = ("compute", "memory", "comm", "dataloader", "overhead", "idle")
SPLIT = ("memory", "comm", "overhead", "idle")  # the buckets partitioned into causes
NS = 0.0011  # one nanosecond, in us, with room for the decimal print


def load(path):
    with open(path) as f:
        return json.load(f)


def windows(dev):
    extra = [("warmup", dev["warmup"])] if dev.get("warmup") else []
    return [("overall", dev["overall"])] + extra + [("step %s" % w.get("step"), w) for w in dev["steps"]]


def cause_map(w):
    return {"%s.%s" % (c["bucket"], c["cause"]): c["us"] for c in w["causes"]}


def python_map(w):
    """{"overhead.launch": [[frame, us], ...]} for the causes that carry "python", frames in report order."""
    return {"%s.%s" % (c["bucket"], c["cause"]): [[f["frame"], f["us"]] for f in c["python"]]
            for c in w["causes"] if "python" in c}


def sanity(doc):
    bad = []
    for dev in doc["devices"]:
        for where, w in windows(dev):
            b = w["buckets_us"]
            if any(b[k] < 0 for k in BUCKETS):
                bad.append("%s %s: negative bucket %s" % (dev["device"], where, b))
            if abs(sum(b[k] for k in BUCKETS) - w["dur_us"]) > NS * 6:
                bad.append("%s %s: buckets sum %.3f != dur %.3f" % (dev["device"], where, sum(b.values()), w["dur_us"]))
            if abs(w["memory_kernels_us"] + w["memory_transfer_us"] - b["memory"]) > NS * 2:
                bad.append("%s %s: memory_kernels + memory_transfer != memory" % (dev["device"], where))
            if w["comm_overlapped_us"] < 0 or w["dur_us"] < 0:
                bad.append("%s %s: negative duration" % (dev["device"], where))
            causes = cause_map(w)
            for k in SPLIT:
                part = sum(us for key, us in causes.items() if key.startswith(k + "."))
                if abs(part - b[k]) > NS * 4:
                    bad.append("%s %s: causes of %s sum %.3f != %.3f" % (dev["device"], where, k, part, b[k]))
            if any(us < 0 for us in causes.values()):
                bad.append("%s %s: negative cause %s" % (dev["device"], where, causes))
        # a trace with Python frames (with_stack=True) is never told to record them, in no window (issue 25)
        if python_map(dev["overall"]):
            for where, w in windows(dev):
                if "with_stack=True" in (w.get("fix") or ""):
                    bad.append("%s %s: asks for with_stack=True though the trace has Python frames" %
                               (dev["device"], where))
        steps = dev["steps"]
        counted = [dev["overall"]] + ([dev["warmup"]] if dev.get("warmup") else [])
        total = sum(s["dur_us"] for s in steps)
        if abs(total - sum(c["dur_us"] for c in counted)) > NS * len(steps):
            bad.append("%s: overall (+ warm-up) dur != sum of steps %.3f" % (dev["device"], total))
        for k in BUCKETS:
            total = sum(s["buckets_us"][k] for s in steps)
            if abs(total - sum(c["buckets_us"][k] for c in counted)) > NS * len(steps):
                bad.append("%s: overall (+ warm-up) %s != sum of steps" % (dev["device"], k))
        if sum(s["kernels"] for s in steps) != sum(c["kernels"] for c in counted):
            bad.append("%s: overall (+ warm-up) kernels != sum of steps" % dev["device"])
        for a, b in zip(steps, steps[1:]):
            # Absolute times near 4.5e12 us are only exact to about a nanosecond as doubles.
            if abs(a["start_us"] + a["dur_us"] - b["start_us"]) > max(NS, 4e-16 * abs(b["start_us"])) * 2:
                bad.append("%s: step %s does not end where step %s starts" % (dev["device"], a["step"], b["step"]))
    return bad


def subset(got, want, where):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return ["%s: expected an object, got %r" % (where, got)]
        bad = []
        for k, v in want.items():
            if k.startswith("_"):
                continue
            if k == "causes_us" and "causes" in got:
                bad += subset(cause_map(got), v, "%s.causes" % where)
            elif k == "python_us" and "causes" in got:
                bad += subset(python_map(got), v, "%s.causes.python" % where)
            elif k in got:
                bad += subset(got[k], v, "%s.%s" % (where, k))
            else:
                bad.append("%s: missing key %s" % (where, k))
        return bad
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return ["%s: expected %d items, got %r" % (where, len(want), got if not isinstance(got, list) else len(got))]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in subset(g, w, "%s[%d]" % (where, i))]
    if isinstance(want, (int, float)) and not isinstance(want, bool) and isinstance(got, (int, float)):
        return [] if abs(got - want) <= NS else ["%s: %r != expected %r" % (where, got, want)]
    return [] if got == want else ["%s: %r != expected %r" % (where, got, want)]


def expect(doc, exp):
    """EXPECT's devices carry "regime" for the overall verdict; the rest is a plain subset."""
    exp = json.loads(json.dumps(exp))
    bad = []
    for i, dev in enumerate(exp.get("devices", [])):
        regime = dev.pop("regime", None)
        if regime is not None and i < len(doc["devices"]) and doc["devices"][i]["overall"]["regime"] != regime:
            bad.append("devices[%d]: regime %s != expected %s" % (i, doc["devices"][i]["overall"]["regime"], regime))
    return bad + subset(doc, exp, "report")


def truth(doc, t):
    bad = []
    devs = doc["devices"]
    if len(devs) != 1:
        return ["expected one device, got %d" % len(devs)]
    dev = devs[0]
    if t.get("world_size", 1) > 1 and dev.get("rank") != t["rank"]:
        bad.append("rank %r != truth %r" % (dev.get("rank"), t["rank"]))
    got = {s["step"]: s for s in dev["steps"]}
    if sorted(got) != [s["step"] for s in t["steps"]]:
        return bad + ["steps %s != truth %s" % (sorted(got), [s["step"] for s in t["steps"]])]
    for ts in t["steps"]:
        g = got[ts["step"]]
        pairs = [("start_us", g["start_us"], ts["start_us"]), ("dur_us", g["dur_us"], ts["dur_us"]),
                 ("comm_overlapped_us", g["comm_overlapped_us"], ts["comm_overlapped_us"])]
        pairs += [(k, g["buckets_us"][k], ts["buckets_us"][k]) for k in BUCKETS]
        for name, a, b in pairs:
            if abs(a - b) > NS:
                bad.append("step %s %s: %.3f != truth %.3f" % (ts["step"], name, a, b))
    for k in BUCKETS:
        a, b = dev["overall"]["buckets_us"][k], t["overall"]["buckets_us"][k]
        if abs(a - b) > NS * len(t["steps"]):
            bad.append("overall %s: %.3f != truth %.3f" % (k, a, b))
    shares = t["overall"]["fractions"]
    top = max(shares[k] for k in BUCKETS)
    if shares[dev["overall"]["regime"]] < top - 1e-9:
        bad.append("overall verdict %s but truth's largest bucket is %s" %
                   (dev["overall"]["regime"], [k for k in BUCKETS if shares[k] == top]))
    return bad


def kernel_unions(trace, doc):
    """{device: sorted disjoint [start_us, end_us) intervals} of the kernels, merged independently of nextstep.
    When the report counts GPU events launched outside every step ("outside_steps"), a kernel whose launch call
    (same correlation) starts before the first window or after the last is one of them and is left out."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    windows = [(w["start_us"], w["start_us"] + w["dur_us"]) for d in doc["devices"] for w in d["steps"]]
    outside = any((d.get("outside_steps") or {}).get("gpu_events", 0) > 0 for d in doc["devices"])
    lo, hi = (min(a for a, _ in windows), max(b for _, b in windows)) if windows and outside else \
        (float("-inf"), float("inf"))
    launch = {e["args"]["correlation"]: e["ts"] for e in events
              if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "Runtime") and "correlation" in e.get("args", {})}
    spans = {}
    for e in events:
        # the Kineto category of device kernels, the old spelling, and MTIA's kernel events
        if e.get("ph") != "X" or e.get("cat") not in ("kernel", "Kernel", "mtia_ccp_events"):
            continue
        at = launch.get(e.get("args", {}).get("correlation"))
        if at is not None and not lo <= at < hi:
            continue
        dev = e.get("args", {}).get("device", e.get("pid"))
        spans.setdefault(dev, []).append((e["ts"], e["ts"] + e["dur"]))
    merged = {}
    for dev, iv in spans.items():
        out = []
        for a, b in sorted(iv):
            if out and a <= out[-1][1]:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        merged[dev] = out
    return merged


def covered(union, a, b):
    return sum(max(0.0, min(b, y) - max(a, x)) for x, y in union)


def gpu_util(trace, doc):
    bad = []
    unions = kernel_unions(trace, doc)
    for dev in doc["devices"]:
        union = unions.get(dev["device"], [])
        busy = {}
        for w in dev["steps"]:
            got, d = w.get("gpu_util"), w["dur_us"]
            want = covered(union, w["start_us"], w["start_us"] + d)
            busy[w["step"]] = (want, d, w.get("warmup", False))
            if got is None or abs(got * d - want) > NS * 2:
                bad.append("device %s step %s: gpu_util %r x %.3f us != kernel union %.3f us" %
                           (dev["device"], w["step"], got, d, want))
        counted = [v for v in busy.values() if not v[2]] or list(busy.values())
        want = sum(v[0] for v in counted) / max(sum(v[1] for v in counted), 1e-9)
        got = dev["overall"].get("gpu_util")
        if got is None or abs(got - want) > 1e-9 + NS / max(sum(v[1] for v in counted), 1e-9):
            bad.append("device %s overall: gpu_util %r != %.9f" % (dev["device"], got, want))
    return bad


def next_steps(doc, t):
    """Every serial phase of a make-trace step is exactly removable, so a fix of it wins the phase's time."""
    bad = []
    for dev in doc["devices"]:
        counted = [w["step"] for w in dev["steps"] if not w["warmup"]] or [w["step"] for w in dev["steps"]]
        truth = {s["step"]: s for s in t["steps"]}
        want = {b: sum(truth[k]["buckets_us"][b] for k in counted) / len(counted) for b in ("dataloader", "overhead", "idle")}
        step = sum(truth[k]["dur_us"] for k in counted) / len(counted)
        nxt = dev["overall"]["next_steps"]
        got = {b: sum(n["gain_us"] for n in nxt if n["bucket"] == b and n["gain_us"] is not None) for b in want}
        for b in want:
            if abs(got[b] - want[b]) > 0.01 * want[b] + NS:
                bad.append("%s: %s bound %.3f us a step, truth %.3f" % (dev["device"], b, got[b], want[b]))
        known = sum(n["gain_us"] for n in nxt if n["gain_us"] is not None)
        if known > step + NS:
            bad.append("%s: the bounds sum to %.3f us, more than the step %.3f" % (dev["device"], known, step))
        if any(n["bucket"] == "compute" and n["gain_us"] is not None for n in nxt):
            bad.append("%s: compute has a bound without a roofline placement" % dev["device"])
        gains = [n["gain_us"] for n in nxt if n["gain_us"] is not None]
        if gains != sorted(gains, reverse=True):
            bad.append("%s: next steps not ranked by their bound: %s" % (dev["device"], gains))
    return bad


def same(a, b):
    a.pop("source", None)
    b.pop("source", None)
    return [] if a == b else ["reports differ"]


def route(doc, nextstep):
    """Each device's overall object, given alone to `nextstep -`, routes to the regime the report gives it."""
    bad = []
    for d, dev in enumerate(doc["devices"]):
        want = dev["overall"]["regime"]
        run = subprocess.run([nextstep, "-", "--format", "json"], input=json.dumps(dev["overall"]) + "\n",
                             capture_output=True, text=True, check=False)
        try:
            got = json.loads(run.stdout)["regime"]
        except (ValueError, KeyError):
            got = "(no verdict: exit %d, %s)" % (run.returncode, run.stderr.strip())
        if got != want:
            bad.append("device %d: overall routes to '%s' through 'nextstep -', not '%s'" % (d, got, want))
    return bad


def batch(lines):
    """The checks of CHECKS, one a line; a difference is printed NAME<TAB>line, a check that raises is a difference
    too, and the last line, "checked N", says that all N were run. Returns the number that failed."""
    failed = checked = 0
    for line in lines:
        name, cmd, *args = line.rstrip("\n").split("\t")
        try:
            if cmd == "same":
                bad = same(load(args[0]), load(args[1]))
                bad = bad + [args[2]] if bad else []
            elif cmd == "route":
                bad = route(load(args[0]), args[1])
            else:
                bad = run_check(cmd, args)
        except Exception as e:  # pylint: disable=broad-except  # one broken report fails its own check only
            bad = ["%s: %s: %r" % (cmd, type(e).__name__, e)]
        for b in bad:
            print("%s\t  %s" % (name, b))
        failed += 1 if bad else 0
        checked += 1
    print("checked %d" % checked)
    return failed


def run_check(cmd, args):
    checks = {"sanity": lambda: sanity(load(args[0])), "expect": lambda: expect(load(args[0]), load(args[1])),
              "truth": lambda: truth(load(args[0]), load(args[1])), "same": lambda: same(load(args[0]), load(args[1])),
              "gpu_util": lambda: gpu_util(load(args[0]), load(args[1])),
              "next": lambda: next_steps(load(args[0]), load(args[1]))}
    return checks[cmd]()


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "batch":
        return 1 if batch(sys.stdin) else 0
    if cmd == "overall":
        dev = load(args[0])["devices"][int(args[1]) if len(args) > 1 else 0]
        print(json.dumps(dev["overall"]))
        return 0
    bad = run_check(cmd, args)
    for line in bad:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

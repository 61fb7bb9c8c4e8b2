#!/usr/bin/env python3
"""Checks of an HTML report (tests/html/render.sh). Each check prints what is wrong and exits 1.

  check_page.py wellformed PAGE        tags balanced, nothing loaded from outside (no URL, no src, no @import)
  check_page.py ran DOM                the page's script ran and reported no error (DOM from chromium --dump-dom)
  check_page.py source DOM INPUT...    each input's size and SHA-256 on the page, computed here with hashlib
  check_page.py truth DOM TRUTH        per-step buckets and the verdict against make-trace's ground truth
  check_page.py tbp DOM STEP_MS DL_PCT the TensorBoard plugin's figures for a ResNet-50 trace
  check_page.py diff DOM B_MS A_MS B_DL A_DL   a diff page's bucket table against the plugin's figures
  check_page.py job DOM TRUTH_DIR RANK  a job page against make-trace's per-rank truth and its straggler
  check_page.py passes DOM TRACE TRUTH  forward/backward/optimizer per step against the trace's own markers
  check_page.py print PDF MIN MAX WORD  the printed page (chromium --print-to-pdf): MIN-MAX pages, the verdict
                                       WORD and the fix on page 1, no interactive hint, the folded steps table
                                       printed, each chart on one page with its heading
"""
import gzip
import subprocess
import hashlib
import html
import html.parser
import json
import os
import re
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
        "path", "rect", "line", "circle", "polyline"}
BUCKETS = ["compute", "memory", "comm", "dataloader", "overhead", "idle"]
bad = []


class Balance(html.parser.HTMLParser):
    """Open and close tags must nest; SVG shapes may be self-closed."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "srcset", "poster", "data"):
                bad.append("attribute %s=%r loads something" % (name, value))
        if tag in ("link", "iframe", "object", "embed", "img", "base"):
            bad.append("<%s> element: the page must be self-contained" % tag)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            bad.append("line %d: </%s> closes %s" % (self.getpos()[0], tag,
                                                      "<%s> (line %d)" % (self.stack[-1][0], self.stack[-1][1][0])
                                                      if self.stack else "nothing"))
            return
        self.stack.pop()


def wellformed(page):
    text = open(page, encoding="utf-8").read()  # must be UTF-8
    if not text.startswith("<!DOCTYPE html>"):
        bad.append("no <!DOCTYPE html>")
    p = Balance()
    p.feed(text)
    p.close()
    for tag, pos in p.stack:
        bad.append("<%s> at line %d is never closed" % (tag, pos[0]))
    for m in re.finditer(r"(?i)\b(?:https?|ftp|wss?|file):|@import|url\((?!#)", text):
        bad.append("external reference at byte %d: %r" % (m.start(), text[max(0, m.start() - 30):m.end() + 30]))


def ran(dom):
    text = open(dom, encoding="utf-8").read()
    if 'data-script="ran"' not in text:
        bad.append("the page's script did not run to its end")
    m = re.search(r'<pre id="js-errors"[^>]*>(.*?)</pre>', text, re.S)
    if m is None:
        bad.append("no #js-errors element")
    elif m.group(1).strip():
        bad.append("script errors: " + html.unescape(m.group(1).strip()))


def source(dom, *inputs):
    text = open(dom, encoding="utf-8").read()
    for path in inputs:
        digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
        size = os.path.getsize(path)
        if ('class="src-sha256">%s<' % digest) not in text:
            bad.append("%s: SHA-256 %s not on the page" % (path, digest))
        if ('data-bytes="%d"' % size) not in text:
            bad.append("%s: size %d not on the page" % (path, size))


def step_titles(text):
    """{step: {bucket: ms}} from the bars' tooltips."""
    steps = {}
    for m in re.finditer(r"<title>step (\d+): ([0-9.]+) ms((?:; \w+ [0-9.]+ \([0-9.]+%\))+)", text):
        steps[int(m.group(1))] = {b: float(v) for b, v in re.findall(r"; (\w+) ([0-9.]+) \(", m.group(3))}
        steps[int(m.group(1))]["total"] = float(m.group(2))
    return steps


def split_rows(text):
    """{bucket: (ms per step, percent)} from the split table."""
    rows = {}
    for m in re.finditer(r'<tr data-bucket="(\w+)">.*?data-v="([0-9.]+)".*?data-v="([0-9.]+)"', text):
        rows.setdefault(m.group(1), (float(m.group(2)), float(m.group(3))))
    return rows


def banner_regime(text):
    m = re.search(r'<div class="banner"[^>]*data-regime="(\w+)"', text)
    return m.group(1) if m else None


def truth(dom, truth_path):
    text = open(dom, encoding="utf-8").read()
    t = json.load(open(truth_path))
    got = step_titles(text)
    if len(got) != len(t["steps"]):
        bad.append("%d step bars, the generator made %d steps" % (len(got), len(t["steps"])))
    for s in t["steps"]:
        g = got.get(s["step"])
        if g is None:
            bad.append("step %d has no bar" % s["step"])
            continue
        # the page shows ms with 3 decimals: within half a microsecond plus the truth's own rounding
        if abs(g["total"] - s["dur_us"] / 1000) > 0.0015:
            bad.append("step %d: %.3f ms on the page, %.3f ms in the truth" % (s["step"], g["total"], s["dur_us"] / 1000))
        for b in BUCKETS:
            want = s["buckets_us"][b] / 1000
            if abs(g.get(b, -1) - want) > 0.0015:
                bad.append("step %d %s: %s ms on the page, %.3f ms in the truth" % (s["step"], b, g.get(b), want))
    # the verdict: the largest bucket over all steps (the default priority breaks no tie here)
    totals = {b: sum(s["buckets_us"][b] for s in t["steps"]) for b in BUCKETS}
    want = max(BUCKETS, key=lambda b: totals[b])
    if banner_regime(text) != want:
        bad.append("banner names %s, the truth's largest bucket is %s" % (banner_regime(text), want))
    timeline(text, t)
    rows = split_rows(text)
    n = len(t["steps"])
    for b in BUCKETS:
        want_ms = totals[b] / 1000 / n
        if b not in rows or abs(rows[b][0] - want_ms) > 0.001:
            bad.append("split table %s: %s ms per step, truth %.4f" % (b, rows.get(b), want_ms))


def timeline(text, t):
    """The strip draws the median step (lower median by length; the generator makes no warm-up step), and its
    GPU rows hold that step's kernel time: compute kernels never overlap in the generator's layout, so their
    time is the compute bucket; collectives run exposed (the comm bucket) or hidden under compute."""
    steps = sorted(t["steps"], key=lambda s: s["dur_us"])
    m = steps[(len(steps) - 1) // 2]
    got = re.search(r"<title>step (\d+), ([0-9.]+) ms, \d+ pixels across</title>", text)
    if got is None:
        bad.append("no timeline strip")
        return
    if int(got.group(1)) != m["step"] or abs(float(got.group(2)) - m["dur_us"] / 1000) > 0.0015:
        bad.append("timeline of step %s (%s ms), the median step is %d (%.3f ms)" % (got.group(1), got.group(2), m["step"], m["dur_us"] / 1000))
    rows = re.findall(r"<title>(?:stream \S+|other streams): busy [0-9.]+ ms of [0-9.]+ ms((?:; [a-z/]+ [0-9.]+ ms)*)</title>", text)
    sums = {}
    for r in rows:
        for cls, ms in re.findall(r"; ([a-z/]+) ([0-9.]+) ms", r):
            sums[cls] = sums.get(cls, 0.0) + float(ms)
    want = {"compute": m["buckets_us"]["compute"] / 1000,
            "comm": (m["buckets_us"]["comm"] + m.get("comm_overlapped_us", 0)) / 1000}
    for cls, ms in want.items():
        if abs(sums.get(cls, 0.0) - ms) > 0.002 * max(1, len(rows)):
            bad.append("timeline %s %.3f ms over the GPU rows, the step's is %.3f ms" % (cls, sums.get(cls, 0.0), ms))


def tbp(dom, step_ms, dl_pct):
    text = open(dom, encoding="utf-8").read()
    m = re.search(r'<span class="step-ms">([0-9.]+)</span>', text)
    if m is None or abs(float(m.group(1)) - float(step_ms)) > 0.01 * float(step_ms):
        bad.append("step %s ms on the page, the plugin's is %s ms" % (m.group(1) if m else None, step_ms))
    rows = split_rows(text)
    if "dataloader" not in rows or abs(rows["dataloader"][1] - float(dl_pct)) > 2:
        bad.append("dataloader %s %% on the page, the plugin's is %s %%" % (rows.get("dataloader"), dl_pct))
    if "<table class=\"kernels sortable\"" not in text:
        bad.append("no kernel table")


def diff(dom, before_ms, after_ms, before_dl, after_dl):
    text = open(dom, encoding="utf-8").read()
    rows = {}
    for m in re.finditer(r'<tr data-bucket="(\w+)">.*?class="n before">([0-9.]+)<.*?class="n after">([0-9.]+)<', text):
        rows[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    if len(rows) != 6:
        bad.append("the bucket table has %d rows" % len(rows))
        return
    for i, (ms, dl) in enumerate(((before_ms, before_dl), (after_ms, after_dl))):
        step = sum(r[i] for r in rows.values())
        if abs(step - float(ms)) > 0.01 * float(ms):
            bad.append("side %d: buckets sum to %.1f ms per step, the plugin's step is %s ms" % (i, step, ms))
        share = 100 * rows["dataloader"][i] / step
        if abs(share - float(dl)) > 2:
            bad.append("side %d: dataloader %.1f %%, the plugin's is %s %%" % (i, share, dl))
    if 'data-change="faster"' not in text:
        bad.append("the change is not 'faster'")
    if "Kernels that moved" not in text:
        bad.append("no kernels that moved")


def job(dom, truth_dir, straggler):
    """The generator's straggler leads the heat map and is marked; every rank has a row whose compute share is
    the truth's (sum of the rank's compute over the sum of its steps, within 0.1 point)."""
    text = open(dom, encoding="utf-8").read()
    if ('data-straggler="%s"' % straggler) not in text:
        bad.append("the banner does not name rank %s as the straggler" % straggler)
    rows = re.findall(r'<tr class="rank( straggler)?" data-rank="(\d+)">.*?</tr>', text, re.S)
    if not rows or rows[0] != (" straggler", straggler):
        bad.append("first row %s, want rank %s marked straggler" % (rows[:1], straggler))
    truths = sorted(f for f in os.listdir(truth_dir) if f.endswith(".json"))
    if len(rows) != len(truths):
        bad.append("%d rank rows, %d ranks generated" % (len(rows), len(truths)))
    for f in truths:
        t = json.load(open(os.path.join(truth_dir, f)))
        dur = sum(s["dur_us"] for s in t["steps"])
        want = 100 * sum(s["buckets_us"]["compute"] for s in t["steps"]) / dur
        m = re.search(r'<tr class="rank(?: straggler)?" data-rank="%d">.*?class="n heat" data-v="([0-9.]+)"' % t["rank"], text, re.S)
        if m is None or abs(float(m.group(1)) - want) > 0.1:
            bad.append("rank %d: compute %s %% on the page, %.2f %% in the truth" % (t["rank"], m and m.group(1), want))


FORWARD = ("## forward ##", "DistributedDataParallel.forward", "FullyShardedDataParallel.forward")


def pass_of(name):
    """The pass a host marker stands for (docs/trace.md, "Phases of a training step"), or None."""
    if name in FORWARD:
        return "forward"
    if name == "## backward ##" or name.startswith("autograd::engine::evaluate_function"):
        return "backward"
    if name == "## optimizer ##" or re.match(r"Optimizer\.(step|zero_grad)#", name):
        return "optimizer"
    return None


def union_len(spans, lo, hi, minus=()):
    """Length of the union of spans clipped to [lo, hi), less the union of minus."""
    def merged(ss):
        out = []
        for a, b in sorted((max(a, lo), min(b, hi)) for a, b in ss if min(b, hi) > max(a, lo)):
            if out and a <= out[-1][1]:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        return out
    keep, cut = merged(spans), merged(minus)
    total = 0.0
    for a, b in keep:
        total += b - a
        for c, d in cut:
            total -= max(0.0, min(b, d) - max(a, c))
    return total


def passes(dom, trace, truth_path):
    """Each step's pass times, computed here from the trace's host markers by the documented rule (the
    profiled process only: the one with ProfilerStep#; optimizer wins over forward, forward over backward),
    against the steps table and the overall table (mean over the steps; the generator makes no warm-up)."""
    text = open(dom, encoding="utf-8").read()
    opener = gzip.open if trace.endswith(".gz") else open
    events = [e for e in json.load(opener(trace, "rt", encoding="utf-8"))["traceEvents"] if e.get("ph") == "X"]
    pid = next(e["pid"] for e in events if e["name"].startswith("ProfilerStep#"))
    spans = {"forward": [], "backward": [], "optimizer": []}
    for e in events:
        k = pass_of(e["name"])
        if k and e["pid"] == pid and e.get("cat") != "gpu_user_annotation":
            spans[k].append((e["ts"], e["ts"] + e["dur"]))
    t = json.load(open(truth_path))
    rows = {}
    for m in re.finditer(r'<tr(?: class="warmup")?><td class="n">(\d+)</td>(.*?)</tr>', text):
        rows[int(m.group(1))] = [float(v) for v in re.findall(r'data-v="([0-9.]+)"', m.group(2))]
    sums = {k: 0.0 for k in spans}
    for st in t["steps"]:
        lo, hi = st["start_us"], st["start_us"] + st["dur_us"]
        want = {"optimizer": union_len(spans["optimizer"], lo, hi),
                "forward": union_len(spans["forward"], lo, hi, spans["optimizer"]),
                "backward": union_len(spans["backward"], lo, hi, spans["optimizer"] + spans["forward"])}
        got = rows.get(st["step"])
        if got is None or len(got) < 3:
            bad.append("step %d: no row with pass times in the steps table" % st["step"])
            continue
        for k, v in zip(("forward", "backward", "optimizer"), got[-3:]):
            sums[k] += want[k]
            if abs(v - want[k] / 1000) > 0.0015:
                bad.append("step %d %s: %.3f ms on the page, %.3f ms from the markers" % (st["step"], k, v, want[k] / 1000))
    n = len(t["steps"])
    for k in sums:
        m = re.search(r'<tr data-pass="%s">.*?data-v="([0-9.]+)"' % k, text)
        if m is None or abs(float(m.group(1)) - sums[k] / 1000 / n) > 0.0015:
            bad.append("%s per step %s on the page, %.3f ms from the markers" % (k, m and m.group(1), sums[k] / 1000 / n))
    if text.count('<g class="strip-bar">') != n:
        bad.append("%d bars in the phase strip, %d steps" % (text.count('<g class="strip-bar">'), n))


def print_pdf(pdf, low, high, word):
    """Text of each printed page by poppler's pdfinfo/pdftotext (tests/html/render.sh checks they exist)."""
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    if not int(low) <= pages <= int(high):
        bad.append("%d printed pages, expected %s to %s" % (pages, low, high))
    text = [subprocess.run(["pdftotext", "-f", str(i), "-l", str(i), pdf, "-"], capture_output=True, text=True,
                           check=True).stdout for i in range(1, pages + 1)]
    flat = [" ".join(t.split()) for t in text]
    if word not in flat[0] or "Fix:" not in flat[0]:
        bad.append("page 1 lacks the verdict (%r) or its fix: %r" % (word, flat[0][:300]))
    for hint in ("Hover a", "click a column", "Click a column", "The steps as a table"):
        if any(hint in t for t in flat):
            bad.append("%r printed: interactive hints are for the screen" % hint)
    if "Phases of the step" in " ".join(flat) and not any("marker" in t and "phase" in t for t in flat):
        bad.append("the folded steps table is not printed")
    # a chart lies between its heading and its caption: both on one page, the chart is not cut
    for head, caption in (("Steps", "Time per step by bucket"), ("Timeline of the median step", "The median step"),
                          ("Phases of the step", "Under each bar of the step chart"),
                          ("Buckets", "Before and after: the buckets")):
        on = [i for i, t in enumerate(flat) if caption in t]
        if on and not any(head in flat[i] for i in on):
            bad.append("%r is not on the page of its chart's caption %r (page %d)" % (head, caption, on[0] + 1))


def main():
    checks = {"wellformed": wellformed, "ran": ran, "source": source, "truth": truth, "tbp": tbp, "diff": diff,
              "job": job, "passes": passes, "print": print_pdf}
    if len(sys.argv) < 3 or sys.argv[1] not in checks:
        print(__doc__)
        return 2
    checks[sys.argv[1]](*sys.argv[2:])
    for line in bad:
        print("  %s: %s" % (sys.argv[1], line))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

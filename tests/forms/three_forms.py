#!/usr/bin/env python3
"""The three forms of one trace report agree (issue 21): the text, the JSON and the HTML of
`nextstep trace FILE` give, for every device, the same verdict, the same fix, the same next steps shown
under the verdict (title and bound, to the microsecond the text prints), the same verdict and fix for each
inference phase, the same notes (warm-up steps left out, ignored step markers), the same "why first" line
when the next step fixes another bucket than the headline's and, with --roofline, the same
words on the kernel buckets' roofs.

usage: three_forms.py TEXT JSON HTML        exit 0 when they agree, 1 with the differences on stdout
       three_forms.py --job TEXT JSON HTML  the same for a job report: its verdict, fix and next steps
       three_forms.py --diff TEXT JSON HTML the same for a diff: headline and BEFORE's predictions checked
       three_forms.py batch                 many checks in one process (a Python start each was a third of
                                            tests/forms/three-forms.sh's CPU): lines NAME<tab>KIND<tab>TEXT<tab>
                                            JSON<tab>HTML on stdin (KIND: trace, --job or --diff); for each, a line
                                            NAME<tab>STATUS<tab>DIFFERENCES (newlines as " | "), then "checked N"
"""
import contextlib
import html
import io
import json
import re
import sys
from html.parser import HTMLParser


def text_form(path):
    """Per device: (verdict, fix, [(title, ms)], warm-up steps); and the ignored-markers note."""
    devices, ignored = [], 0
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("roofline: "):
            break  # the --roofline section, after every device's report
        m = re.match(r"note: (\d+) step markers? of process", line)
        if m:
            ignored = int(m.group(1))
        m = re.match(r"^(\S.*?): (no verdict|start-up, not steady state|[a-z]+(?:-bound)?) \(.*?\) -> (.*) \((.*?)\)$", line)
        if m and not line.startswith(("next step:", "then:", "also:", "hint:")):
            word = m.group(2)
            verdict = "unfit" if word == "no verdict" else "startup" if word.startswith("start-up") else word
            devices.append({"verdict": verdict, "fix": m.group(3), "next": [], "warmup": 0, "phases": {},
                            "roofs": [], "batch": None, "why": None})
            continue
        if line.endswith("no verdict (the trace is unfit, above)"):
            devices.append({"verdict": "unfit", "fix": None, "next": [], "warmup": 0, "phases": {}, "roofs": [], "batch": None,
                            "why": None})
            continue
        m = re.match(r"^  (a larger batch \(.*)$", line)
        if m and devices:
            devices[-1]["batch"] = m.group(1)
            continue
        m = re.match(r"^  why first: (.*)$", line)
        if m and devices:
            devices[-1]["why"] = m.group(1)
            continue
        m = re.match(r"^  ((?:compute|memory)-bound ops: .*)$", line)
        if m and devices:
            devices[-1]["roofs"].append(m.group(1))
            continue
        m = re.match(r"^  (prefill|decode|mixed) \(\d+ steps?, [0-9.]+ ms each\): ([a-z]+(?:-bound)?) \(.*?\) -> (.*) \((.*?)\)$", line)
        if m and devices:
            devices[-1].setdefault("phases", {})[m.group(1)] = (m.group(2), m.group(3))
            continue
        m = re.match(r"^(next step|then): (.*?), (?:up to|about) ([0-9.]+) ms", line)
        if m and devices:
            devices[-1]["next"].append((m.group(2), round(float(m.group(3)), 3)))
        m = re.match(r"^  warm-up: (\d+) steps?", line)
        if m and devices:
            devices[-1]["warmup"] = int(m.group(1))
    return devices, ignored


LEAD_SHARE = 0.05  # NS_NEXT_STEP_LEAD_SHARE (include/nextstep/next_step.h)


def shown_next_steps(steps):
    """The next steps the text and the page show, from the JSON's ranked list (docs/next-step.md): the first
    known bound, and the second when it is at least half the first; none when the first is under 5 % of the
    step while a candidate holds more time than it, at least 5 %, with its bound unknown."""
    shown = [n for n in steps if n["gain_us"] is not None and n["gain_us"] > 0][:2]
    if shown and shown[0]["gain_share"] < LEAD_SHARE:
        step_us = shown[0]["gain_us"] / shown[0]["gain_share"]
        unknown = max([n.get("unknown_us") or 0 for n in steps] + [0])
        if unknown > shown[0]["gain_us"] and unknown >= LEAD_SHARE * step_us:
            return []
    if len(shown) == 2 and 2 * shown[1]["gain_us"] < shown[0]["gain_us"]:
        shown = shown[:1]
    flagged = [n for n in steps if n.get("shown")]
    if flagged != shown:
        raise SystemExit("next_steps: 'shown' marks %s, the rule gives %s" %
                         ([n["title"] for n in flagged], [n["title"] for n in shown]))
    return shown


def json_form(path):
    doc = json.load(open(path, encoding="utf-8"))
    unfit = doc["quality"]["grade"] == "unfit"
    devices = []
    for d in doc["devices"]:
        o = d["overall"]
        verdict = "unfit" if unfit else "startup" if d["startup"] else o["verdict"]
        fix = None if unfit else o["fix"]
        shown = shown_next_steps(o["next_steps"])
        devices.append({"verdict": verdict, "fix": fix,
                        "next": [(n["title"], round(n["gain_us"] / 1e3 + 1e-12, 3)) for n in shown],
                        "warmup": d["warmup"]["steps"] if d["warmup"] else 0,
                        "phases": {k: (v["verdict"], v["fix"]) for k, v in (d["step_phases"] or {}).items()},
                        "roofs": [r["text"] for r in o.get("kernel_roofs", [])],
                        "batch": o["batch_headroom"]["text"] if "batch_headroom" in o else None,
                        "why": o.get("next_step_why")})
    return devices, doc["ignored_step_markers"]


REGIME_WORDS = {"compute": "compute-bound", "memory": "memory-bound", "comm": "comm-bound",
                "dataloader": "dataloader-bound", "overhead": "overhead-bound", "idle": "idle"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.devices, self.ignored, self.stack = [], 0, []
        self.in_fix = self.in_title = self.in_phase_fix = self.in_roof = self.in_batch = self.in_why = False
        self.phase = None
        self.text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "") or ""
        if tag == "section" and "device" in cls.split():
            self.devices.append({"verdict": None, "fix": None, "next": [], "warmup": 0, "banner": False,
                                 "phases": {}, "roofs": [], "batch": None, "why": None})
        elif tag == "div" and "banner" in cls.split() and self.devices and not self.devices[-1]["banner"]:
            self.devices[-1]["banner"] = True
            r = a.get("data-regime")
            self.devices[-1]["verdict"] = r
        elif tag == "p" and cls == "fix" and self.devices and self.devices[-1]["fix"] is None:
            self.in_fix, self.text = True, ""
        elif tag == "li" and "shown" in cls.split() and self.devices:
            self.devices[-1]["next"].append([None, round(float(a["data-gain-us"]) / 1e3 + 1e-12, 3)])
        elif tag == "b" and self.devices and self.devices[-1]["next"] and self.devices[-1]["next"][-1][0] is None:
            self.in_title, self.text = True, ""
        elif tag == "tr" and a.get("data-phase") and self.devices:
            word = REGIME_WORDS[a["data-regime"]]
            self.phase = a["data-phase"]
            self.devices[-1]["phases"][self.phase] = (word, None)
        elif tag == "td" and cls == "fix" and self.phase:
            self.in_phase_fix, self.text = True, ""
        elif tag == "span" and cls == "warmup" and self.devices:
            self.devices[-1]["warmup"] = int(a["data-steps"])
        elif tag == "p" and cls == "batch" and self.devices:
            self.in_batch, self.text = True, ""
        elif tag == "p" and cls == "why-first" and self.devices:
            self.in_why, self.text = True, ""
        elif tag == "p" and cls == "roof-note" and self.devices:
            self.in_roof, self.text = True, ""
        elif tag == "p" and "ignored-markers" in cls.split():
            self.ignored = int(a.get("data-markers", "0"))

    def handle_endtag(self, tag):
        if tag == "p" and self.in_fix:
            self.in_fix = False
            self.devices[-1]["fix"] = self.text[len("Fix: "):] if self.text.startswith("Fix: ") else self.text
        if tag == "p" and self.in_batch:
            self.in_batch = False
            self.devices[-1]["batch"] = self.text
        if tag == "p" and self.in_why:
            self.in_why = False
            self.devices[-1]["why"] = self.text[len("why first: "):]
        if tag == "p" and self.in_roof:
            self.in_roof = False
            self.devices[-1]["roofs"].append(self.text)
        if tag == "td" and self.in_phase_fix:
            self.in_phase_fix = False
            self.devices[-1]["phases"][self.phase] = (self.devices[-1]["phases"][self.phase][0], self.text)
            self.phase = None
        if tag == "b" and self.in_title:
            self.in_title = False
            self.devices[-1]["next"][-1][0] = self.text

    def handle_data(self, data):
        if self.in_fix or self.in_title or self.in_phase_fix or self.in_roof or self.in_batch or self.in_why:
            self.text += data


def html_form(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    out = []
    for d in p.devices:
        words = {"startup": "startup", "unfit": "unfit"}
        verdict = words.get(d["verdict"]) or REGIME_WORDS[d["verdict"]]
        out.append({"verdict": verdict, "fix": None if verdict == "unfit" else d["fix"],
                    "next": [tuple(n) for n in d["next"]], "warmup": d["warmup"], "phases": d["phases"],
                    "roofs": d["roofs"], "batch": d.get("batch"), "why": d.get("why")})
    return out, p.ignored


def job_text(path):
    """The job's verdict line and its next step lines (the text before the rank table)."""
    job = None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"^job \(.*?\): (straggler-bound: rank (\d+)|[a-z]+(?:-bound)?)[ ,].*? -> (.*) \((.*?)\)$", line)
        if job is None and m:
            verdict = "straggler %s" % m.group(2) if m.group(2) else m.group(1)
            job = {"verdict": verdict, "fix": m.group(3), "next": []}
            continue
        m = re.match(r"^(next step|then): (.*?), (?:up to|about) ([0-9.]+) ms", line)
        if m and job is not None:
            job["next"].append((m.group(2), round(float(m.group(3)), 3)))
    return job


def job_json(path):
    j = json.load(open(path, encoding="utf-8"))["job"]
    verdict = ("straggler %d" % j["stragglers"][0]["rank"]) if j["stragglers"] else j["verdict"]
    shown = shown_next_steps(j["next_steps"])
    return {"verdict": verdict, "fix": j["fix"],
            "next": [(n["title"], round(n["gain_us"] / 1e3 + 1e-12, 3)) for n in shown]}


class JobPage(Page):
    """The job's article only: its banner, fix and shown next steps."""

    def __init__(self):
        super().__init__()
        self.in_job = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article" and a.get("class") == "job":
            self.in_job = True
            self.devices.append({"verdict": None, "fix": None, "next": [], "warmup": 0, "banner": False,
                                 "phases": {}, "roofs": [], "batch": None})
            return
        if not self.in_job:
            return
        if tag == "div" and "banner" in (a.get("class") or "").split() and not self.devices[-1]["banner"]:
            self.devices[-1]["banner"] = True
            r = a.get("data-regime")
            self.devices[-1]["verdict"] = ("straggler %s" % a.get("data-straggler") if r == "straggler"
                                           else REGIME_WORDS.get(r, r))
            return
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "article":
            self.in_job = False
        if self.in_job or tag != "article":
            super().handle_endtag(tag)


def job_html(path):
    p = JobPage()
    p.feed(open(path, encoding="utf-8").read())
    d = p.devices[0] if p.devices else {"verdict": None, "fix": None, "next": []}
    return {"verdict": d["verdict"], "fix": d["fix"], "next": [tuple(n) for n in d["next"]]}


def main_job(paths):
    forms = {"text": job_text(paths[0]), "json": job_json(paths[1]), "html": job_html(paths[2])}
    bad = []
    ref = forms["json"]
    for name, d in forms.items():
        if d is None:
            bad.append("%s: no job" % name)
            continue
        for key in ("verdict", "fix", "next"):
            if key == "next" and [t for t, _ in d[key]] == [t for t, _ in ref[key]] and all(
                    abs(x - y) <= 0.0011 for (_, x), (_, y) in zip(d[key], ref[key])):
                continue
            if d[key] != ref[key]:
                bad.append("job %s: %s %r, json %r" % (key, name, d[key], ref[key]))
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


def diff_text(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    return {"headline": lines[0], "predictions": [l[len("prediction: "):] for l in lines
                                                  if l.startswith("prediction: ")]}


def diff_json(path):
    """The headline is the text's own; JSON gives the checks: the shown ones (applied, or the first)."""
    doc = json.load(open(path, encoding="utf-8"))
    checks = [c for i, c in enumerate(doc.get("next_steps_checked") or []) if c["applied"] or i == 0]
    # predicted_us null: the report gave that fix no bound
    return {"checks": [(c["title"], None if c["predicted_us"] is None else round(c["predicted_us"] / 1e3, 3),
                        round(c["achieved_us"] / 1e3, 3) if c["applied"] else None) for c in checks],
            "exceeded": doc.get("prediction_exceeded", False)}


class DiffPage(HTMLParser):
    def __init__(self):
        super().__init__()
        self.headline, self.predictions, self.checks, self.exceeded = None, [], [], False
        self.where, self.text = None, ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "p" and "headline" in cls and self.headline is None:
            self.where, self.text = "headline", ""
        elif tag == "li" and "prediction" in cls:
            self.where, self.text = "prediction", ""
            if "exceeded" in cls:
                self.exceeded = True
            else:
                predicted = a.get("data-predicted-us")
                self.checks.append((None if predicted is None else round(float(predicted) / 1e3, 3),
                                    round(float(a["data-achieved-us"]) / 1e3, 3) if a["data-applied"] == "1"
                                    else None))

    def handle_endtag(self, tag):
        if self.where == "headline" and tag == "p":
            self.headline = self.text
        elif self.where == "prediction" and tag == "li":
            self.predictions.append(self.text)
        else:
            return
        self.where = None

    def handle_data(self, data):
        if self.where:
            self.text += data


def main_diff(paths):
    text, doc, page = diff_text(paths[0]), diff_json(paths[1]), DiffPage()
    page.feed(open(paths[2], encoding="utf-8").read())
    bad = []
    if page.headline != text["headline"]:
        bad.append("headline: html %r, text %r" % (page.headline, text["headline"]))
    if page.predictions != text["predictions"]:
        bad.append("predictions: html %r, text %r" % (page.predictions, text["predictions"]))
    want = [(p, a) for _, p, a in doc["checks"]]
    if page.checks != want:
        bad.append("checks: html %r, json %r" % (page.checks, want))
    shown = [c for c in text["predictions"] if not c.startswith("the step saved")]
    def says(line, title, predicted):
        if predicted is None:
            return line.startswith("%s: bound unknown, " % title)
        return (line.startswith("%s: predicted up to %.3f ms" % (title, predicted))
                or line.startswith("%s: predicted about %.3f ms" % (title, predicted)))
    if len(shown) != len(doc["checks"]) or any(not says(line, t, p) for line, (t, p, _) in zip(shown, doc["checks"])):
        bad.append("checks: text %r, json %r" % (shown, doc["checks"]))
    if page.exceeded != doc["exceeded"] or (len(shown) != len(text["predictions"])) != doc["exceeded"]:
        bad.append("exceeded: html %r, text %r, json %r" % (page.exceeded, len(shown) != len(text["predictions"]),
                                                            doc["exceeded"]))
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


def main_batch():
    checked = 0
    for line in sys.stdin:
        name, kind, *paths = line.rstrip("\n").split("\t")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                status = {"trace": main_trace, "--job": main_job, "--diff": main_diff}[kind](paths)
            except Exception as e:  # one check's crash is that check's failure, not the batch's
                print("  %s: %s" % (type(e).__name__, e))
                status = 1
        print("%s\t%d\t%s" % (name, status, out.getvalue().strip().replace("\n", " | ")))
        checked += 1
    print("checked %d" % checked)
    return 0


def main():
    if sys.argv[1] == "batch":
        return main_batch()
    if sys.argv[1] == "--diff":
        return main_diff(sys.argv[2:5])
    if sys.argv[1] == "--job":
        return main_job(sys.argv[2:5])
    return main_trace(sys.argv[1:4])


def main_trace(paths):
    forms = {"text": text_form(paths[0]), "json": json_form(paths[1]), "html": html_form(paths[2])}
    bad = []
    ref_devices, ref_ignored = forms["json"]
    for name, (devices, ignored) in forms.items():
        if ignored != ref_ignored:
            bad.append("%s: %s ignored step markers, json %s" % (name, ignored, ref_ignored))
        if len(devices) != len(ref_devices):
            bad.append("%s: %d devices, json %d" % (name, len(devices), len(ref_devices)))
            continue
        for i, (d, r) in enumerate(zip(devices, ref_devices)):
            for key in ("verdict", "fix", "next", "warmup", "phases", "roofs", "batch", "why"):
                if key == "next" and [t for t, _ in d[key]] == [t for t, _ in r[key]] and all(
                        abs(x - y) <= 0.0011 for (_, x), (_, y) in zip(d[key], r[key])):
                    continue  # the same steps, their bounds within the text's last printed digit
                if d[key] != r[key]:
                    bad.append("device %d %s: %s %r, json %r" % (i, key, name, d[key], r[key]))
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# A job routes each rank as the rank's own report does (docs/job.md, rule 7): the evidence the trace report
# routes by travels in the rank summary. The fixtures are tests/job/make-evidence-job.py's: two ranks of the
# same single-trace fixture (rank 0 and 1 of 2), so the job has no straggler and its verdict is the median
# split's, whose route is the reference rank's own. For each, from the traces (`trace DIR`) and from the rank
# summaries (`job`), text and JSON:
# - the job's verdict fix and first next step (route, bound, "about" or "up to") are those of `trace --rank 0`;
# - each rank's JSON verdict fix and its device's next_steps are its own report's;
# - and they are what the rank's own rules give, worked by hand from the fixture:
#   autocast (trace_fp32_gemm): per 100 us step, an A100's ampere_sgemm (fp32 SIMT) holds all 60 us of compute;
#     A100 bf16 312 vs fp32 19.5 TFLOP/s, R = 16: the fp32 route, its bound 60 x 1.0 x (1 - 1/16) = 56.25 us
#     a step, an estimate ("about 0.056 ms a step (56.2%)").
#   python (trace_python_frames, arithmetic in its .expect.json): idle 42 us a step, all host_gap, every bit of
#     it inside frames (train_step 15, main 12, log_loss 10 us, no preprocessing, no torch.compile): the
#     between-ops route naming them, up to 0.042 ms a step (42.0%).
#   layout (trace_layout_transform): memory kernels a step nchwToNhwc 30 + nhwcToNchw 20 + bn 20 = 70 us, the
#     layout transforms 50/70 = 71% (at least 10%): channels_last, memory-bound (70%).
#   tp (trace_tp_train_desc, arithmetic in its .expect.json): all-reduces of the group described mesh_tp run
#     alone 420 us a step (42%); the ranks start them together, so the job's split makes all of it transfer
#     (rank 0 comm: 42% exposed = 0% waiting + 42% transfer): the tensor-parallel route is the transfer's,
#     titled "exposed comm transfer" where the rank's own says "exposed communication", up to 0.420 ms a step.
#   optimizer (trace_optimizer_fused, worked in docs/next-step.md, "The optimizer's launches"): the fused AdamW
#     step's 5 us of launches and 5 us of idle.optimizer are the optimizer's candidate, up to 0.010 ms a step,
#     worded for a fused AdamW; launch overhead keeps the other 6 us (the job gave it all 11 us before).
# A summary without the evidence (written before it was carried) still reads and routes as before: the stock
# fixes.
# Run from the repository root: evidence.sh NEXTSTEP_BINARY SUMMARIZE_BINARY
set -u
bin=$1
summarize=$2
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

expect() { # NAME: the hand-worked expectations above, as python
	case $1 in
	autocast) echo 'fix_has = ["hold 100% of the compute time", "16.0x its fp32 peak", "torch.autocast"]; title = "compute-bound kernels"; gain = 56.25; estimate = True' ;;
	python) echo 'fix_has = ["the GPU waits on Python between ops (train_step 0.015 ms, main 0.012 ms, log_loss 0.010 ms)"]; title = "unrecorded host time"; gain = 42.0; estimate = False' ;;
	layout) echo 'fix_has = ["hold 71% of the memory-bound kernel time", "channels_last"]; title = None; gain = None; estimate = None' ;;
	optimizer) echo 'fix_has = []; title = None; gain = None; estimate = None; extra = {"optimizer step": (10.0, 5.0, "AdamW already runs fused"), "launch overhead": (6.0, None, "the GPU runs the ops faster")}' ;;
	tp) echo 'fix_has = ["these collectives are tensor-parallel activations"]; title = "exposed communication"; gain = 420.0; estimate = False' ;;
	esac
}

check() { # NAME OWN.json JOB.json JOB.txt OWN.txt
	python3 - "$@" <<PY
import json, sys
name, own_path, job_path, job_txt, own_txt = sys.argv[1:]
$(expect "$1")
own = json.load(open(own_path))["devices"][0]["overall"]
# the job splits exposed comm into waiting (none here) and transfer: the same candidate, titled for it
job_title = lambda t: "exposed comm transfer" if t == "exposed communication" else t
steps = lambda l: [(job_title(n["title"]), n["fix"], n["gain_us"], n["rule"], n.get("estimate")) for n in l]
doc = json.load(open(job_path))
job = doc["job"]
for s in fix_has:
    assert s in own["fix"], ("own", s, own["fix"])
assert job["stragglers"] == [], job["stragglers"]
assert job["fix"] == own["fix"], (job["fix"], own["fix"])
top, mine = job["next_steps"][0], own["next_steps"][0]
assert job_title(mine["title"]) == top["title"], (top["title"], mine["title"])
for k in ("fix", "gain_us", "rule"):
    assert top[k] == mine[k], (k, top[k], mine[k])
assert top.get("estimate") == mine.get("estimate"), (top.get("estimate"), mine.get("estimate"))
for t, (g, launch, words) in globals().get("extra", {}).items():
    n = [x for x in job["next_steps"] if x["title"] == t]
    assert len(n) == 1 and abs(n[0]["gain_us"] - g) < 0.01 and n[0]["fix"].startswith(words), (t, n)
    assert launch is None or abs(n[0]["launch_us"] - launch) < 0.01, (t, n)
if title is not None:
    assert mine["title"] == title and abs(mine["gain_us"] - gain) < 0.01, mine
    assert bool(mine.get("estimate")) == estimate, mine
for r in doc["ranks"]:
    assert r["verdict"]["fix"] == own["fix"], (r["rank"], r["verdict"]["fix"])
    assert steps(r["devices"][0]["overall"]["next_steps"]) == steps(own["next_steps"]), r["rank"]
# text: the verdict line's fix and the next step line are the rank's own
line = lambda path, head: [l.split(" -> ", 1)[1] for l in open(path) if l.startswith(head)]
verdict = [l.split(" -> ", 1)[1] for l in open(job_txt) if l.startswith("job (2 ranks): ")]
assert verdict == line(own_txt, "rank 0 dev 0: "), (verdict, line(own_txt, "rank 0 dev 0: "))
nxt = lambda path: [l.replace("next step: exposed communication,", "next step: exposed comm transfer,")
                    for l in open(path) if l.startswith("next step: ")]
assert nxt(job_txt) == nxt(own_txt), (nxt(job_txt), nxt(own_txt))
print("ok: %s: %s" % (name, job_path))
PY
}

for name in autocast python layout tp optimizer; do
	dir=tests/data/job-evidence-$name
	fixture=$(case $name in autocast) echo trace_fp32_gemm ;; python) echo trace_python_frames ;;
		layout) echo trace_layout_transform ;; tp) echo trace_tp_train_desc ;;
		optimizer) echo trace_optimizer_fused ;; esac)
	python3 tests/job/make-evidence-job.py "tests/data/$fixture.json" "$tmp/$name"
	for r in 0 1; do
		cmp -s "$tmp/$name/rank-$r.json" "$dir/rank-$r.json"
		t_check "$name: rank-$r.json is the generator's" $? "$dir/rank-$r.json differs"
	done
	"$bin" trace --rank 0 --format json "$dir" >"$tmp/$name.own.json"
	"$bin" trace --rank 0 "$dir" | sed 1d >"$tmp/$name.own.txt" # its "==> file <==" header left out
	"$bin" trace --format json "$dir" >"$tmp/$name.job.json"
	"$bin" trace "$dir" >"$tmp/$name.job.txt"
	check $name "$tmp/$name.own.json" "$tmp/$name.job.json" "$tmp/$name.job.txt" "$tmp/$name.own.txt"
	t_check "$name: trace DIR routes as trace --rank 0" $? "see above"
	for r in 0 1; do "$summarize" "$dir/rank-$r.json"; done >"$tmp/$name.ndjson"
	"$bin" job --format json "$tmp/$name.ndjson" >"$tmp/$name.sjob.json"
	"$bin" job "$tmp/$name.ndjson" >"$tmp/$name.sjob.txt"
	check $name "$tmp/$name.own.json" "$tmp/$name.sjob.json" "$tmp/$name.sjob.txt" "$tmp/$name.own.txt"
	t_check "$name: job SUMMARIES routes as trace --rank 0" $? "see above"
	# -v: the findings' lines are the rank's own, byte for byte (the two ranks are the same trace, so the
	# job's median split is the rank's); the optimizer pass's line is left out: a summary has no passes
	"$bin" trace -v --rank 0 "$dir" | grep '^finding: ' | grep -v '^finding: optimizer step' >"$tmp/$name.own.f"
	"$bin" job -v "$tmp/$name.ndjson" | grep '^finding: ' >"$tmp/$name.sjob.f"
	cmp -s "$tmp/$name.own.f" "$tmp/$name.sjob.f"
	t_check "$name: job -v's finding lines are trace -v --rank 0's" $? "$(diff "$tmp/$name.own.f" "$tmp/$name.sjob.f")"
done

# Without the evidence key (a summary of before it): the stock routes, as the job gave them then.
sed 's/,"evidence":{[^}]*\({[^}]*}[^}]*\)*}//' "$tmp/autocast.ndjson" >"$tmp/old.ndjson"
grep -q '"evidence"' "$tmp/old.ndjson"
t_check "old summary: no evidence key left" $((!$?)) "the sed left it"
"$bin" job "$tmp/old.ndjson" >"$tmp/old.txt"
grep -q '^job (2 ranks): compute-bound (60%) -> write/use a fused kernel or lower precision' "$tmp/old.txt"
t_check "old summary: stock compute route" $? "$(head -2 "$tmp/old.txt")"
t_finish job_evidence

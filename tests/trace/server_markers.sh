#!/usr/bin/env bash
# Iterations from inference-server markers, checked against a generator's truth: make-trace lays out steps with an
# exact split; server_markers.py renames each ProfilerStep# into one vLLM or SGLang iteration marker with a phase it
# picks. nextstep must then take the markers as the steps (step_source "server"), give each step make-trace's
# window and buckets to the nanosecond and the phase the marker says, and sum each phase's steps (step_phases)
# to the truth's steps of that phase. Run from the repository root: server_markers.sh NEXTSTEP_BINARY
set -u
bin=$1
tools=../shared/tools
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$tools/make-trace"

for c in "vllm|--style new --steps 8 --seed 11" "vllm-today|--style new --steps 8 --seed 14" \
	"vllm-v1|--style new --steps 5 --seed 12 --overlap 0.3" \
	"sglang|--style old --steps 6 --seed 13"; do
	family=${c%%|*}
	opts=${c#*|}
	# shellcheck disable=SC2086
	if ! "$tools/make-trace" --out "$tmp/gen.json" --truth "$tmp/truth.json" $opts 2>"$tmp/gen.err"; then
		echo "FAIL $family: make-trace: $(cat "$tmp/gen.err")"
		fail=$((fail + 1))
		continue
	fi
	python3 "$here/server_markers.py" "$family" "$tmp/gen.json" "$tmp/server.json" "$tmp/phases.json"
	if ! "$bin" trace --format json --steps "$tmp/server.json" >"$tmp/report.json" 2>"$tmp/err"; then
		echo "FAIL $family: nextstep failed: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	if python3 - "$tmp/report.json" "$tmp/truth.json" "$tmp/phases.json" <<'PY'; then
import json, sys
rep, truth, phases = (json.load(open(p)) for p in sys.argv[1:4])
NS = 0.0011
BUCKETS = ("compute", "memory", "comm", "dataloader", "overhead", "idle")
bad = []
if rep["step_source"] != "server":
    bad.append("step_source %r, not server" % rep["step_source"])
dev = rep["devices"][0]
steps, want = dev["steps"], sorted(truth["steps"], key=lambda s: s["start_us"])
if len(steps) != len(want):
    bad.append("%d steps, truth has %d" % (len(steps), len(want)))
for i, (g, t) in enumerate(zip(steps, want)):
    if g["step"] != i:
        bad.append("step %d numbered %r" % (i, g["step"]))
    if g["phase"] != phases[i]:
        bad.append("step %d phase %r, marker says %r" % (i, g["phase"], phases[i]))
    for k in ("start_us", "dur_us"):
        if abs(g[k] - t[k]) > NS:
            bad.append("step %d %s %.3f != truth %.3f" % (i, k, g[k], t[k]))
    for k in BUCKETS:
        if abs(g["buckets_us"][k] - t["buckets_us"][k]) > NS:
            bad.append("step %d %s %.3f != truth %.3f" % (i, k, g["buckets_us"][k], t["buckets_us"][k]))
for phase in ("prefill", "decode", "mixed"):
    mine = [t for t, p in zip(want, phases) if p == phase]
    got = (dev["step_phases"] or {}).get(phase)
    if not mine:
        if got is not None:
            bad.append("phase %s reported with no step" % phase)
        continue
    if got is None or got["steps"] != len(mine):
        bad.append("phase %s: %r steps, truth %d" % (phase, got and got["steps"], len(mine)))
        continue
    if abs(got["dur_us"] - sum(t["dur_us"] for t in mine)) > NS * len(mine):
        bad.append("phase %s dur %.3f" % (phase, got["dur_us"]))
    for k in BUCKETS:
        if abs(got["buckets_us"][k] - sum(t["buckets_us"][k] for t in mine)) > NS * len(mine):
            bad.append("phase %s %s %.3f" % (phase, k, got["buckets_us"][k]))
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
		pass=$((pass + 1))
	else
		echo "FAIL $family"
		fail=$((fail + 1))
	fi
done
t_finish "server markers"

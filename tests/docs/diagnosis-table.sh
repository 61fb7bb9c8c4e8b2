#!/usr/bin/env bash
# The before -> after table of docs/diagnosis.md: every shared trace and a few make-trace cases, read by two
# builds of nextstep, one markdown row each (quality, verdict, next step). Not a ctest: it needs ../shared and a
# second build.
#   tests/docs/diagnosis-table.sh OLD_NEXTSTEP NEW_NEXTSTEP
# OLD_NEXTSTEP is the build just before issue 25's first commit, e.g.:
#   git worktree add --detach /tmp/old 6b83afa && cmake -S /tmp/old -B /tmp/old/build && cmake --build /tmp/old/build --target nextstep
set -u
old=$1 new=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=$root/../shared
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gen=$shared/tools/make-trace
"$gen" --out "$tmp/default.json" --seed 1 >/dev/null 2>&1
"$gen" --out "$tmp/dataloader.json" --seed 2 --split compute=0.3,memory=0.1,comm=0,dataloader=0.4,overhead=0.1,idle=0.1 >/dev/null 2>&1
"$gen" --out "$tmp/dataloader_fixed.json" --seed 2 --split compute=0.3,memory=0.1,comm=0,dataloader=0.4,overhead=0.1,idle=0.1 --remove dataloader >/dev/null 2>&1
mkdir "$tmp/job"
"$gen" --out "$tmp/job" --ranks 4 --straggler 2 --seed 3 >/dev/null 2>&1

# One cell: quality grade; then per device "verdict; next step (share)".
summarise() {
	python3 - "$1" <<'PY'
import json, sys
def short(fix, n=60):
    fix = fix or "-"
    return fix if len(fix) <= n else fix[:n].rstrip() + "..."
try:
    doc = json.load(open(sys.argv[1]))
except Exception:
    print("(not read) | | "); sys.exit()
if "job" in doc:
    j = doc["job"]
    top = [n for n in j.get("next_steps", []) if n.get("gain_us")]
    strag = j.get("stragglers") or []
    verdict = ("straggler rank %d (%s)" % (strag[0]["rank"], strag[0]["kind"])) if strag else j.get("verdict")
    verdict += ": " + short(j.get("fix"))
    nxt = "%s (%.1f%%)" % (top[0]["title"], 100 * top[0]["gain_share"]) if top else "-"
    print("%s | job: %s | %s" % (j.get("quality", "-"), verdict, nxt)); sys.exit()
grade = doc.get("quality", {}).get("grade", "-")
verdicts, nexts = [], []
for d in doc.get("devices", []):
    o = d["overall"]
    v = "unfit" if grade == "unfit" else "start-up" if d.get("startup") else o.get("verdict") or "-"
    if v not in ("unfit", "start-up", "-"):
        v += ": " + short(o.get("fix"))
    ph = d.get("step_phases") or {}
    if "decode" in ph:
        v += " (decode: %s: %s)" % (ph["decode"].get("verdict"), short(ph["decode"].get("fix"), 40))
    verdicts.append(v)
    top = [n for n in o.get("next_steps") or [] if n.get("gain_us")]
    nexts.append("%s (%.1f%%)" % (top[0]["title"], 100 * top[0]["gain_share"]) if top else "-")
print("%s | %s | %s" % (grade, "; ".join(verdicts) or "no device", "; ".join(nexts) or "-"))
PY
}

row() { # name, then the trace arguments
	local name=$1
	shift
	"$old" trace --format json "$@" >"$tmp/old.json" 2>/dev/null
	"$new" trace --format json "$@" >"$tmp/new.json" 2>/dev/null
	printf '| %s | %s | %s |\n' "$name" "$(summarise "$tmp/old.json")" "$(summarise "$tmp/new.json")"
}

echo "| trace | before: quality | verdict: fix | next step | after: quality | verdict: fix | next step |"
echo "|---|---|---|---|---|---|---|"
for t in "$shared"/traces/tbp/*.json.gz "$shared"/traces/hta/*.json.gz "$shared"/traces/nsys/*.sqlite; do
	row "$(basename "$(dirname "$t")")/$(basename "$t")" "$t"
done
for t in default dataloader dataloader_fixed; do
	row "make-trace $t" "$tmp/$t.json"
done
row "make-trace 4 ranks, straggler 2" "$tmp/job"
# this round's hand-written fixtures (tests/data): the cases the shared traces do not have
for t in trace_period trace_vllm_outside trace_decode_small_m trace_tp_decode trace_tp_train_desc \
	trace_tp_train_forward trace_dp_train_backward; do
	row "tests/data/$t" "$root/tests/data/$t.json"
done
for t in job-jitter job-jitter-trivial job-jitter-alloc; do
	row "tests/data/$t" "$root/tests/data/$t"
done
# a rank alone: one trace's host stalls and recurring allocator set-up (no peers to compare with)
for t in job-jitter job-jitter-alloc; do
	row "tests/data/$t/rank-2.json alone" "$root/tests/data/$t/rank-2.json"
done

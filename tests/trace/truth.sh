#!/usr/bin/env bash
# nextstep's per-step split of generated traces against the generator's ground truth, to the nanosecond.
# ../shared/tools/make-trace lays each step out phase by phase so its split is exact by construction (--truth);
# ../shared/tools/check-trace-truth re-derives it independently (run once here to show the definition holds).
# Covers new/old category styles, overlapped and fully exposed comm, plain and gzip, 1/3/7 steps, skewed splits,
# and two ranks with a straggler. Run from the repository root: truth.sh NEXTSTEP_BINARY
set -u
bin=$1
tools=../shared/tools
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$tools/make-trace"

# name | make-trace options (the output names are added)
cases=(
	"new_plain_3_steps|--style new --steps 3"
	"new_gzip_7_steps_no_overlap|--style new --steps 7 --overlap 0 --seed 3"
	"new_gzip_1_step_mostly_hidden|--style new --steps 1 --overlap 0.8 --seed 5"
	"old_plain_1_step|--style old --steps 1 --seed 2"
	"old_gzip_3_steps|--style old --steps 3 --overlap 0.3 --seed 4"
	"old_plain_7_steps_no_overlap|--style old --steps 7 --overlap 0 --seed 6"
	"new_input_bound|--steps 3 --split compute=0.2,memory=0.1,comm=0.05,dataloader=0.5,overhead=0.1,idle=0.05 --seed 7"
	"old_memory_bound|--style old --steps 3 --split compute=0.2,memory=0.5,comm=0.05,dataloader=0.05,overhead=0.1,idle=0.1"
	"new_overhead_bound|--steps 3 --split compute=0.2,memory=0.1,comm=0.05,dataloader=0.05,overhead=0.5,idle=0.1 --seed 8"
	"new_comm_bound|--steps 3 --split compute=0.25,memory=0.1,comm=0.5,dataloader=0.05,overhead=0.05,idle=0.05 --overlap 0.2"
)

compare() { # name trace truth
	if ! "$bin" trace --format json --steps "$2" >"$tmp/report.json" 2>"$tmp/err"; then
		echo "FAIL $1: nextstep failed: $(cat "$tmp/err")"
		return 1
	fi
	python3 "$here/check_split.py" truth "$tmp/report.json" "$3" && python3 "$here/check_split.py" sanity "$tmp/report.json" &&
		python3 "$here/check_split.py" next "$tmp/report.json" "$3" ||
		{ echo "FAIL $1"; return 1; }
}

for c in "${cases[@]}"; do
	name=${c%%|*}
	opts=${c#*|}
	ext=json
	case $name in *gzip*) ext=json.gz ;; esac
	# shellcheck disable=SC2086
	if ! "$tools/make-trace" --out "$tmp/$name.$ext" --truth "$tmp/$name.truth.json" $opts 2>"$tmp/gen.err"; then
		echo "FAIL $name: make-trace: $(cat "$tmp/gen.err")"
		fail=$((fail + 1))
		continue
	fi
	if compare "$name" "$tmp/$name.$ext" "$tmp/$name.truth.json"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	rm -f "$tmp/$name.$ext"
done

# Two ranks, rank 1 a straggler: same windows, rank 1 computes longer, rank 0 waits in exposed NCCL.
for style in new old; do
	name=ranks_2_straggler_1_$style
	if ! "$tools/make-trace" --out "$tmp/$name/" --truth "$tmp/$name/" --ranks 2 --straggler 1 --steps 3 --style $style 2>"$tmp/gen.err"; then
		echo "FAIL $name: make-trace: $(cat "$tmp/gen.err")"
		fail=$((fail + 1))
		continue
	fi
	for r in 0 1; do
		if compare "$name rank $r" "$tmp/$name/rank-$r.pt.trace.json" "$tmp/$name/rank-$r.truth.json"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
	done
	comm0=$("$bin" trace --format json "$tmp/$name/rank-0.pt.trace.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["overall"]["split"]["comm"])')
	comm1=$("$bin" trace --format json "$tmp/$name/rank-1.pt.trace.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["overall"]["split"]["comm"])')
	if python3 -c "import sys; sys.exit(0 if $comm0 > $comm1 else 1)"; then
		pass=$((pass + 1))
	else
		echo "FAIL $name: the waiting rank 0 should show more exposed comm ($comm0) than the straggler ($comm1)"
		fail=$((fail + 1))
	fi
done

# A perfect data-loader fix (--remove dataloader: the same trace without the loader's phase): diff says the
# fix achieved its whole bound, the bound is the truth's loader time a step, and no saving exceeds it.
"$tools/make-trace" --out "$tmp/before.json" --truth "$tmp/before.truth.json" --steps 4 --seed 9 2>/dev/null
"$tools/make-trace" --out "$tmp/after.json" --truth "$tmp/after.truth.json" --steps 4 --seed 9 --remove dataloader 2>/dev/null
if "$bin" diff --format json "$tmp/before.json" "$tmp/after.json" >"$tmp/diff.json" &&
	python3 - "$tmp/diff.json" "$tmp/before.truth.json" "$tmp/after.truth.json" <<'PY'; then
import json, sys
d, b, a = (json.load(open(p)) for p in sys.argv[1:])
n = b["overall"]["steps"]
want = b["overall"]["buckets_us"]["dataloader"] / n
saved = (b["overall"]["dur_us"] - a["overall"]["dur_us"]) / n
c = [c for c in d["next_steps_checked"] if c["bucket"] == "dataloader"]
ok = len(c) == 1 and c[0]["applied"] and abs(c[0]["predicted_us"] - want) <= 0.01 * want \
    and abs(c[0]["achieved_us"] - saved) <= 0.01 * saved and not d["prediction_exceeded"] \
    and not any(x["applied"] for x in d["next_steps_checked"] if x["bucket"] != "dataloader")
if not ok:
    print("FAIL perfect data-loader fix: want bound %.3f and achieved %.3f us, got %s" % (want, saved, c))
sys.exit(0 if ok else 1)
PY
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi

# The independent re-derivation agrees with the generator on one trace (the definition the truth files use).
"$tools/make-trace" --out "$tmp/check.json.gz" --truth "$tmp/check.truth.json" --steps 3 2>/dev/null
if "$tools/check-trace-truth" "$tmp/check.json.gz" "$tmp/check.truth.json" >"$tmp/ctt.out"; then
	pass=$((pass + 1))
else
	echo "FAIL check-trace-truth disagrees with make-trace:"
	cat "$tmp/ctt.out"
	fail=$((fail + 1))
fi

t_finish "trace truth"

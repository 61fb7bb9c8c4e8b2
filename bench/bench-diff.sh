#!/usr/bin/env bash
# `nextstep diff` reads its two sides at once, on two threads. This measures, in the same run, reading each of two
# generated traces alone (`nextstep trace --format json`) and diffing them, and prints the ratio of the diff's
# wall time to that of the larger trace alone (about 1 when the two reads overlap fully on two free cores, about 2
# when they do not) and to the two reads one after the other. Median of 3 runs; CPU seconds too, since on a
# shared machine wall time also measures the neighbours. Traces go under $TMPDIR (default /tmp).
# Usage: bench/bench-diff.sh NEXTSTEP_BINARY [SIZE_MB]      (default 200 MB per trace; the issue asks for 1000)
set -euo pipefail
bin=${1:?usage: bench-diff.sh NEXTSTEP_BINARY [SIZE_MB]}
mb=${2:-200}
src=$(cd "$(dirname "$0")/.." && pwd)
gen=$src/../shared/tools/make-trace
work=${TMPDIR:-/tmp}/nextstep-bench-diff
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch
if [ ! -x "$gen" ]; then
	echo "bench-diff: ../shared/tools/make-trace not found" >&2
	exit 1
fi

median() { sort -n | sed -n 2p; }

# wall and CPU seconds of one command, from GNU time
run_once() { # command...
	/usr/bin/time -f '%e %U %S' -o "$scratch/time.txt" "$@" >/dev/null
	awk '{ print $1, $2 + $3 }' "$scratch/time.txt"
}

measure() { # label command... -> prints the line, sets $wall
	local label=$1 runs cpu
	shift
	runs=$(for _ in 1 2 3; do run_once "$@"; done)
	wall=$(echo "$runs" | awk '{ print $1 }' | median)
	cpu=$(echo "$runs" | awk '{ print $2 }' | median)
	printf '%-34s wall %7.2f s  cpu %7.2f s\n' "$label" "$wall" "$cpu"
}

before=$work/before-${mb}mb.json
after=$work/after-${mb}mb.json
bench_make_trace "$before" "$gen" --target-mb "$mb" --seed 1 \
	--split compute=0.45,memory=0.1,comm=0.05,dataloader=0.3,overhead=0.05,idle=0.05
bench_make_trace "$after" "$gen" --target-mb "$mb" --seed 1 \
	--split compute=0.45,memory=0.1,comm=0.05,dataloader=0.02,overhead=0.05,idle=0.05
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg); traces: $(du -m "$before" | cut -f1) MB and $(du -m "$after" | cut -f1) MB"

measure "trace BEFORE alone" "$bin" trace --format json "$before"
t_before=$wall
measure "trace AFTER alone" "$bin" trace --format json "$after"
t_after=$wall
measure "diff BEFORE AFTER (two threads)" "$bin" diff --format json "$before" "$after"
t_diff=$wall
awk -v b="$t_before" -v a="$t_after" -v d="$t_diff" 'BEGIN {
	larger = b > a ? b : a
	printf "diff / larger trace alone: %.2f   diff / both one after the other: %.2f\n", d / larger, d / (a + b) }'

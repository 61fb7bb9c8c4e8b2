#!/usr/bin/env bash
# What `trace --roofline` costs: CPU seconds and peak RSS of `nextstep trace --format json` on a generated ~1 GB
# trace (no shapes recorded: the cost of collecting and linking every op and kernel) and on the TensorBoard
# plugin's ResNet-50 capture (shapes recorded: every op modelled), without and with --roofline, each the median
# of 5 runs interleaved, and the ratio. With a second binary (a baseline build), it also times that one without
# --roofline, so the cost of the reader's new arguments shows as a ratio measured in the same run.
# Usage: bench/bench-roofline.sh NEXTSTEP_BINARY [BASELINE_BINARY]
set -euo pipefail
bin=${1:?usage: bench-roofline.sh NEXTSTEP_BINARY [BASELINE_BINARY]}
base=${2:-}
src=$(cd "$(dirname "$0")/.." && pwd)
tools=$src/../shared/tools
traces=$src/../shared/traces
work=${TMPDIR:-/tmp}/nextstep-bench-trace
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

median() { sort -n | sed -n 3p; }

run_once() { # binary file [--roofline] -> "cpu rss_kb"
	local b=$1 f=$2
	shift 2
	/usr/bin/time -f "%U %S %M" "$b" trace --format json "$@" "$f" 2>"$scratch/time.txt" >/dev/null || true
	awk '{ print $1 + $2, $3 }' "$scratch/time.txt"
}

bench_file() { # label file
	local label=$1 f=$2 off=() on=() old=() i
	for i in 1 2 3 4 5; do
		off+=("$(run_once "$bin" "$f")")
		on+=("$(run_once "$bin" "$f" --roofline --device h100)")
		[ -n "$base" ] && old+=("$(run_once "$base" "$f")")
	done
	local off_cpu on_cpu off_rss on_rss
	off_cpu=$(printf '%s\n' "${off[@]}" | awk '{ print $1 }' | median)
	on_cpu=$(printf '%s\n' "${on[@]}" | awk '{ print $1 }' | median)
	off_rss=$(printf '%s\n' "${off[@]}" | awk '{ print $2 }' | median)
	on_rss=$(printf '%s\n' "${on[@]}" | awk '{ print $2 }' | median)
	awk -v l="$label" -v a="$off_cpu" -v b="$on_cpu" -v r="$off_rss" -v s="$on_rss" 'BEGIN {
		printf "%-22s cpu %6.2f s -> %6.2f s with --roofline (%.2fx)   peak RSS %6.1f -> %6.1f MB\n",
		       l, a, b, (a > 0 ? b / a : 0), r / 1024, s / 1024 }'
	if [ -n "$base" ]; then
		local old_cpu
		old_cpu=$(printf '%s\n' "${old[@]}" | awk '{ print $1 }' | median)
		awk -v l="$label" -v a="$old_cpu" -v b="$off_cpu" 'BEGIN {
			printf "%-22s without --roofline: baseline %6.2f s, this build %6.2f s (%.3fx)\n", l, a, b, (a > 0 ? b / a : 0) }'
	fi
}

big=$work/roofline-1000mb.json
bench_make_trace "$big" "$tools/make-trace" --target-mb 1000 --seed 3
bench_file "generated $(($(bench_size "$big") / 1000000)) MB" "$big"
resnet=$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz
if [ -f "$resnet" ]; then
	bench_file "ResNet-50 (shapes)" "$resnet"
else
	echo "ResNet-50 capture not found under $traces: skipped"
fi

#!/usr/bin/env bash
# What --html costs: `nextstep trace` on generated traces with and without --html, in the same run, runs
# interleaved (without, with, without, with, ...) so the machine's load hits both alike. Prints the median CPU
# and wall time of each, the ratio (with / without) and the page's size; the page stays under its bound
# (1 MiB) whatever the trace, growing with the steps up to 120 bars. Traces go under $TMPDIR (default /tmp,
# shared with bench-trace.sh).
# Usage: bench/bench-html.sh NEXTSTEP_BINARY [SIZES_MB...]      (default sizes: 100 1000)
set -euo pipefail
bin=${1:?usage: bench-html.sh NEXTSTEP_BINARY [SIZES_MB...]}
shift
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(100 1000); fi
src=$(cd "$(dirname "$0")/.." && pwd)
tools=$src/../shared/tools
work=${TMPDIR:-/tmp}/nextstep-bench-trace
runs=${RUNS:-3}
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

run_once() { # args... -> "wall cpu"
	/usr/bin/time -v "$bin" trace --format json "$@" 2>"$scratch/time.txt" >/dev/null
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
	            /User time/ { u = $2 } /System time/ { k = $2 } END { print w, u + k }' "$scratch/time.txt"
}

if [ ! -x "$tools/make-trace" ]; then
	echo "bench-html: ../shared/tools/make-trace not found" >&2
	exit 1
fi
echo "machine: $(nproc) CPUs, $(awk '/model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo)," \
	"$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $runs runs each, interleaved"
for mb in "${sizes[@]}"; do
	trace=$work/make-trace-${mb}mb.json
	bench_make_trace "$trace" "$tools/make-trace" --target-mb "$mb"
	plain="" html=""
	for _ in $(seq "$runs"); do
		plain+="$(run_once "$trace")"$'\n'
		html+="$(run_once --html "$scratch/bench-page.html" "$trace")"$'\n'
	done
	pw=$(echo -n "$plain" | awk '{ print $1 }' | median)
	pc=$(echo -n "$plain" | awk '{ print $2 }' | median)
	hw=$(echo -n "$html" | awk '{ print $1 }' | median)
	hc=$(echo -n "$html" | awk '{ print $2 }' | median)
	awk -v l="make-trace ${mb} MB" -v b="$(bench_size "$trace")" -v pw="$pw" -v pc="$pc" -v hw="$hw" -v hc="$hc" \
		-v page="$(bench_size "$scratch/bench-page.html")" 'BEGIN {
		printf "%-20s %7.1f MB  cpu %6.2f s -> %6.2f s with --html (x%.3f)  wall %6.2f s -> %6.2f s (x%.3f)  page %.1f kB\n",
		       l, b / 1e6, pc, hc, (pc > 0 ? hc / pc : 0), pw, hw, (pw > 0 ? hw / pw : 0), page / 1024 }'
done

#!/usr/bin/env bash
# Throughput of the trace reader: median of 3 runs over a make-trace file, plain and gzip, next to the
# baselines (cat and gzip -dc of the same file), with peak RSS.
# Usage: bench/bench-scan.sh BUILD_DIR [TARGET_MB]   (BUILD_DIR holds libnextstep.a)
set -euo pipefail
build=${1:?usage: bench-scan.sh BUILD_DIR [TARGET_MB]}
mb=${2:-200}
src=$(cd "$(dirname "$0")/.." && pwd)
work=${TMPDIR:-/tmp}/nextstep-bench-scan
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

bench_scan_bench "$src" "$build" "$scratch/scan_bench"
trace=$work/trace-${mb}mb.json
bench_make_trace "$trace" "$src/../shared/tools/make-trace" --target-mb "$mb" --steps 3
bench_cache "$trace.gz" gzip -6 -c "$trace"

median() { sort -n | sed -n 2p; }
bytes=$(bench_size "$trace")
secs_of() { # command... -> wall seconds
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
rate() { echo "scale=1; $bytes / $1 / 1000000" | bc -l; }

for f in "$trace" "$trace.gz"; do
	s=$(for _ in 1 2 3; do "$scratch/scan_bench" "$f" | sed 's/.*secs=\([0-9.]*\).*/\1/'; done | median)
	rss=$( { /usr/bin/time -f %M "$scratch/scan_bench" "$f" >/dev/null; } 2>&1)
	echo "trace_read $(basename "$f"): $(rate "$s") MB/s of JSON (median of 3, $bytes bytes), peak RSS ${rss} KB"
done
s=$(for _ in 1 2 3; do secs_of cat "$trace"; done | median)
echo "baseline cat $(basename "$trace"): $(rate "$s") MB/s"
s=$(for _ in 1 2 3; do secs_of gzip -dc "$trace.gz"; done | median)
echo "baseline gzip -dc $(basename "$trace").gz: $(rate "$s") MB/s of JSON"

#!/usr/bin/env bash
# End-to-end speed of `nextstep trace`: read, split and route generated traces of ~100 MB and ~1 GB, and the
# TensorBoard plugin's 35 MB ResNet-50 trace decompressed. Prints MB/s of JSON (median of 3 runs) and peak RSS
# (/usr/bin/time -v) next to the file size. Traces go under $TMPDIR (default /tmp), never into the repository.
# Usage: bench/bench-trace.sh NEXTSTEP_BINARY [SIZES_MB...]      (default sizes: 100 1000)
set -euo pipefail
bin=${1:?usage: bench-trace.sh NEXTSTEP_BINARY [SIZES_MB...]}
shift
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(100 1000); fi
src=$(cd "$(dirname "$0")/.." && pwd)
tools=$src/../shared/tools
traces=$src/../shared/traces
work=${TMPDIR:-/tmp}/nextstep-bench-trace
mkdir -p "$work"

median() { sort -n | sed -n 2p; }

# One run: wall seconds and peak RSS (KB) from GNU time's verbose report.
run_once() { # file -> "seconds rss_kb"
	/usr/bin/time -v "$bin" trace --format json "$1" 2>"$work/time.txt" >/dev/null
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
	            /Maximum resident set size/ { r = $2 } END { print w, r }' "$work/time.txt"
}

bench() { # label file [JSON bytes, when the file is compressed]
	local bytes secs rss runs
	bytes=${3:-$(stat -c %s "$2")}
	runs=$(for _ in 1 2 3; do run_once "$2"; done)
	secs=$(echo "$runs" | awk '{ print $1 }' | median)
	rss=$(echo "$runs" | awk '{ print $2 }' | median)
	awk -v l="$1" -v b="$bytes" -v s="$secs" -v r="$rss" 'BEGIN {
		printf "%-30s %8.1f MB JSON  %6.2f s  %6.0f MB/s  peak RSS %7.1f MB (%.2f%% of the JSON)\n",
		       l, b / 1e6, s, (s > 0 ? b / 1e6 / s : 0), r / 1024, 100 * r * 1024 / b }'
}

if [ ! -x "$tools/make-trace" ]; then
	echo "bench-trace: ../shared/tools/make-trace not found" >&2
	exit 1
fi
echo "machine: $(nproc) CPUs, $(awk '/model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo)," \
	"$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
for mb in "${sizes[@]}"; do
	trace=$work/make-trace-${mb}mb.json
	[ -s "$trace" ] || "$tools/make-trace" --out "$trace" --target-mb "$mb" >/dev/null 2>&1
	bench "make-trace ${mb} MB" "$trace"
done
if [ -f "$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz" ]; then
	resnet=$work/resnet50_num_workers_0.pt.trace.json
	[ -s "$resnet" ] || gzip -dc "$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz" >"$resnet"
	bench "resnet50_num_workers_0" "$resnet"
	bench "resnet50_num_workers_0 (gzip)" "$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz" "$(stat -c %s "$resnet")"
fi

#!/usr/bin/env bash
# End-to-end speed of `nextstep trace`: read, split and route generated traces of ~100 MB and ~1 GB, and the
# TensorBoard plugin's 35 MB ResNet-50 trace decompressed. Prints MB/s of JSON (median of 3 runs) and peak RSS
# (/usr/bin/time -v) next to the file size, and, for each generated trace, the time of a string-aware byte scan
# of the same file on one thread (bench/byte_scan.c, the floor for any JSON reader) and nextstep's wall and CPU
# time as multiples of it, measured in the same run. With BASE=OTHER_BINARY in the environment, that binary is
# timed the same way, each run next to the new one's. The load average is printed before and after: on a shared
# machine the wall times are the others' load too. The first generated trace is also gzipped (cached like the
# traces) and `nextstep trace` on the .gz is timed against `zcat` alone on it, in the same rounds. Traces go
# under $TMPDIR (default /tmp), never into the repository.
# Usage: [BASE=OLD_BINARY] bench/bench-trace.sh NEXTSTEP_BINARY [SIZES_MB...]      (default sizes: 100 1000)
set -euo pipefail
bin=${1:?usage: bench-trace.sh NEXTSTEP_BINARY [SIZES_MB...]}
shift
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(100 1000); fi
src=$(cd "$(dirname "$0")/.." && pwd)
tools=$src/../shared/tools
traces=$src/../shared/traces
work=${TMPDIR:-/tmp}/nextstep-bench-trace
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

median() { sort -n | sed -n 2p; }
cc -O2 -o "$scratch/byte_scan" "$src/bench/byte_scan.c"

# One run: wall seconds, CPU seconds (user + system) and peak RSS (KB) from GNU time's verbose report. On a
# shared machine the CPU figure is the steadier one.
run_once() { # file [binary] -> "wall cpu rss_kb"
	/usr/bin/time -v "${2:-$bin}" trace --format json "$1" 2>"$scratch/time.txt" >/dev/null
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
	            /User time/ { u = $2 } /System time/ { k = $2 }
	            /Maximum resident set size/ { r = $2 } END { print w, u + k, r }' "$scratch/time.txt"
}

scan_once() { # file -> "wall cpu"
	/usr/bin/time -f '%e %U %S' "$scratch/byte_scan" "$1" 2>"$scratch/time.txt" >/dev/null
	awk '{ print $1, $2 + $3 }' "$scratch/time.txt"
}

# label file: the byte scan, nextstep (and BASE), three runs each, interleaved; medians and their ratios.
versus_scan() {
	local runs scan scan_cpu b label wall cpu
	runs=$(for _ in 1 2 3; do
		echo "scan $(scan_once "$2")"
		echo "new $(run_once "$2")"
		if [ -n "${BASE:-}" ]; then echo "base $(run_once "$2" "$BASE")"; fi
	done)
	scan=$(echo "$runs" | awk '$1 == "scan" { print $2 }' | median)
	scan_cpu=$(echo "$runs" | awk '$1 == "scan" { print $3 }' | median)
	echo "$1: byte scan $scan s wall, $scan_cpu s cpu (medians of 3)"
	for b in new ${BASE:+base}; do
		label=$([ "$b" = new ] && echo "$bin" || echo "$BASE")
		wall=$(echo "$runs" | awk -v b="$b" '$1 == b { print $2 }' | median)
		cpu=$(echo "$runs" | awk -v b="$b" '$1 == b { print $3 }' | median)
		awk -v l="$label" -v w="$wall" -v c="$cpu" -v s="$scan" -v sc="$scan_cpu" 'BEGIN {
			printf "  %-40s wall %6.2f s = %5.2fx the scan, cpu %6.2f s = %5.2fx the scan'"'"'s\n", l, w, w / s, c,
			       (sc > 0 ? c / sc : 0) }'
	done
}

zcat_once() { # file.gz -> "wall cpu"
	/usr/bin/time -f '%e %U %S' zcat "$1" 2>"$scratch/time.txt" >/dev/null
	awk '{ print $1, $2 + $3 }' "$scratch/time.txt"
}

# label file.gz: zcat alone and nextstep on the gzip file, three runs each, interleaved; medians and the ratio.
versus_zcat() {
	local runs zw zc nw nc
	runs=$(for _ in 1 2 3; do
		echo "zcat $(zcat_once "$2")"
		echo "new $(run_once "$2")"
	done)
	zw=$(echo "$runs" | awk '$1 == "zcat" { print $2 }' | median)
	zc=$(echo "$runs" | awk '$1 == "zcat" { print $3 }' | median)
	nw=$(echo "$runs" | awk '$1 == "new" { print $2 }' | median)
	nc=$(echo "$runs" | awk '$1 == "new" { print $3 }' | median)
	awk -v l="$1" -v zw="$zw" -v zc="$zc" -v nw="$nw" -v nc="$nc" 'BEGIN {
		printf "%s: zcat alone %.2f s wall, %.2f s cpu; nextstep %.2f s wall = %5.2fx zcat'"'"'s, cpu %.2f s (medians of 3)\n",
		       l, zw, zc, nw, (zw > 0 ? nw / zw : 0), nc }'
}

bench() { # label file [JSON bytes, when the file is compressed]
	local bytes wall cpu rss runs
	bytes=${3:-$(bench_size "$2")}
	runs=$(for _ in 1 2 3; do run_once "$2"; done)
	wall=$(echo "$runs" | awk '{ print $1 }' | median)
	cpu=$(echo "$runs" | awk '{ print $2 }' | median)
	rss=$(echo "$runs" | awk '{ print $3 }' | median)
	awk -v l="$1" -v b="$bytes" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
		printf "%-30s %7.1f MB JSON  wall %6.2f s %5.0f MB/s  cpu %6.2f s %5.0f MB/s  peak RSS %6.1f MB (%.2f%%)\n",
		       l, b / 1e6, w, (w > 0 ? b / 1e6 / w : 0), c, (c > 0 ? b / 1e6 / c : 0), r / 1024, 100 * r * 1024 / b }'
}

if [ ! -x "$tools/make-trace" ]; then
	echo "bench-trace: ../shared/tools/make-trace not found" >&2
	exit 1
fi
echo "machine: $(nproc) CPUs, $(awk '/model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo)," \
	"$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for mb in "${sizes[@]}"; do
	trace=$work/make-trace-${mb}mb.json
	bench_make_trace "$trace" "$tools/make-trace" --target-mb "$mb"
	bench "make-trace ${mb} MB" "$trace"
	versus_scan "make-trace ${mb} MB" "$trace"
	if [ "$mb" = "${sizes[0]}" ]; then
		bench_cache "$trace.gz" gzip -c "$trace"
		bench "make-trace ${mb} MB (gzip)" "$trace.gz" "$(bench_size "$trace")"
		versus_zcat "make-trace ${mb} MB (gzip)" "$trace.gz"
	fi
done
if [ -f "$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz" ]; then
	resnet=$work/resnet50_num_workers_0.pt.trace.json
	bench_cache "$resnet" gzip -dc "$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz"
	bench "resnet50_num_workers_0" "$resnet"
	bench "resnet50_num_workers_0 (gzip)" "$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz" "$(bench_size "$resnet")"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

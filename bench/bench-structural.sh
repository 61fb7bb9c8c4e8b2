#!/usr/bin/env bash
# Would a two-pass reader (a structural index built with vector compares, then a walk over it) read a trace
# faster than the one in the library? Times, on one thread and in the same rounds, the byte scan
# (bench/byte_scan.c), the library's reader (bench/scan_bench.c: ns_trace_read() with a counting callback) and
# bench/structural_probe.c with its SSE2 and, where the CPU has them, AVX2 + PCLMUL first passes. The probe
# validates nothing it skips and reports no error, so its time is a lower bound on that design's. Checks that
# the probe saw the reader's events, kernels and kernel time, then prints medians and ratios (issue 27).
# Usage: bench/bench-structural.sh BUILD_DIR [TARGET_MB] [ROUNDS]   (BUILD_DIR holds libnextstep.a; 300, 5)
set -euo pipefail
build=${1:?usage: bench-structural.sh BUILD_DIR [TARGET_MB] [ROUNDS]}
mb=${2:-300}
rounds=${3:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
work=${TMPDIR:-/tmp}/nextstep-bench-trace
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

bench_scan_bench "$src" "$build" "$scratch/scan_bench"
cc -std=c11 -O2 -o "$scratch/probe" "$src/bench/structural_probe.c"
cc -O2 -o "$scratch/byte_scan" "$src/bench/byte_scan.c"
trace=$work/make-trace-${mb}mb.json # the file bench-trace.sh makes and caches
bench_make_trace "$trace" "$src/../shared/tools/make-trace" --target-mb "$mb"

kinds=(reader sse2)
cpu=$("$scratch/probe" /dev/null avx2 2>&1 || true)
if [[ $cpu == *'no AVX2'* ]]; then
	echo "this CPU has no AVX2 or PCLMUL: the SSE2 first pass alone"
else
	kinds+=(avx2)
fi
scan_secs() { { /usr/bin/time -f %e "$scratch/byte_scan" "$trace" >/dev/null; } 2>&1; }
one() { # kind -> "events=... kernels=... kernel_ms=... secs=..."
	if [ "$1" = reader ]; then
		"$scratch/scan_bench" "$trace" | sed 's/ bytes=.* secs=/ secs=/; s/ MB\/s=.*//'
	else
		"$scratch/probe" "$trace" "$1"
	fi
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
runs=$(for _ in $(seq "$rounds"); do
	echo "scan secs=$(scan_secs)"
	for k in "${kinds[@]}"; do echo "$k $(one "$k")"; done
done)
want=$(echo "$runs" | awk '$1 == "reader" { print $2, $3, $4; exit }')
for k in "${kinds[@]}"; do
	echo "$runs" | awk -v k="$k" '$1 == k { print $2, $3, $4 }' | sort -u | while read -r got; do
		if [ "$got" != "$want" ]; then
			echo "bench-structural: $k saw '$got', the reader '$want'" >&2
			exit 1
		fi
	done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
secs() { echo "$runs" | awk -v k="$1" '$1 == k { sub(/.*secs=/, ""); print }' | median; }
scan=$(secs scan)
reader=$(secs reader)
echo "$(basename "$trace"), $rounds rounds, one thread each ($want):"
for k in scan "${kinds[@]}"; do
	awk -v k="$k" -v s="$(secs "$k")" -v b="$scan" -v r="$reader" 'BEGIN {
		printf "  %-7s %6.3f s = %5.2fx the byte scan, %5.2fx the reader\n", k, s, s / b, s / r }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Router benchmark (not a test): NDJSON throughput in profiles/s, text and JSON output, and the start-to-exit
# time of one flags call. Each figure is the median of several runs next to a baseline measured in the same
# run (wc -l over the same stream; /bin/true for process start-up), so a noisy machine still gives a
# meaningful ratio. With BASE (another build, e.g. of the commit before a change) the two binaries run
# interleaved on the same file and the ratios new/base are printed: the same-sitting before/after every change
# under src/router, src/core or the CLI's router path needs (CONTRIBUTING.md). Wall and CPU (user + system)
# time are both printed: on a shared machine the CPU figure is the steadier one; the load average is printed
# before and after. NS_BENCH_CALLGRIND=N adds valgrind's instruction count over the first N profiles (exact
# and load-independent; slow, so N of about 20000).
# Usage: bench/bench-router.sh [NEXTSTEP [PROFILES [BASE]]]      (default build/nextstep, 1000000)
set -eu
bin=${1:-build/nextstep}
n=${2:-1000000}
base=${3:-}
runs=5
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

# Six-bucket profiles, as a trace's split gives them.
awk -v n="$n" 'BEGIN {
	srand(7);
	for (i = 0; i < n; i++) {
		c = rand() * 0.5; m = rand() * 0.2; k = rand() * 0.1; d = rand() * 0.1;
		printf "{\"label\":\"step%d\",\"compute\":%.4f,\"memory\":%.4f,\"comm\":%.4f,\"dataloader\":%.4f,\"overhead\":%.4f,\"idle\":%.4f}\n", i, c, m, k, d, 0.02, 0.05
	}
}' >"$scratch/in.ndjson"
bytes=$(bench_size "$scratch/in.ndjson")

now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# One run of command...: "wall cpu" in seconds. Wall time comes from the clock, not from time's %e: its
# 10 ms resolution reads a fast baseline such as wc -l as 0.00 s, and the ratio below would divide by it.
run_once() {
	local t0 t1
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$scratch/time.txt" "$@" >/dev/null 2>&1 || true
	t1=$(now)
	awk -v w="$(echo "$t1 - $t0" | bc -l)" '{ print w, $1 + $2 }' "$scratch/time.txt"
}

# measure NAME command...: appends "wall cpu" of one run to $scratch/NAME.
measure() {
	local name=$1
	shift
	run_once "$@" >>"$scratch/$name"
}

col() { awk -v c="$2" '{ print $c }' "$scratch/$1" | median; }

printf 'machine: %s, %s cores; load average before: %s\n' \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" "$(load)"
printf 'input: %d six-bucket NDJSON profiles, %.1f MB\n' "$n" "$(echo "$bytes / 1000000" | bc -l)"
for _ in $(seq $runs); do
	for fmt in text json; do
		measure "new.$fmt" "$bin" --format "$fmt" "$scratch/in.ndjson"
		[ -z "$base" ] || measure "base.$fmt" "$base" --format "$fmt" "$scratch/in.ndjson"
	done
	measure wc wc -l "$scratch/in.ndjson"
done

report() { # who fmt
	local wall cpu
	wall=$(col "$1.$2" 1)
	cpu=$(col "$1.$2" 2)
	printf '%-4s %-4s output: %9.0f profiles/s wall (%.3f s), %9.0f profiles/s CPU (%.3f s), median of %d\n' \
		"$1" "$2" "$(echo "$n / $wall" | bc -l)" "$wall" "$(echo "$n / $cpu" | bc -l)" "$cpu" "$runs"
}
for fmt in text json; do
	report new $fmt
	if [ -n "$base" ]; then
		report base $fmt
		printf '          new/base: wall %.2fx, CPU %.2fx as long\n' \
			"$(echo "$(col new.$fmt 1) / $(col base.$fmt 1)" | bc -l)" \
			"$(echo "$(col new.$fmt 2) / $(col base.$fmt 2)" | bc -l)"
	fi
done
printf 'baseline wc -l over the same file: %.3f s; nextstep text takes %.1fx as long (wall)\n' "$(col wc 1)" \
	"$(echo "$(col new.text 1) / $(col wc 1)" | bc -l)"

if [ -n "${NS_BENCH_CALLGRIND:-}" ] && command -v valgrind >/dev/null; then
	head -n "$NS_BENCH_CALLGRIND" "$scratch/in.ndjson" >"$scratch/head.ndjson"
	for who in new ${base:+base}; do
		b=$bin
		[ "$who" = new ] || b=$base
		for fmt in text json; do
			valgrind --tool=callgrind --callgrind-out-file=/dev/null "$b" --format "$fmt" "$scratch/head.ndjson" \
				2>"$scratch/cg.txt" >/dev/null
			printf '%-4s %-4s instructions per profile (callgrind, %d profiles): %.0f\n' "$who" "$fmt" \
				"$NS_BENCH_CALLGRIND" "$(awk -v n="$NS_BENCH_CALLGRIND" '/Collected/ { print $NF / n }' "$scratch/cg.txt")"
		done
	done
fi

startup() { # command... -> median seconds of one call over 200 calls, in batches of 20
	for _ in $(seq 10); do
		t0=$(now)
		for _ in $(seq 20); do "$@" >/dev/null; done
		t1=$(now)
		echo "($t1 - $t0) / 20" | bc -l
	done | median
}
flags_call=$(startup "$bin" --compute 0.72 --memory 0.15 --comm 0.05 --idle 0.08)
true_call=$(startup /bin/true)
rss=$(/usr/bin/time -f %M "$bin" "$scratch/in.ndjson" 2>&1 >/dev/null | tail -n 1)
printf 'peak RSS over the whole stream: %d KiB\n' "$rss"
printf 'one flags call, start to exit: %.2f ms (median of 10 x 20 calls); /bin/true: %.2f ms\n' \
	"$(echo "$flags_call * 1000" | bc -l)" "$(echo "$true_call * 1000" | bc -l)"
printf 'load average after: %s\n' "$(load)"

#!/usr/bin/env bash
# What a report of many steps costs: `nextstep trace` in text and in JSON on generated traces of 10^5 and 10^6
# steps (tests/hostile/gen-steps.sh: one 100 us step with one 60 us GEMM per device), printing the median CPU
# time, wall time and peak RSS of each, and, with a second binary, the same for it measured in the same run
# (runs interleaved: new, base, new, base, ...) and the ratios new / base. The output goes to /dev/null; its
# size is printed. Peak RSS must not grow with the steps in JSON more than in text (issue 9).
# Usage: bench/bench-json-steps.sh NEXTSTEP_BINARY [BASE_BINARY]
#        STEPS="100000 1000000" DEVICES=1 RUNS=3 (environment; the defaults)
set -euo pipefail
bin=${1:?usage: bench-json-steps.sh NEXTSTEP_BINARY [BASE_BINARY]}
base=${2:-}
src=$(cd "$(dirname "$0")/.." && pwd)
work=${TMPDIR:-/tmp}/nextstep-bench-steps
runs=${RUNS:-3}
devices=${DEVICES:-1}
read -r -a steps_list <<<"${STEPS:-100000 1000000}"
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
scratch=""
bench_scratch

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

run_once() { # binary format trace -> "wall cpu rss_kb"
	/usr/bin/time -v "$1" trace --format "$2" "$3" 2>"$scratch/time.txt" >/dev/null
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
	            /User time/ { u = $2 } /System time/ { k = $2 } /Maximum resident/ { m = $2 }
	            END { print w, u + k, m }' "$scratch/time.txt"
}

# column N of the runs, median
med() { echo -n "$1" | awk -v c="$2" '{ print $c }' | median; }

echo "machine: $(nproc) CPUs, $(awk '/model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo)," \
	"load $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each${base:+, interleaved with $base}"
for steps in "${steps_list[@]}"; do
	trace=$work/steps-$steps-x$devices.json
	bench_cache "$trace" sh "$src/tests/hostile/gen-steps.sh" "$steps" "$devices"
	for format in text json; do
		out_size=$("$bin" trace --format "$format" "$trace" | wc -c)
		new="" old=""
		for _ in $(seq "$runs"); do
			new+="$(run_once "$bin" "$format" "$trace")"$'\n'
			[ -z "$base" ] || old+="$(run_once "$base" "$format" "$trace")"$'\n'
		done
		line=$(awk -v s="$steps" -v d="$devices" -v f="$format" -v o="$out_size" -v c="$(med "$new" 2)" \
			-v w="$(med "$new" 1)" -v r="$(med "$new" 3)" 'BEGIN {
			printf "%8d steps x%d %-4s out %7.1f MB: cpu %6.2f s wall %6.2f s rss %6.1f MB", s, d, f, o / 1e6, c, w, r / 1024 }')
		if [ -n "$base" ]; then
			line+=$(awk -v nc="$(med "$new" 2)" -v nw="$(med "$new" 1)" -v nr="$(med "$new" 3)" \
				-v oc="$(med "$old" 2)" -v ow="$(med "$old" 1)" -v or="$(med "$old" 3)" 'BEGIN {
				printf "  | base cpu %6.2f s wall %6.2f s rss %6.1f MB | x%.2f cpu x%.2f wall x%.2f rss",
				       oc, ow, or / 1024, (oc > 0 ? nc / oc : 0), (ow > 0 ? nw / ow : 0), (or > 0 ? nr / or : 0) }')
		fi
		echo "$line"
	done
done

#!/usr/bin/env bash
# Reading a whole job: the ranks of generated jobs (8 x 100 MB and 64 x 10 MB by default) read one after the
# other by the code before parallel reading (the baseline: built here from the commit before
# src/cli/cli_parallel.c was added, or BASELINE=BINARY) against `nextstep trace DIR` with its default -j (one
# worker per processor) and with -j 1, in the same run, runs interleaved so the machine's load hits all alike.
# Prints the median wall and CPU time of each, the speed-up ratio (parallel / baseline wall time) and the peak
# RSS of each (GNU time). Traces and the baseline build go under $TMPDIR (default /tmp), never into the
# repository; the load average is printed before and after, since other work on the machine skews wall times.
# Usage: bench/bench-job.sh NEXTSTEP_BINARY [RANKSxMB...]      (default: 8x100 64x10; RUNS=3)
set -euo pipefail
bin=$(cd "$(dirname "${1:?usage: bench-job.sh NEXTSTEP_BINARY [RANKSxMB...]}")" && pwd)/$(basename "$1")
shift
if [ $# -gt 0 ]; then sets=("$@"); else sets=(8x100 64x10); fi
src=$(cd "$(dirname "$0")/.." && pwd)
tools=$src/../shared/tools
work=${TMPDIR:-/tmp}/nextstep-bench-job
runs=${RUNS:-3}
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

if [ ! -x "$tools/make-trace" ]; then
	echo "bench-job: ../shared/tools/make-trace not found" >&2
	exit 1
fi

# The baseline: the tree of the commit before parallel reading, built once per commit (cached under $work).
baseline_binary() {
	local first base dir
	first=$(git -C "$src" log --format=%H --diff-filter=A -- src/cli/cli_parallel.c | tail -n 1)
	if [ -z "$first" ]; then
		echo "bench-job: no commit adds src/cli/cli_parallel.c; give BASELINE=BINARY" >&2
		exit 1
	fi
	base=$(git -C "$src" rev-parse "$first^")
	dir=$work/baseline-${base:0:12}
	if [ ! -x "$dir/build/nextstep" ]; then
		rm -rf "$dir" && mkdir -p "$dir/src"
		git -C "$src" archive "$base" | tar -x -C "$dir/src"
		cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
		cmake --build "$dir/build" -j "$(nproc)" --target nextstep >/dev/null
	fi
	echo "$dir/build/nextstep ${base:0:12}"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

run_once() { # binary args... -> "wall cpu rss_kb"
	local b=$1
	shift
	/usr/bin/time -v "$b" trace --format json "$@" 2>"$scratch/time.txt" >/dev/null
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
	            /User time/ { u = $2 } /System time/ { k = $2 }
	            /Maximum resident set size/ { r = $2 } END { print w, u + k, r }' "$scratch/time.txt"
}

col() { echo -n "$1" | awk -v c="$2" '{ print $c }' | median; }

if [ -n "${BASELINE:-}" ]; then
	base_bin=$BASELINE base_id=given
else
	read -r base_bin base_id < <(baseline_binary)
fi
echo "machine: $(nproc) CPUs, $(awk '/model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo)," \
	"$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $runs runs each, interleaved;" \
	"baseline $base_id; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for job in "${sets[@]}"; do
	ranks=${job%x*} mb=${job#*x}
	dir=$work/job-${ranks}x${mb}mb
	if [ ! -s "$dir/rank-$((ranks - 1)).pt.trace.json" ]; then
		# generated aside and renamed, so a run at the same time never reads a half-written job
		part=$(mktemp -d "$dir.XXXXXX")
		"$tools/make-trace" --out "$part" --ranks "$ranks" --target-mb "$mb" >/dev/null 2>&1
		rm -rf "$dir"
		mv -T "$part" "$dir" 2>/dev/null || rm -rf "$part"
	fi
	files=()
	for r in $(seq 0 $((ranks - 1))); do files+=("$dir/rank-$r.pt.trace.json"); done
	bytes=$(cat "${files[@]}" | wc -c)
	seq_runs="" par_runs="" one_runs=""
	for _ in $(seq "$runs"); do
		seq_runs+="$(run_once "$base_bin" "${files[@]}")"$'\n'
		par_runs+="$(run_once "$bin" "$dir")"$'\n'
		one_runs+="$(run_once "$bin" -j 1 "$dir")"$'\n'
	done
	awk -v l="${ranks} ranks x ${mb} MB" -v b="$bytes" \
		-v sw="$(col "$seq_runs" 1)" -v sc="$(col "$seq_runs" 2)" -v sr="$(col "$seq_runs" 3)" \
		-v pw="$(col "$par_runs" 1)" -v pc="$(col "$par_runs" 2)" -v pr="$(col "$par_runs" 3)" \
		-v ow="$(col "$one_runs" 1)" -v oc="$(col "$one_runs" 2)" -v orss="$(col "$one_runs" 3)" -v j="$(nproc)" 'BEGIN {
		printf "%s (%.0f MB of JSON):\n", l, b / 1e6
		printf "  baseline, one after the other  wall %7.2f s  cpu %7.2f s  peak RSS %7.1f MB\n", sw, sc, sr / 1024
		printf "  nextstep trace DIR (-j %d)      wall %7.2f s  cpu %7.2f s  peak RSS %7.1f MB\n", j, pw, pc, pr / 1024
		printf "  nextstep trace -j 1 DIR         wall %7.2f s  cpu %7.2f s  peak RSS %7.1f MB\n", ow, oc, orss / 1024
		printf "  parallel / baseline wall time: %.2fx (target <= 0.60x for 8 x 100 MB)\n", (sw > 0 ? pw / sw : 0) }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Jobs at cluster scale (issue 26): generated rank summaries and rank traces, the code before issue 26 (the
# baseline: built here from the commit before "Job merge at cluster scale", or BASELINE=BINARY) against this
# nextstep, in the same run, interleaved. Prints CPU time (user + system) and peak RSS (GNU time) and the
# ratios new / baseline:
#   1. 4,096 ranks x 100 steps (100 collectives each) of summaries merged by `nextstep job` (target: under 5 s
#      and 200 MB);
#   2. 1,024 rank traces in `nextstep trace DIR` under `ulimit -n 1024` (the usual limit): the exit status;
#   3. 2 ranks x N steps x N collectives (one straggler) at three sizes: CPU time and RSS per MB of input, which
#      a linear merge keeps about constant (the baseline's CPU per MB grows with N).
# Inputs go under $TMPDIR (default /tmp), never into the repository; the load average is printed before and
# after, since other work on the machine stretches times. Usage: bench/bench-job-scale.sh NEXTSTEP_BINARY
# (RUNS=N medians of N runs, default 1; SIZES="25000 50000 100000").
set -euo pipefail
bin=$(cd "$(dirname "${1:?usage: bench-job-scale.sh NEXTSTEP_BINARY}")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
work=${TMPDIR:-/tmp}/nextstep-bench-job-scale
runs=${RUNS:-1}
read -r -a sizes <<<"${SIZES:-25000 50000 100000}"
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch
gen=$src/tests/hostile/gen-summaries.sh

baseline_binary() {
	local first base dir
	first=$(git -C "$src" log --format=%H --grep='^Job merge at cluster scale' | tail -n 1)
	if [ -z "$first" ]; then
		echo "bench-job-scale: no commit 'Job merge at cluster scale'; give BASELINE=BINARY" >&2
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
col() { echo -n "$1" | awk -v c="$2" '{ print $c }' | median; }

# run_once BINARY ARGS... -> "cpu_s rss_kb exit"; under `ulimit -n $fd_limit` when that is set.
run_once() {
	local rc=0
	/usr/bin/time -v sh -c 'if [ -n "$0" ]; then ulimit -n "$0"; fi && exec "$@"' "${fd_limit:-}" "$@" \
		2>"$scratch/time.txt" >/dev/null || rc=$?
	awk -F': ' -v rc="$rc" '/User time/ { u = $2 } /System time/ { k = $2 } /Maximum resident set size/ { r = $2 }
	    END { print u + k, r, rc }' "$scratch/time.txt"
}

# compare LABEL BYTES ARGS...: both binaries on ARGS, RUNS times, interleaved; one line each and the ratios.
compare() {
	local label=$1 bytes=$2 old="" new="" _
	shift 2
	for _ in $(seq "$runs"); do
		old+="$(run_once "$base_bin" "$@")"$'\n'
		new+="$(run_once "$bin" "$@")"$'\n'
	done
	awk -v l="$label" -v mb="$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" \
		-v oc="$(col "$old" 1)" -v orss="$(col "$old" 2)" -v ox="$(col "$old" 3)" \
		-v nc="$(col "$new" 1)" -v nr="$(col "$new" 2)" -v nx="$(col "$new" 3)" 'BEGIN {
		printf "%s (%.1f MB):\n", l, mb
		printf "  baseline  cpu %7.2f s (%.3f s/MB)  peak RSS %7.1f MB  exit %d\n", oc, oc / mb, orss / 1024, ox
		printf "  nextstep  cpu %7.2f s (%.3f s/MB)  peak RSS %7.1f MB  exit %d\n", nc, nc / mb, nr / 1024, nx
		printf "  new / baseline: cpu %.3fx, RSS %.3fx\n", (oc > 0 ? nc / oc : 0), (orss > 0 ? nr / orss : 0) }'
}

if [ -n "${BASELINE:-}" ]; then
	base_bin=$BASELINE base_id=given
else
	read -r base_bin base_id < <(baseline_binary)
fi
echo "machine: $(nproc) CPUs, $(awk '/model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo);" \
	"$runs run(s) each, interleaved; baseline $base_id; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

bench_cache "$work/ranks4096x100.nd" sh "$gen" 4096 100 100 1 1
compare "1. job: 4,096 ranks x 100 steps x 100 collectives (target < 5 s, < 200 MB)" \
	"$(bench_size "$work/ranks4096x100.nd")" job "$work/ranks4096x100.nd"

if [ ! -s "$work/traces1024/rank-1023.json" ]; then
	rm -rf "$work/traces1024"
	sh "$src/tests/hostile/gen-ranks.sh" "$work/traces1024" 1024
fi
fd_limit=1024 compare "2. trace DIR: 1,024 rank traces under ulimit -n 1024 (target: exit 0)" \
	"$(cat "$work"/traces1024/*.json | wc -c)" trace "$work/traces1024"
for n in "${sizes[@]}"; do
	bench_cache "$work/steps$n.nd" sh "$gen" 2 "$n" "$n" 1 1
	compare "3. job: 2 ranks x $n steps x $n collectives, one straggler" "$(bench_size "$work/steps$n.nd")" \
		job "$work/steps$n.nd"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

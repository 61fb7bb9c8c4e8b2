#!/usr/bin/env bash
# Router benchmark (not a test): NDJSON throughput in profiles/s and the start-to-exit time of one flags call,
# each as the median of several runs, next to a baseline measured in the same run (wc -l over the same
# stream; /bin/true for process start-up), so a noisy machine still gives a meaningful ratio.
# Usage: bench/bench-router.sh [path/to/nextstep] [profiles]
set -eu
bin=${1:-build/nextstep}
n=${2:-1000000}
runs=5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk -v n="$n" 'BEGIN {
	srand(7);
	for (i = 0; i < n; i++) {
		c = rand() * 0.5; m = rand() * 0.2; k = rand() * 0.1; d = rand() * 0.1;
		printf "{\"label\":\"step%d\",\"compute\":%.4f,\"memory\":%.4f,\"comm\":%.4f,\"dataloader\":%.4f,\"idle\":%.4f}\n", i, c, m, k, d, 0.05
	}
}' >"$tmp/in.ndjson"
bytes=$(stat -L -c %s "$tmp/in.ndjson")

now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

time_cmd() { # command... -> seconds
	local t0 t1
	t0=$(now)
	"$@" >/dev/null
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

for _ in $(seq $runs); do time_cmd "$bin" "$tmp/in.ndjson"; done | median >"$tmp/text"
for _ in $(seq $runs); do time_cmd "$bin" --format json "$tmp/in.ndjson"; done | median >"$tmp/json"
for _ in $(seq $runs); do time_cmd wc -l "$tmp/in.ndjson"; done | median >"$tmp/wc"

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
rss=$(/usr/bin/time -f %M "$bin" "$tmp/in.ndjson" 2>&1 >/dev/null | tail -n 1)

printf 'machine: %s, %s cores\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)"
printf 'input: %d NDJSON profiles, %.1f MB\n' "$n" "$(echo "$bytes / 1000000" | bc -l)"
printf 'text output: %.0f profiles/s (%.1f MB/s), median of %d\n' "$(echo "$n / $(cat "$tmp/text")" | bc -l)" \
	"$(echo "$bytes / 1000000 / $(cat "$tmp/text")" | bc -l)" "$runs"
printf 'json output: %.0f profiles/s, median of %d\n' "$(echo "$n / $(cat "$tmp/json")" | bc -l)" "$runs"
printf 'baseline wc -l over the same file: %.3f s; nextstep text takes %.1fx as long\n' "$(cat "$tmp/wc")" \
	"$(echo "$(cat "$tmp/text") / $(cat "$tmp/wc")" | bc -l)"
printf 'peak RSS over the whole stream: %d KiB\n' "$rss"
printf 'one flags call, start to exit: %.2f ms (median of 10 x 20 calls); /bin/true: %.2f ms\n' \
	"$(echo "$flags_call * 1000" | bc -l)" "$(echo "$true_call * 1000" | bc -l)"

#!/bin/bash
# bench-rules.sh NEXTSTEP [NAMES] [BYTES]: how fast distinct kernel names are interned and classified.
# Two traces of the same size are read in the same run: one whose NAMES kernels all have distinct names of
# BYTES bytes, one where they share a single name (classified once). The difference is the cost of the
# distinct names; their bytes over it is the classification rate in MB/s of names (issue 9 asks >= 200).
set -eu
bin=$1 names=${2:-20000} bytes=${3:-2048}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gen DISTINCT: a trace with one step and NAMES kernels named like templated ATen kernels.
gen() {
	awk -v n="$names" -v b="$bytes" -v distinct="$1" 'BEGIN {
		pad = ""; while (length(pad) < b) pad = pad "float, c10::BFloat16, at::native::Vectorized<4>, ";
		printf "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":9,\"tid\":9,\"ts\":0,\"dur\":%d}", n * 10 + 10
		for (i = 0; i < n; i++) {
			id = sprintf("void at::native::kernel_%08d<", distinct ? i : 0)
			name = substr(id pad, 1, b - 1) ">"
			printf ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":5,\"args\":{\"device\":0}}", name, i * 10
		}
		printf "]}\n"
	}' >"$2"
}
gen 1 "$tmp/distinct.json"
gen 0 "$tmp/same.json"
best() { # best of 3 wall times, seconds
	local t best=999
	for _ in 1 2 3; do
		t=$( { /usr/bin/time -f %e "$bin" trace -q "$1" >/dev/null; } 2>&1 | tail -1)
		best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (a < b ? a : b) }')
	done
	echo "$best"
}
same=$(best "$tmp/same.json")
distinct=$(best "$tmp/distinct.json")
awk -v n="$names" -v b="$bytes" -v s="$same" -v d="$distinct" 'BEGIN {
	mb = n * b / 1e6
	printf "%d distinct names of %d bytes (%.1f MB): %.3f s, one shared name: %.3f s\n", n, b, mb, d, s
	if (d - s > 0.001) printf "classification: %.0f MB/s of names\n", mb / (d - s)
	else printf "classification: below timer resolution (> %.0f MB/s of names)\n", mb / 0.001
}'

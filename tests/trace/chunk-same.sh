#!/usr/bin/env bash
# Two cores on one trace (issue 27): chunk_same reads each input on one thread and on two (the parse worker, in
# windows, reads and chunks of several sizes) and fails on any difference in the events, the error (message,
# byte, event), the meta or the report (text and JSON). The inputs: every trace fixture, the reader's fuzz
# corpus, hostile documents made here (guesses inside strings and nested objects, tiny events, errors and cuts
# in later chunks, a long name, pretty-printed, gzip) and, with ../shared, a generated trace of 4 MB. Given
# NEXTSTEP too, `nextstep trace` on each made input over 128 KB (where the CLI hands chunks to the worker;
# decompressed, for gzip) must print the same bytes, text, JSON and --roofline, with -j 1 (one thread) and -j 2
# (two: the parse worker, and for ops with shapes their placement beside the split's end). Given NO_THREADS as
# well (no_threads.c built as a library, whose pthread_create always fails; a plain build only, as a
# sanitizer's runtime must be loaded first), -j 2 with it preloaded must print what -j 1 prints too, and so
# must `diff` and `--html`: a helper thread that cannot be started is done on the calling thread, never an
# error.
# Run from the repository root: chunk-same.sh CHUNK_SAME [NEXTSTEP [NO_THREADS]]
set -u
bin=$1 nextstep=${2:-} no_threads=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# events N: N small complete events, as a kernel and its launch would look, comma-separated.
events() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
		if (i > 0) printf ","
		printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d.5,\"dur\":3,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}", i, 10 * i, i
	} }'
}
doc() { printf '{"traceEvents":[%s%s]}' "$(events 1500)" "$1" >"$tmp/$2.json"; }

# A step around the kernels, so the report has something to say.
step='{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":9,"tid":9,"ts":0,"dur":5000}'
printf '{"traceEvents":[%s,%s]}' "$step" "$(events 2000)" >"$tmp/plain.json"
gzip -c "$tmp/plain.json" >"$tmp/plain.json.gz"
# Guesses that are wrong: "},{" inside names (escaped and not) and inside args' nested arrays of objects.
printf '{"traceEvents":[%s,%s]}' "$step" "$(events 1200 | sed 's/"name":"k\([0-9]*\)"/"name":"},{\\"x\\":1},{\1 },{}"/g')" \
	>"$tmp/in-strings.json"
printf '{"traceEvents":[%s,%s]}' "$step" "$(events 1200 | sed 's/"args":{/"args":{"nest":[{"a":1},{"b":[{},{}]},{"c":{"d":[{},{"e":2}]}}],/g')" \
	>"$tmp/nested.json"
# Tiny events: more events than a chunk holds records.
awk 'BEGIN { printf "{\"traceEvents\":["; for (i = 0; i < 20000; i++) printf "%s{}", (i ? "," : ""); printf "]}" }' \
	>"$tmp/tiny.json"
# Errors in a later chunk: the first error in file order, at the same byte and event, with the same message.
doc ',{"ph":"X","ts":1}' x-no-dur
doc ',{"ph":"X","ts":1,"dur":-2}' negative-dur
doc ',{"ph":"X","ts":"1","dur":2}' ts-string
doc ',{"ph":"X","ts":1,"dur":2,}' trailing-comma
doc ',{"ph":"X","name":"bad '$'\x01''byte","ts":1,"dur":2}' control-byte
doc ',{"ph":"X","ts":1,"dur":2},]' comma-bracket
doc ',{"ph":"X","ts":1e999,"dur":2}' ts-range
# A gzip stream that stops, and one broken inside: the read error comes after every event before it, even
# when the worker's window was read ahead of them.
head -c 6000 "$tmp/plain.json.gz" >"$tmp/cut.json.gz"
cp "$tmp/plain.json.gz" "$tmp/corrupt.json.gz"
printf 'XXXXXXXXXXXXXXXX' | dd of="$tmp/corrupt.json.gz" bs=1 seek=5000 conv=notrunc 2>/dev/null
printf '{"traceEvents":[%s,{"ph":"X","ts":1,"dur":1}' "$(events 1500)" >"$tmp/cut-after.json"
events 1500 | head -c 150000 | sed 's/^/{"traceEvents":[/' >"$tmp/cut-inside.json"
printf '[%s' "$(events 1500)" >"$tmp/array-unterminated.json"
printf '[%s,' "$(events 1500)" >"$tmp/array-comma.json"
# Errors in the earlier part, with more after them: the earlier error wins.
printf '{"traceEvents":[{"ph":"X","ts":1},%s,{"ph":"X","ts":1,"dur":-1}]}' "$(events 1500)" >"$tmp/two-errors.json"
# A long name (the window grows), pretty-printed and CRLF documents.
printf '{"traceEvents":[%s,{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":1,"dur":1},%s]}' \
	"$(events 500)" "$(head -c 3000000 /dev/zero | tr '\0' a)" "$(events 500)" >"$tmp/long-name.json"
printf '{"traceEvents":[\n  %s\n]}\n' "$(events 1500 | sed 's/},{/},\n  {/g')" >"$tmp/pretty.json"
printf '{"traceEvents":[\r\n%s\r\n]}\r\n' "$(events 1500 | sed 's/},{/},\r\n\t {/g')" >"$tmp/crlf.json"
sh tests/hostile/gen-steps.sh 3000 2 >"$tmp/steps.json"
# Ops with shapes, their launches and kernels: enough records that -j 2 places them beside the split's end.
awk 'BEGIN { printf "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":200000}"
	for (i = 1; i <= 1500; i++) {
		t = 100 + 100 * i; n = 64 * (1 + i % 8)
		printf ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":50,\"args\":{\"External id\":%d,\"Input Dims\":[[%d,%d],[%d,%d]],\"Input type\":[\"float\",\"float\"]}}", t, i, n, n, n, n
		printf ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,\"args\":{\"External id\":%d,\"correlation\":%d}}", t + 10, i, i
		printf ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_64x64_nn\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,\"args\":{\"External id\":%d,\"correlation\":%d,\"device\":0,\"stream\":7}}", t + 20, 5 + i % 50, i, i
	}
	printf "]}" }' >"$tmp/shapes.json"

inputs=(tests/data/trace*.json fuzz/corpus/trace/* "$tmp"/*.json "$tmp"/*.json.gz)
if [ -x ../shared/tools/make-trace ]; then
	../shared/tools/make-trace --out "$tmp/make-trace.json" --target-mb 4 --seed 7 >/dev/null 2>&1
	inputs+=("$tmp/make-trace.json")
else
	echo "chunk-same: ../shared/tools/make-trace not found: the generated trace is left out"
fi
# Every worker event is one the reader would have parsed itself; the floor says the worker really ran.
"$bin" --min-chunked 20000 --min-ahead 2000 "${inputs[@]}" || exit 1
[ -n "$nextstep" ] || exit 0
n=0 bad=0
for f in "$tmp"/*.json "$tmp"/*.json.gz; do
	case $f in
	*.gz) size=$(gzip -dc "$f" 2>/dev/null | wc -c) ;; # the size the reader sees
	*) size=$(wc -c <"$f") ;;
	esac
	[ "$size" -gt 131072 ] || continue
	for form in text json roofline; do
		args=(--format "$form")
		[ "$form" = roofline ] && args=(--roofline --device a100)
		one=$("$nextstep" trace -j 1 "${args[@]}" "$f" 2>&1; echo "exit $?")
		two=$("$nextstep" trace -j 2 "${args[@]}" "$f" 2>&1; echo "exit $?")
		n=$((n + 1))
		if [ "$one" != "$two" ]; then
			echo "chunk-same: nextstep trace ${args[*]} $(basename "$f"): -j 1 and -j 2 differ"
			bad=$((bad + 1))
		fi
		[ -n "$no_threads" ] || continue
		two=$(PTHREAD_FAILS_MARK=$tmp/refused LD_PRELOAD=$no_threads "$nextstep" trace -j 2 "${args[@]}" "$f" 2>&1
			echo "exit $?")
		n=$((n + 1))
		if [ "$one" != "$two" ]; then
			echo "chunk-same: nextstep trace ${args[*]} $(basename "$f"): -j 2 without threads differs from -j 1"
			bad=$((bad + 1))
		fi
	done
done
# diff loads its two sides on two threads, and --html hashes the page beside the analysis.
if [ -n "$no_threads" ]; then
	export SOURCE_DATE_EPOCH=1700000000
	for how in plain none; do
		preload=$([ "$how" = none ] && echo "$no_threads")
		LD_PRELOAD=$preload "$nextstep" diff "$tmp/plain.json" "$tmp/steps.json" >"$tmp/diff.$how" 2>&1
		echo "exit $?" >>"$tmp/diff.$how"
		LD_PRELOAD=$preload "$nextstep" trace -j 2 --html "$tmp/page.$how.html" "$tmp/shapes.json" >/dev/null 2>&1
		echo "exit $?" >>"$tmp/page.$how.html"
	done
	for out in diff page; do
		n=$((n + 1))
		a=$tmp/$out.plain b=$tmp/$out.none
		[ "$out" = page ] && a=$tmp/page.plain.html b=$tmp/page.none.html
		if ! cmp -s "$a" "$b"; then
			echo "chunk-same: nextstep $out without threads differs"
			bad=$((bad + 1))
		fi
	done
	if [ ! -e "$tmp/refused" ]; then
		echo "chunk-same: $no_threads was not preloaded (no thread was refused)"
		bad=$((bad + 1))
	fi
fi
echo "chunk-same: nextstep trace, -j 1 against -j 2${no_threads:+ and -j 2 without threads}: $n runs, $bad differ"
[ "$n" -ge 10 ] && [ "$bad" -eq 0 ]

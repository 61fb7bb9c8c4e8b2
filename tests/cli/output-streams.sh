#!/usr/bin/env bash
# What reaches standard output, and what happens when it cannot be written:
#  - an endless NDJSON stream into /dev/full stops at once with exit 1 and one message;
#  - the same into a pipe whose reader went away stops with exit 1 and one message (no silent SIGPIPE death);
#  - roofline --svg - puts only the SVG on stdout (the verdict goes to stderr);
#  - a document or page written as it is made (diff's JSON, --html -) into /dev/full: exit 1 and one message.
# Usage: output-streams.sh NEXTSTEP_BINARY
set -u
bin=$1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
check() { t_check "$@"; }

yes '{"compute":0.5}' | timeout 10 "$bin" - >/dev/full 2>"$tmp/err"
code=$?
lines=$(wc -l <"$tmp/err")
[ "$code" = 1 ] && [ "$lines" = 1 ] && grep -q '^nextstep: error writing output: No space left on device$' "$tmp/err"
check write_error_stops_the_stream $? "exit $code (124: still running after 10 s), stderr: $(head -c 300 "$tmp/err")"

yes '{"compute":0.5}' | timeout 10 "$bin" - 2>"$tmp/err" | head -n 1 >/dev/null
code=${PIPESTATUS[1]}
lines=$(wc -l <"$tmp/err")
[ "$code" = 1 ] && [ "$lines" = 1 ] && grep -q '^nextstep: error writing output: Broken pipe$' "$tmp/err"
check closed_pipe_stops_the_stream $? "exit $code, stderr: $(head -c 300 "$tmp/err")"

"$bin" roofline --device h100 --matmul 1024,1024,1024 --svg - >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" = 0 ] && [ "$(head -c 5 "$tmp/out")" = "<?xml" ] && [ "$(tail -n 1 "$tmp/out")" = "</svg>" ] &&
	grep -q '^compute-bound (AI 341 FLOP/B' "$tmp/err"
check svg_to_stdout_is_only_the_svg $? "exit $code, stdout starts '$(head -c 20 "$tmp/out")', stderr: $(head -c 200 "$tmp/err")"

# Issue 26: these said "write error" (no reason) and then the reason, two messages for one failure.
data=$(dirname "$0")/../data
for args in "diff --format json $data/diff/before.json $data/diff/after.json" \
	"diff --html - $data/diff/before.json $data/diff/after.json" "trace --html - $data/trace_buckets.json"; do
	# shellcheck disable=SC2086 # the arguments are split on purpose
	"$bin" $args >/dev/full 2>"$tmp/err"
	code=$?
	lines=$(wc -l <"$tmp/err")
	[ "$code" = 1 ] && [ "$lines" = 1 ] && grep -q '^nextstep: error writing output: No space left on device$' "$tmp/err"
	check "write_error_said_once: $(echo "$args" | cut -d" " -f1-3)" $? "exit $code, stderr: $(head -c 300 "$tmp/err")"
done

t_finish output-streams

#!/usr/bin/env bash
# The parse worker under ThreadSanitizer (issue 27): builds the library, nextstep and chunk_same with clang and
# -fsanitize=thread in BUILD_DIR (default /tmp/nextstep-tsan; a few minutes of CPU the first time, which is why
# this is a script and not a stage of tests/run-all.sh), then runs the equality test (chunk-same.sh: every
# fixture, the fuzz corpus, hostile inputs, in small windows and chunks, and `nextstep trace -j 1` against
# `-j 2`) and nextstep on a generated trace of 60 MB, halting on the first report. Run from the repository root: tests/trace/tsan-chunks.sh [BUILD_DIR]
set -euo pipefail
build=${1:-/tmp/nextstep-tsan}
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="-fsanitize=thread" \
	-DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build "$build" -j2 --target chunk_same nextstep >/dev/null
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
tests/trace/chunk-same.sh "$build/tests/chunk_same" "$build/nextstep"
if [ -x ../shared/tools/make-trace ]; then
	trace=$(mktemp --suffix=.json)
	trap 'rm -f "$trace"' EXIT
	../shared/tools/make-trace --out "$trace" --target-mb 60 --seed 5 >/dev/null 2>&1
	"$build/nextstep" trace --format json "$trace" >/dev/null
	echo "tsan-chunks: nextstep on a 60 MB generated trace: no report"
fi
echo "tsan-chunks: clean"

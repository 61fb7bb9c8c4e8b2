#!/usr/bin/env bash
# The whole test suite, as the README and CI run it:
#   1. a normal build and every CTest test (unit, golden CLI, trace, roofline, docs);
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the libFuzzer harnesses built with clang and run for a few seconds each on their seed corpus.
# Set FUZZ_SECONDS to fuzz longer; set SKIP_FUZZ=1 to leave step 3 out.
set -u
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
stage_failed=0

run_ctest() { # build-dir label
	local log
	log=$(mktemp)
	ctest --test-dir "$1" --output-on-failure -j"$jobs" 2>&1 | tee "$log"
	local summary
	summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
	rm -f "$log"
	if [ -z "$summary" ]; then
		echo "run-all: $2: ctest printed no summary"
		stage_failed=1
		return
	fi
	local nfail total
	nfail=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+)/\1/')
	total=$(echo "$summary" | sed -E 's/.* out of ([0-9]+)/\1/')
	passed=$((passed + total - nfail))
	failed=$((failed + nfail))
}

build() { # build-dir [cmake args...]
	local dir=$1
	shift
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null &&
		cmake --build "$dir" -j"$jobs"
}

echo "== build and test =="
if build build; then run_ctest build plain; else echo "run-all: build failed"; stage_failed=1; fi

echo "== AddressSanitizer + UndefinedBehaviorSanitizer =="
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if build build-asan -DENABLE_SANITIZERS=ON; then run_ctest build-asan sanitizers; else
	echo "run-all: sanitizer build failed"
	stage_failed=1
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
	echo "== fuzz harnesses (${FUZZ_SECONDS:-5} s each) =="
	if ! command -v clang >/dev/null; then
		echo "run-all: clang not found: fuzzing skipped (install clang and libclang-rt-dev)"
	elif CC=clang build build-fuzz -DENABLE_FUZZING=ON -DBUILD_TESTING=OFF; then
		for harness in build-fuzz/fuzz/fuzz_*; do
			[ -x "$harness" ] || continue
			name=$(basename "$harness")
			corpus=fuzz/corpus/${name#fuzz_}
			corpus=${corpus%_read}
			work=$(mktemp -d)
			if "$harness" -max_total_time="${FUZZ_SECONDS:-5}" -rss_limit_mb=2048 -timeout=10 \
				"$work" "$corpus" >"$work.log" 2>&1; then
				echo "fuzz: $name: $(grep -Eo '#[0-9]+' "$work.log" | tail -n 1 | tr -d '#') runs, no finding"
				passed=$((passed + 1))
			else
				tail -n 40 "$work.log"
				echo "fuzz: $name: FAILED"
				failed=$((failed + 1))
			fi
			rm -rf "$work" "$work.log"
		done
	else
		echo "run-all: fuzz build failed"
		stage_failed=1
	fi
fi

[ -d ../shared ] || echo "run-all: ../shared not found: the tests over real and generated traces were skipped"
echo "run-all: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$stage_failed" = 0 ] && [ "$passed" -gt 0 ]

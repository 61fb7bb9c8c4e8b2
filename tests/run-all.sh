#!/usr/bin/env bash
# The whole test suite, as the README and CI run it:
#   1. a build with warnings as errors (-DNEXTSTEP_WERROR=ON) and every CTest test (unit, golden CLI, trace,
#      roofline, docs, completion, install into a temporary prefix, reproducible build);
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. static analysis of src/: cppcheck and clang-tidy, which must print nothing (findings judged not to be
#      defects are listed, with the reason, in .cppcheck-suppressions and .clang-tidy-suppressions);
#   4. the libFuzzer harnesses built with clang and run for a few seconds each on their seed corpus.
# Tests that need ../shared exit 77 when it is absent and are counted as skipped, not passed. A fuzz harness
# is never skipped: without clang it counts as failed. Set FUZZ_SECONDS to fuzz longer; SKIP_FUZZ=1 leaves
# step 4 out. The last line is "run-all: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.." || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
skipped=0

run_ctest() { # build-dir label
	local log summary nfail total nskip
	log=$(mktemp)
	ctest --test-dir "$1" --output-on-failure -j"$jobs" 2>&1 | tee "$log"
	summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
	# CTest counts a skipped test (exit 77) as not failed; it lists them as "NN - name (Skipped)".
	nskip=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log")
	rm -f "$log"
	if [ -z "$summary" ]; then
		echo "run-all: $2: ctest printed no summary"
		failed=$((failed + 1))
		return
	fi
	nfail=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+)/\1/')
	total=$(echo "$summary" | sed -E 's/.* out of ([0-9]+)/\1/')
	passed=$((passed + total - nfail - nskip))
	failed=$((failed + nfail))
	skipped=$((skipped + nskip))
}

build() { # build-dir [cmake args...]
	local dir=$1
	shift
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEXTSTEP_WERROR=ON "$@" >/dev/null &&
		cmake --build "$dir" -j"$jobs"
}

stage_failed() { # message
	echo "run-all: $1"
	failed=$((failed + 1))
}

echo "== build (warnings are errors) and test =="
if build build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; then run_ctest build plain; else stage_failed "build failed"; fi

echo "== AddressSanitizer + UndefinedBehaviorSanitizer =="
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if build build-asan -DENABLE_SANITIZERS=ON; then run_ctest build-asan sanitizers; else
	stage_failed "sanitizer build failed"
fi

echo "== static analysis: cppcheck, clang-tidy =="
# src/ includes the headers' unstable tier: without its macro cppcheck would skip, silently, every file that
# includes one (their #error), and --force keeps every other configuration checked.
if ! command -v cppcheck >/dev/null; then
	stage_failed "cppcheck not found (apt-get install cppcheck)"
elif out=$(cppcheck -q --std=c11 --enable=warning,performance,portability --inline-suppr \
	--suppressions-list=.cppcheck-suppressions -DNEXTSTEP_STATIC_LINKING_ONLY --force -I include -I src -I src/trace \
	-j"$jobs" src 2>&1) &&
	[ -z "$out" ]; then
	echo "cppcheck: src/ is clean"
	passed=$((passed + 1))
else
	echo "$out"
	stage_failed "cppcheck found the above"
fi
if ! command -v clang-tidy >/dev/null; then
	stage_failed "clang-tidy not found (apt-get install clang-tidy)"
elif [ ! -f build/compile_commands.json ]; then
	stage_failed "clang-tidy: no build/compile_commands.json"
else
	# Each finding is "FILE:LINE:COL: warning: what [check]"; the suppressions list "check path reason".
	out=$(find src -name '*.c' -print0 | xargs -0 -P"$jobs" -n4 clang-tidy -p build --quiet 2>/dev/null |
		grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' | sed "s|^$PWD/||" | sort -u |
		awk 'NR == FNR { if ($0 !~ /^#/ && NF >= 2) skip[$1 " " $2] = 1; next }
			{ check = $NF; gsub(/[][]/, "", check); file = $1; sub(/:.*/, "", file)
			  if (!((check " " file) in skip)) print }' .clang-tidy-suppressions -)
	if [ -z "$out" ]; then
		echo "clang-tidy: src/ is clean"
		passed=$((passed + 1))
	else
		echo "$out"
		stage_failed "clang-tidy found the above"
	fi
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
	echo "== fuzz harnesses (${FUZZ_SECONDS:-5} s each) =="
	if ! command -v clang >/dev/null; then
		stage_failed "clang not found: the fuzz harnesses could not run (install clang and libclang-rt-dev)"
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
		stage_failed "fuzz build failed"
	fi
fi

[ -d ../shared ] || echo "run-all: ../shared not found: the tests over real and generated traces were skipped"
echo "run-all: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]

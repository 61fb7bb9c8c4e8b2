#!/usr/bin/env bash
# The whole test suite, as the README and CI run it:
#   1. a build with warnings as errors (-DNEXTSTEP_WERROR=ON) and every CTest test (unit, golden CLI, trace,
#      roofline, docs, completion, install into a temporary prefix, reproducible build);
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, built with clang (gcc without clang),
#      and in the same build the libFuzzer harnesses over the same instrumented library;
#   3. static analysis of src/ (tests/static-analysis.sh): cppcheck and clang-tidy, which must print nothing
#      (findings judged not to be defects are listed, with the reason, in .cppcheck-suppressions and
#      .clang-tidy-suppressions). clang-tidy's static analyzer runs on the readers of untrusted input listed in
#      .clang-tidy-analyzer and on the files changed against a base, its other checks on every file
#      (`tests/static-analysis.sh --all` runs the analyzer on every file; CI runs it after this suite). A file
#      unchanged since its last analysis is not analysed again (CLANG_TIDY_ALL=1 analyses all). It
#      runs from the plain build's configuration on, beside 1, 2 and 4, niced, and is printed after them;
#   4. the fuzz harnesses, a few seconds each on their seed corpus, one per processor at a time.
# Tests that need ../shared exit 77 when it is absent and are counted as skipped, not passed. A fuzz harness
# is never skipped: without clang it counts as failed. Set FUZZ_SECONDS to fuzz longer; SKIP_FUZZ=1 leaves
# step 4 out. The last line is "run-all: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.." || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
skipped=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The tests start python3 several hundred times and need only its standard library: the system's interpreter where
# it has what they import (Debian's /usr/bin/python3, as on CI: 0.04 s of CPU a start with json and sqlite3), else
# the interpreter itself, not a version manager's shim (pyenv's: 0.15 s a start; its interpreter with its
# site-packages: 0.09 s).
if /usr/bin/python3 -c 'import sqlite3, gzip, zlib, decimal, html.parser, xml.etree.ElementTree' 2>/dev/null; then
	py=/usr/bin/python3
else
	py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
fi
if [ -n "$py" ] && [ -x "$py" ]; then
	mkdir -p "$scratch/bin" && ln -s "$py" "$scratch/bin/python3" && PATH=$scratch/bin:$PATH
fi

run_ctest() { # build-dir label
	local log summary nfail total nskip
	log=$scratch/ctest.log
	ctest --test-dir "$1" --output-on-failure -j"$jobs" 2>&1 | tee "$log"
	summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
	# CTest counts a skipped test (exit 77) as not failed; it lists them as "NN - name (Skipped)".
	nskip=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log")
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

# A build folder configured here for the first time uses Ninja when it is installed (CMake keeps a folder's
# generator; CMAKE_GENERATOR chooses another): make's bookkeeping between the compilers cost 3 s more CPU per
# build (the plain build, 2026-12-04: 40 s of CPU with make, 37 s with Ninja).
configure() { # build-dir [cmake args...]
	local dir=$1 generator=()
	shift
	if [ ! -f "$dir/CMakeCache.txt" ] && [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null; then
		generator=(-G Ninja)
	fi
	cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEXTSTEP_WERROR=ON -DBUILD_TESTING=ON \
		"$@" >/dev/null
}
build() { # build-dir [cmake args...]
	configure "$@" && cmake --build "$1" -j"$jobs"
}

stage_failed() { # message
	echo "run-all: $1"
	failed=$((failed + 1))
}

# The time of each stage, wall and CPU (user + system of the processes it ran), on one line at its end: the
# suite's budget is 5 minutes on an idle 2-core machine, so CPU / 2 is about the least wall time a stage takes.
children_cpu() { # sets cpu to the seconds of CPU of the children waited for so far (bash's times, read from a
	# file: in a pipeline or $(...) it would run in a subshell, which has no children yet)
	local file=$scratch/times.$BASHPID # this shell's: the static analysis runs in a subshell of its own
	times >"$file"
	cpu=$(sed -n 2p "$file" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }
		printf "%.1f", n }')
}
stage_start() {
	children_cpu
	stage_wall=$SECONDS stage_cpu=$cpu
}
# The static analysis runs beside the stages, and its CPU joins the children's when it has ended and been waited
# for, during whichever stage was running then: that stage's line leaves it out (it has a line of its own, "static
# analysis: time: ..."). Waited for is when /proc has no entry for it any more (Linux; elsewhere, and in the
# moment between its line and its end, the stage's line still counts it).
static_cpu_left_out=
stage_end() { # name
	local stage static
	children_cpu
	stage=$(echo "$cpu $stage_cpu" | awk '{ printf "%.0f", $1 - $2 }')
	if [ -n "$static_pid" ] && [ -z "$static_cpu_left_out" ] && [ -d /proc/self ] && [ ! -e "/proc/$static_pid" ]; then
		static=$(sed -nE 's/^static analysis: time: [0-9]+ s wall, ([0-9]+) s CPU$/\1/p' "$scratch/static.out")
		if [ -n "$static" ]; then
			stage=$((stage - static))
			static_cpu_left_out=1
		fi
	fi
	echo "run-all: time: $1: $((SECONDS - stage_wall)) s wall, $stage s CPU"
}

# The niceness of each analysis job to come (tests/static-analysis.sh reads it): 10 while other stages run, 0 once
# they are done (a file, read by each job as it starts: a process cannot lower its own niceness again without
# privileges, and on a machine busy with other work a niced analysis alone would wait for all of it).
export static_nice=$scratch/static.nice
echo 10 >"$static_nice"

# Static analysis (tests/static-analysis.sh: cppcheck, and clang-tidy with its static analyzer on the readers of
# untrusted input and the changed files) needs only the plain build's compile_commands.json, so it runs from its
# configuration on, beside the other stages, niced ($static_nice): each of those leaves a processor idle at times
# (a link, a test that waits, the end of a CTest run), and the analysis, 120 short jobs, fills it. Its output is
# printed, and its results counted, when it has finished (after the fuzz stage).

echo "== build (warnings are errors) and test =="
stage_start
static_pid=
if configure build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; then
	bash tests/static-analysis.sh >"$scratch/static.out" 2>&1 &
	static_pid=$!
fi
if build build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; then run_ctest build plain; else stage_failed "build failed"; fi
stage_end "build and test"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer (and the fuzz harnesses) =="
stage_start
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
have_fuzz=
if command -v clang >/dev/null; then
	fuzzing=ON
	[ "${SKIP_FUZZ:-0}" = 1 ] && fuzzing=OFF
	# a build-asan configured with another compiler (CMake keeps the first one) is started again
	grep -qs '^CMAKE_C_COMPILER:[A-Z]*=.*clang' build-asan/CMakeCache.txt || rm -rf build-asan
	CC=clang build build-asan -DENABLE_SANITIZERS=ON -DENABLE_FUZZING=$fuzzing && have_fuzz=$fuzzing
	asan_built=$?
else
	echo "run-all: clang not found: sanitizers with the default compiler, no fuzz harnesses"
	build build-asan -DENABLE_SANITIZERS=ON -DENABLE_FUZZING=OFF
	asan_built=$?
fi
if [ "$asan_built" = 0 ]; then run_ctest build-asan sanitizers; else stage_failed "sanitizer build failed"; fi
stage_end "sanitizers"


# fuzz_one HARNESS LOG: runs a harness on a scratch copy of nothing plus its seed corpus; "ok" or "failed" in
# LOG.status.
fuzz_one() {
	local name corpus work
	name=$(basename "$1")
	corpus=fuzz/corpus/${name#fuzz_}
	# fuzz_trace_read's seeds are fuzz/corpus/trace; a harness whose folder has its full name uses that
	[ -d "$corpus" ] || corpus=${corpus%_read}
	work=$(mktemp -d)
	# libFuzzer stops once more than -max_total_time whole seconds have passed, so N runs N + 1 s (measured:
	# 3 ran 4.2 s, 1 ran 2.15 s); 0 would be no limit, so the least is 2 s
	if "$1" -max_total_time="$((fuzz_seconds > 2 ? fuzz_seconds - 1 : 1))" -rss_limit_mb=2048 -timeout=10 \
		"$work" "$corpus" >"$2" 2>&1; then
		echo ok >"$2.status"
	else
		echo failed >"$2.status"
	fi
	rm -rf "$work"
}
if [ "${SKIP_FUZZ:-0}" != 1 ]; then
	fuzz_seconds=${FUZZ_SECONDS:-3}
	echo "== fuzz harnesses ($fuzz_seconds s each, $jobs at a time) =="
	stage_start
	if ! command -v clang >/dev/null; then
		stage_failed "clang not found: the fuzz harnesses could not run (install clang and libclang-rt-dev)"
	elif [ "$have_fuzz" != ON ]; then
		stage_failed "fuzz build failed (built with the sanitizers in build-asan)"
	else
		mkdir -p "$scratch/fuzz"
		# $jobs at a time, waited for by process id (the static analysis runs in the background too); each runs
		# for the same time, so the oldest ends first
		fuzzing_pids=()
		for harness in build-asan/fuzz/fuzz_*; do
			[ -x "$harness" ] || continue
			if [ "${#fuzzing_pids[@]}" -ge "$jobs" ]; then
				wait "${fuzzing_pids[0]}"
				fuzzing_pids=("${fuzzing_pids[@]:1}")
			fi
			fuzz_one "$harness" "$scratch/fuzz/$(basename "$harness")" &
			fuzzing_pids+=($!)
		done
		[ "${#fuzzing_pids[@]}" = 0 ] || wait "${fuzzing_pids[@]}"
		for harness in build-asan/fuzz/fuzz_*; do
			[ -x "$harness" ] || continue
			name=$(basename "$harness")
			log=$scratch/fuzz/$name
			if [ "$(cat "$log.status" 2>/dev/null)" = ok ]; then
				echo "fuzz: $name: $(grep -Eo '#[0-9]+' "$log" | tail -n 1 | tr -d '#') runs, no finding"
				passed=$((passed + 1))
			else
				tail -n 40 "$log"
				echo "fuzz: $name: FAILED"
				failed=$((failed + 1))
			fi
		done
	fi
	stage_end "fuzz"
fi

echo "== static analysis: cppcheck, clang-tidy (ran beside the stages above) =="
echo 0 >"$static_nice"
if [ -z "$static_pid" ]; then
	stage_failed "static analysis: the plain build could not be configured (no compile_commands.json)"
else
	wait "$static_pid"
	grep -v '^static-analysis: [0-9]* passed, [0-9]* failed$' "$scratch/static.out"
	if read -r static_passed static_failed < <(sed -nE 's/^static-analysis: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' \
		"$scratch/static.out"); then
		passed=$((passed + static_passed))
		failed=$((failed + static_failed))
	else
		stage_failed "static analysis did not finish"
	fi
fi

[ -d ../shared ] || echo "run-all: ../shared not found: the tests over real and generated traces were skipped"
children_cpu
echo "run-all: time: all: $SECONDS s wall, ${cpu%.*} s CPU"
echo "run-all: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]

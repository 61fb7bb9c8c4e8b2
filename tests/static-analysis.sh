#!/usr/bin/env bash
# tests/static-analysis.sh [--all]: cppcheck and clang-tidy over src/; both must print nothing (findings judged
# not to be defects are listed, with the reason, in .cppcheck-suppressions and .clang-tidy-suppressions). Needs
# build/compile_commands.json (cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON). tests/run-all.sh runs it (without
# --all) beside its other stages.
#
# clang-tidy's checks other than the static analyzer (the bug-prone checks) run on every file. The static
# analyzer (clang-analyzer-*), which follows paths through each function, costs about 30 times as much (measured
# 2026-12-03: 8.5 s of CPU for all of src/ without it, 200-300 s with it), so by default it runs on
#   - the files .clang-tidy-analyzer lists: the readers of untrusted input and what carries their bytes;
#   - the files changed against a base: the commits since HEAD's merge base with CLANG_TIDY_BASE (default
#     origin/HEAD, else main), and uncommitted and untracked files; a changed header counts for each .c file
#     that includes it by name.
# --all (or CLANG_TIDY_ANALYZER=all) runs the analyzer on every file: before landing a change to src/, and in CI
# after the suite (.ci/run).
#
# A file whose source, headers, flags and checks are unchanged since its last analysis is not analysed again: its
# findings are read from build/clang-tidy-cache, and cppcheck's from build/cppcheck-cache (CLANG_TIDY_ALL=1
# analyses every file). A file the static analyzer has analysed needs no quick run of the other checks. CI runs
# in a fresh clone, so there the caches hold only what the suite's own run analysed: the `--all` after it
# analyses only the files the suite did not run the analyzer on (about 80 s of CPU less).
# Each job runs at the niceness the file $static_nice holds when it starts (tests/run-all.sh lowers it once its
# other stages are done), 0 without it. The last two lines: "static analysis: time: ..." and
# "static-analysis: N passed, N failed"; the exit status is 0 when nothing failed.
set -u
cd "$(dirname "$0")/.." || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
[ "${1:-}" = --all ] && CLANG_TIDY_ANALYZER=all
passed=0
failed=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
start=$SECONDS
niceness() { cat "${static_nice:-/nonexistent}" 2>/dev/null || echo 0; }
export -f niceness

# tidy_file FILE CACHE KEY MODE: clang-tidy's findings for FILE (MODE "analyzer": all the checks of .clang-tidy,
# "quick": all but the static analyzer), kept in CACHE/KEY when it ran to the end.
tidy_file() {
	local out status checks=()
	[ "$4" = quick ] && checks=(--checks=-clang-analyzer-*)
	out=$(nice -n "$(niceness)" clang-tidy -p build --quiet "${checks[@]}" "$1" 2>/dev/null)
	status=$?
	printf '%s\n' "$out"
	[ $status = 0 ] && [ -n "$2" ] && printf '%s\n' "$out" >"$2/$3"
}
export -f tidy_file

# changed_files: the src/ files changed against the base (see above), one a line; nothing outside git.
changed_files() {
	local base=${CLANG_TIDY_BASE:-} ref mb
	git rev-parse --git-dir >/dev/null 2>&1 || return 0
	if [ -z "$base" ]; then
		for ref in origin/HEAD main; do
			if git rev-parse -q --verify "$ref^{commit}" >/dev/null; then
				base=$ref
				break
			fi
		done
	fi
	[ -n "$base" ] && mb=$(git merge-base HEAD "$base" 2>/dev/null) || return 0
	{ git diff --name-only "$mb" -- src && git ls-files --others --exclude-standard -- src; } | sort -u
}

# analyzer_files: the .c files the static analyzer runs on, one a line.
analyzer_files() {
	if [ "${CLANG_TIDY_ANALYZER:-}" = all ]; then
		find src -name '*.c'
		return
	fi
	# .clang-tidy-analyzer: "PATH  reason" lines; a PATH ending in / is every .c file under it
	local path
	grep -Ev '^(#|[[:space:]]*$)' .clang-tidy-analyzer | while read -r path _; do
		case $path in
		*/) find "$path" -name '*.c' ;;
		*) echo "$path" ;;
		esac
	done
	changed_files >"$scratch/changed"
	grep '\.c$' "$scratch/changed"
	grep '\.h$' "$scratch/changed" | while read -r header; do
		grep -rlE "#include \"([^\"]*/)?$(basename "$header" | sed 's/\./\\./g')\"" src --include='*.c'
	done
}

# src/ includes the headers' unstable tier: without its macro cppcheck would skip, silently, every file that
# includes one (their #error), and --force keeps every other configuration checked. cppcheck keeps
# its results in build/cppcheck-cache and checks again only a file whose preprocessed code or options changed
# (14 s of CPU for all of src/, 3.4 s when nothing changed, measured 2026-12-05).
cppcheck_cache=()
if [ "${CLANG_TIDY_ALL:-0}" != 1 ] && [ -d build ] && mkdir -p build/cppcheck-cache; then
	cppcheck_cache=(--cppcheck-build-dir=build/cppcheck-cache)
fi
if ! command -v cppcheck >/dev/null; then
	echo "static-analysis: cppcheck not found (apt-get install cppcheck)"
	failed=$((failed + 1))
elif out=$(nice -n "$(niceness)" cppcheck -q --std=c11 --enable=warning,performance,portability --inline-suppr \
	--suppressions-list=.cppcheck-suppressions -DNEXTSTEP_STATIC_LINKING_ONLY --force -I include -I src -I src/trace \
	-j"$jobs" "${cppcheck_cache[@]}" src 2>&1) &&
	[ -z "$out" ]; then
	echo "cppcheck: src/ is clean"
	passed=$((passed + 1))
else
	echo "$out"
	echo "static-analysis: cppcheck found the above"
	failed=$((failed + 1))
fi

if ! command -v clang-tidy >/dev/null; then
	echo "static-analysis: clang-tidy not found (apt-get install clang-tidy)"
	failed=$((failed + 1))
elif [ ! -f build/compile_commands.json ]; then
	echo "static-analysis: clang-tidy: no build/compile_commands.json"
	failed=$((failed + 1))
elif missing=$(grep -Ev '^(#|[[:space:]]*$)' .clang-tidy-analyzer | while read -r path _; do
	[ -e "$path" ] || echo "$path"
done) && [ -n "$missing" ]; then
	# a file renamed or moved would silently leave the analyzer
	echo "static-analysis: .clang-tidy-analyzer lists what does not exist: $missing"
	failed=$((failed + 1))
else
	# A file's key: its own bytes, its mode and, for all files at once, every header, the flags, the checks and
	# the clang-tidy version. A file whose key has a result is not analysed again: its findings
	# (none, or those the suppressions then judge) are read from the cache.
	cache=build/clang-tidy-cache
	mkdir -p "$cache"
	common=$({ clang-tidy --version && cat .clang-tidy build/compile_commands.json &&
		find src include -name '*.h' | sort | xargs cat; } | sha256sum | cut -c1-64)
	analyzer_files | sort -u >"$scratch/analyzer"
	: >"$scratch/tidy.todo"
	: >"$scratch/tidy.found"
	total=0
	analysed=0
	# Bash's own tables, not a grep, sha256sum or basename a file: on this VM a process start costs some
	# milliseconds, and these were 1,000 of them (5 s of CPU on every run).
	declare -A in_analyzer=() bytes_sum=() kept=()
	hits=()
	while read -r f; do in_analyzer[$f]=1; done <"$scratch/analyzer"
	while read -r sum f; do bytes_sum[$f]=$sum; done < <(find src -name '*.c' -print0 | xargs -0 sha256sum)
	# the analyzer's files first, largest first (its time grows with a file's size: job_merge.c takes 15 s),
	# so the analysis does not end on one long file with a processor idle
	for f in $(find src -name '*.c' -printf '%s %p\n' | sort -k1,1nr -k2 | cut -d' ' -f2); do
		mode=quick
		[ -n "${in_analyzer[$f]:-}" ] && mode=analyzer
		# a file's key: the common part, its path, its bytes and the mode
		id=${common:0:32}-${f//\//_}-${bytes_sum[$f]:0:32}
		key=$id-$mode
		# The analyzer's run of the same bytes ran every check a quick one runs, so its findings serve a
		# quick one too (they may say more, never less): after `--all`, as CONTRIBUTING asks before
		# landing and CI runs after the suite, the suite's quick checks are not run again.
		full=$id-analyzer
		kept[$key]=1 kept[$full]=1
		total=$((total + 1))
		[ $mode = analyzer ] && analysed=$((analysed + 1))
		hit=
		if [ "${CLANG_TIDY_ALL:-0}" != 1 ]; then
			for k in "$key" "$full"; do
				[ -f "$cache/$k" ] && hit=$cache/$k && break
			done
		fi
		if [ -n "$hit" ]; then
			hits+=("$hit")
		else
			printf '%s %s %s %s\n' "$([ $mode = analyzer ] && echo 0 || echo 1)" "$f" "$key" "$mode" >>"$scratch/tidy.todo"
		fi
	done
	[ "${#hits[@]}" = 0 ] || cat "${hits[@]}" >>"$scratch/tidy.found"
	# entries no file has any more
	for entry in "$cache"/*; do
		[ -e "$entry" ] && [ -z "${kept[${entry##*/}]:-}" ] && rm -f "$entry"
	done
	todo=$(wc -l <"$scratch/tidy.todo")
	if [ "$analysed" = "$total" ]; then
		echo "clang-tidy: all checks, the static analyzer included, on all $total files"
	else
		echo "clang-tidy: the static analyzer on $analysed of $total files (the readers of untrusted input in" \
			".clang-tidy-analyzer, and the files changed against the base: $(grep -c . "$scratch/changed")), the" \
			"other checks on all (tests/static-analysis.sh --all: the analyzer on all)"
	fi
	if [ "$todo" != "$total" ]; then
		echo "clang-tidy: analysing $todo of $total files; the others' findings are those of their last analysis," \
			"as they have not changed since (CLANG_TIDY_ALL=1 analyses all)"
	fi
	# Each finding is "FILE:LINE:COL: warning: what [check]"; the suppressions list "check path reason".
	sort -s -k1,1n "$scratch/tidy.todo" | cut -d' ' -f2- |
		xargs -P"$jobs" -L1 bash -c 'tidy_file "$1" "$0" "$2" "$3"' "$cache" >>"$scratch/tidy.found"
	out=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$scratch/tidy.found" | sed "s|^$PWD/||" | sort -u |
		awk 'NR == FNR { if ($0 !~ /^#/ && NF >= 2) skip[$1 " " $2] = 1; next }
			{ check = $NF; gsub(/[][]/, "", check); file = $1; sub(/:.*/, "", file)
			  if (!((check " " file) in skip)) print }' .clang-tidy-suppressions -)
	if [ -z "$out" ]; then
		echo "clang-tidy: src/ is clean"
		passed=$((passed + 1))
	else
		echo "$out"
		echo "static-analysis: clang-tidy found the above"
		failed=$((failed + 1))
	fi
fi

# user + system CPU of the processes waited for (bash's times, second line)
times >"$scratch/times"
cpu=$(sed -n 2p "$scratch/times" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }
	printf "%.0f", n }')
echo "static analysis: time: $((SECONDS - start)) s wall, $cpu s CPU"
echo "static-analysis: $passed passed, $failed failed"
[ "$failed" = 0 ]

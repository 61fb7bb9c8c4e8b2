# shellcheck shell=bash
# Sourced by the bench scripts: one scratch folder per run, sizes that follow links, and a cache of generated
# inputs under $TMPDIR that two runs at once can share.

# A private scratch folder for this run in $scratch, removed at exit: two runs at once never write the same
# file (GNU time's report, an HTML page).
bench_scratch() {
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/nextstep-bench.XXXXXX")
	# shellcheck disable=SC2064 # the folder's name is fixed now
	trap "rm -rf '$scratch'" EXIT
}

# The size in bytes of FILE, or of what it links to (a trace may be a link into ../shared).
bench_size() {
	stat -L -c %s "$1"
}

# bench_cache FILE COMMAND...: unless FILE exists and is not empty, runs COMMAND with its standard output into
# a private temporary file and renames that to FILE, so a second run at once never reads half a file.
bench_cache() {
	local file=$1 part
	shift
	[ -s "$file" ] && return 0
	part=$(mktemp "$file.XXXXXX")
	if "$@" >"$part"; then mv -f "$part" "$file"; else rm -f "$part"; return 1; fi
}

# bench_make_trace FILE MAKE_TRACE ARGS...: a generated trace, cached like bench_cache (make-trace writes to
# --out, not to its standard output).
bench_make_trace() {
	local file=$1 part
	shift
	[ -s "$file" ] && return 0
	part=$(mktemp "$file.XXXXXX")
	if "$@" --out "$part" >/dev/null 2>&1; then mv -f "$part" "$file"; else rm -f "$part"; return 1; fi
}

# bench_scan_bench SRC BUILD OUT: bench/scan_bench.c (ns_trace_read() with a counting callback) linked with
# BUILD's libnextstep.a, the unstable tier of its headers, and the library's own dependencies (as
# `pkg-config --static` lists them).
bench_scan_bench() {
	# shellcheck disable=SC2046 # a list of flags
	cc -std=c11 -O2 -DNEXTSTEP_STATIC_LINKING_ONLY -I"$1/include" "$1/bench/scan_bench.c" "$2/libnextstep.a" \
		$(pkg-config --libs libcjson zlib libpcre2-8) -lpthread -lm -o "$3"
}

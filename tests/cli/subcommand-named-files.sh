#!/usr/bin/env bash
# A file named like a subcommand (trace, diff, devices, ...): the first word is always the subcommand, so
# `nextstep diff` stays the subcommand even beside a file named diff; the file is routed as ./diff, after --,
# or after any option (the subcommand is only ever the first word).
# Usage: subcommand-named-files.sh NEXTSTEP_BINARY
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
bin=$(t_binary "$1")
cd "$tmp" || exit 1
check() { t_check "$@"; }
# examples/compute.json holds compute 0.72, the largest share: the router says compute.
cp "$src/examples/compute.json" diff
cp "$src/examples/compute.json" trace

out=$("$bin" -q ./diff 2>&1)
check dot_slash_routes_the_file "$([ "$out" = compute ]; echo $?)" "$out"
out=$("$bin" -q -- diff 2>&1)
check double_dash_routes_the_file "$([ "$out" = compute ]; echo $?)" "$out"
out=$("$bin" -q diff 2>&1)
check a_word_after_an_option_is_a_file "$([ "$out" = compute ]; echo $?)" "$out"
# The subcommand still wins as the first word: diff wants two inputs, so one is a usage error.
"$bin" diff diff >/dev/null 2>"$tmp/err"
check first_word_stays_the_subcommand "$([ $? = 2 ] && grep -q "^nextstep: diff: give two inputs" "$tmp/err"; echo $?)" "$(cat "$tmp/err")"
# 'nextstep trace trace' reads the file named trace as a trace: a profile there is not one.
"$bin" trace trace >/dev/null 2>"$tmp/err"
check trace_subcommand_reads_the_file_named_trace "$([ $? = 1 ] && grep -q "^nextstep: trace" "$tmp/err"; echo $?)" "$(cat "$tmp/err")"

t_finish subcommand-named-files

#!/usr/bin/env bash
# The README's "Whole jobs" recipe, run locally: rank summaries made by GNU parallel (`--sshlogin :` is this
# machine; on a cluster it is the hosts that hold the traces), merged by `nextstep job`, must give a report
# byte-identical to `nextstep trace DIR` reading the same 8 generated ranks directly, in text and JSON. Both
# forms of the recipe are run: one job per host over its directory (--nonall), and one job per file.
# Skips (77) without ../shared (the generator) or without GNU parallel (Debian package `parallel`).
# Usage: parallel-recipe.sh NEXTSTEP_BINARY
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
bin=$(t_binary "$1")
gen=$src/../shared/tools/make-trace
t_need_shared "$gen"
if ! command -v parallel >/dev/null || ! parallel --version 2>/dev/null | grep -q '^GNU parallel'; then
	t_skip "GNU parallel not installed (apt-get install parallel)"
fi
mkdir -p "$tmp/bin" "$tmp/traces"
ln -s "$bin" "$tmp/bin/nextstep"
export PATH="$tmp/bin:$PATH" # the recipe calls `nextstep` as a user's shell finds it
fail=0
check() { # name expected actual
	if cmp -s "$2" "$3"; then
		echo "ok: $1"
	else
		echo "FAIL: $1"
		diff -u "$2" "$3" | head -n 20
		fail=1
	fi
}

"$gen" --out "$tmp/traces" --ranks 8 --straggler 3 --clock-skew 200 --steps 6 >/dev/null 2>&1 || exit 1
dir=$tmp/traces
nextstep trace "$dir" >"$tmp/direct.txt" || { echo "FAIL: nextstep trace DIR exit $?"; exit 1; }
nextstep trace --format json "$dir" >"$tmp/direct.json" || exit 1
grep -q '^job (8 ranks): straggler-bound: rank 3' "$tmp/direct.txt" ||
	{ echo "FAIL: the direct report does not name rank 3 (the generator's straggler)"; fail=1; }

# One job per host, over the traces it holds: the README's form.
parallel --will-cite --sshlogin : --nonall nextstep trace --summary "$dir" >"$tmp/by-host.ndjson" || fail=1
nextstep job "$tmp/by-host.ndjson" >"$tmp/by-host.txt" || fail=1
check "parallel --nonall, then nextstep job: the same text report" "$tmp/direct.txt" "$tmp/by-host.txt"
nextstep job --format json "$tmp/by-host.ndjson" >"$tmp/by-host.json" || fail=1
check "... and the same JSON" "$tmp/direct.json" "$tmp/by-host.json"

# One job per file, four at a time, finishing in any order: the summaries' order must not matter.
parallel --will-cite --sshlogin 4/: nextstep trace --summary ::: "$dir"/*.pt.trace.json >"$tmp/by-file.ndjson" || fail=1
[ "$(wc -l <"$tmp/by-file.ndjson")" = 8 ] || { echo "FAIL: not 8 summary lines"; fail=1; }
nextstep job - <"$tmp/by-file.ndjson" >"$tmp/by-file.txt" || fail=1
check "parallel over the files, then nextstep job -: the same text report" "$tmp/direct.txt" "$tmp/by-file.txt"
exit $fail

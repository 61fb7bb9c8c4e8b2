#!/usr/bin/env bash
# The generated traces in examples/traces (the README's job and diff examples read them) are what their recorded
# generator command writes: examples/traces/generate.sh is run again with ../shared/tools/make-trace and every
# file must hold the same trace, byte for byte once decompressed. Skipped (77) without ../shared.
# Run from the repository root.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
make_trace=../shared/tools/make-trace
t_need_shared "$make_trace"
if ! sh examples/traces/generate.sh "$make_trace" "$tmp/again" 2>"$tmp/err"; then
	cat "$tmp/err"
	t_check "generate.sh runs" 1 "exit status $?"
fi
committed=$(cd examples/traces && find . -name '*.json.gz' | sort)
generated=$(cd "$tmp/again" && find . -name '*.json.gz' | sort)
t_check "the same files" "$([ "$committed" = "$generated" ] && echo 0 || echo 1)" \
	"committed: $(echo $committed), generated: $(echo $generated)"
for f in $committed; do
	if cmp -s <(gzip -dc "examples/traces/$f") <(gzip -dc "$tmp/again/$f" 2>/dev/null); then
		t_check "$f" 0 ""
	else
		t_check "$f" 1 "differs from what generate.sh writes"
	fi
done
t_finish "example traces"

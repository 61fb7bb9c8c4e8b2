#!/usr/bin/env bash
# Every trace fixture in tests/data rendered as text, JSON and HTML: the three forms carry the same verdict,
# fix, next steps and notes (issue 21: one report model, three renderings). Usage: three-forms.sh NEXTSTEP_BINARY
set -u
bin=$1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$src" || exit 1
for f in tests/data/trace_*.json; do
	name=$(basename "$f" .json)
	case $name in *.expect) continue ;; esac
	"$bin" trace "$f" >"$tmp/text" 2>/dev/null
	code=$?
	[ "$code" -le 1 ] || continue # not a trace the report reads (a bad fixture's error)
	"$bin" trace --format json "$f" >"$tmp/json" 2>/dev/null || continue
	"$bin" trace --html "$tmp/page.html" "$f" >/dev/null 2>&1 || continue
	grep -q '"devices":\[{' "$tmp/json" || continue # nothing to route
	python3 "$here/three_forms.py" "$tmp/text" "$tmp/json" "$tmp/page.html" >"$tmp/check"
	t_check "$name" $? "$(cat "$tmp/check")"
done
t_finish "three forms"

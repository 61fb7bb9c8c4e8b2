#!/usr/bin/env bash
# The split rules on the small hand-written traces in tests/data/trace_*.json: every bucket, overlap, dataloader
# vs overhead vs a synchronize wait, host work on other threads, blocking copies, set-up and warm-up, a start-up
# trace, gloo on the host, no device at all, old-style categories, B/E pairs, no steps, comm linked through the
# launching op, two devices. Each trace_NAME.json has trace_NAME.expect.json with the exact numbers. Also: gzip,
# stdin and the router's sniffing give the same report, and a report's "overall" routes the same through
# `nextstep -`. Run from the repository root: fixtures.sh NEXTSTEP_BINARY
set -u
bin=$1
here=$(dirname "$0")
check="python3 $here/check_split.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass=0

verdict() { # the regime of a report's overall object, via the router
	$check overall "$1" "$2" | "$bin" - --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["regime"])'
}

for expect in tests/data/trace_*.expect.json; do
	trace=${expect%.expect.json}.json
	name=$(basename "$trace" .json)
	ok=1
	if ! "$bin" trace --format json --steps "$trace" >"$tmp/$name.json" 2>"$tmp/err"; then
		echo "FAIL $name: nextstep exited $?: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	$check sanity "$tmp/$name.json" || ok=0
	$check expect "$tmp/$name.json" "$expect" || ok=0
	$check gpu_util "$trace" "$tmp/$name.json" || ok=0
	gzip -c "$trace" >"$tmp/$name.json.gz"
	"$bin" trace --format json --steps "$tmp/$name.json.gz" >"$tmp/gz.json" && $check same "$tmp/$name.json" "$tmp/gz.json" ||
		{ echo "  gzip input gives a different report"; ok=0; }
	"$bin" trace --format json --steps - <"$trace" >"$tmp/stdin.json" && $check same "$tmp/$name.json" "$tmp/stdin.json" ||
		{ echo "  stdin gives a different report"; ok=0; }
	"$bin" --format json "$trace" >"$tmp/sniffed.json" && $check same "$tmp/$name.json" "$tmp/sniffed.json" ||
		{ echo "  'nextstep FILE' (sniffed) gives a different report"; ok=0; }
	ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/$name.json")
	for ((d = 0; d < ndev; d++)); do
		want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][int(sys.argv[2])]["overall"]["regime"])' "$tmp/$name.json" "$d")
		got=$(verdict "$tmp/$name.json" "$d")
		[ "$got" = "$want" ] || { echo "  device $d: overall routes to '$got' through 'nextstep -', not '$want'"; ok=0; }
	done
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		fail=$((fail + 1))
	fi
done
echo "trace fixtures: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]

#!/usr/bin/env bash
# The split rules on the small hand-written traces in tests/data/trace_*.json: every bucket, overlap, dataloader
# vs overhead vs a synchronize wait, host work on other threads, blocking copies, set-up and warm-up, a start-up
# trace, gloo on the host, no device at all, old-style categories, B/E pairs, no steps, comm linked through the
# launching op, two devices. Each trace_NAME.json has trace_NAME.expect.json with the exact numbers. Also: gzip,
# stdin and the router's sniffing give the same report, and a report's "overall" routes the same through
# `nextstep -`. The reports are written first and checked in one Python process (check_split.py batch): a
# Python start per check made this the suite's longest test. Under the sanitizers (SANITIZED ON) the gzip, stdin
# and sniffing comparisons run on every fourth fixture: they test the input paths, which any fixture takes, and
# each is a start of the sanitized binary (some 40 ms of CPU). Run from the repository root:
# fixtures.sh NEXTSTEP [SANITIZED]
set -u
bin=$1
sanitized=${2:-OFF}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass=0
names=()
: >"$tmp/checks"
: >"$tmp/bad"

# same NAME REPORT MESSAGE CMD...: CMD writes a report to REPORT, which must equal NAME's own report.
same() {
	local name=$1 report=$2 message=$3
	shift 3
	if "$@" >"$report"; then
		printf '%s\tsame\t%s\t%s\t%s\n' "$name" "$tmp/$name.json" "$report" "$message" >>"$tmp/checks"
	else
		printf '%s\t  %s\n' "$name" "$message" >>"$tmp/bad"
	fi
}

for expect in tests/data/trace_*.expect.json; do
	trace=${expect%.expect.json}.json
	name=$(basename "$trace" .json)
	if ! "$bin" trace --format json --steps "$trace" >"$tmp/$name.json" 2>"$tmp/err"; then
		echo "FAIL $name: nextstep exited $?: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	names+=("$name")
	printf '%s\tsanity\t%s\n' "$name" "$tmp/$name.json" >>"$tmp/checks"
	printf '%s\texpect\t%s\t%s\n' "$name" "$tmp/$name.json" "$expect" >>"$tmp/checks"
	printf '%s\tgpu_util\t%s\t%s\n' "$name" "$trace" "$tmp/$name.json" >>"$tmp/checks"
	printf '%s\troute\t%s\t%s\n' "$name" "$tmp/$name.json" "$bin" >>"$tmp/checks"
	[ "$sanitized" != ON ] || [ $((${#names[@]} % 4)) = 1 ] || continue
	gzip -c "$trace" >"$tmp/$name.json.gz"
	same "$name" "$tmp/$name.gz.json" "gzip input gives a different report" \
		"$bin" trace --format json --steps "$tmp/$name.json.gz"
	same "$name" "$tmp/$name.stdin.json" "stdin gives a different report" \
		"$bin" trace --format json --steps - <"$trace"
	same "$name" "$tmp/$name.sniffed.json" "'nextstep FILE' (sniffed) gives a different report" \
		"$bin" --format json "$trace"
done

python3 "$here/check_split.py" batch <"$tmp/checks" >>"$tmp/bad"
# the batch's last line counts the checks it ran: one that stopped early fails every fixture, not none
if ! grep -qx "checked $(wc -l <"$tmp/checks")" "$tmp/bad"; then
	echo "FAIL: check_split.py batch did not run every check"
	fail=$((fail + 1))
fi
for name in "${names[@]}"; do
	if grep -q "^$name	" "$tmp/bad"; then
		grep "^$name	" "$tmp/bad" | cut -f 2-
		echo "FAIL $name"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
echo "trace fixtures: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]

#!/usr/bin/env bash
# NDJSON behind a slow writer (as behind `tail -f`): the first result must be out while the writer still holds
# the pipe open, long before the second line arrives.
# Usage: stream-flush.sh NEXTSTEP_BINARY
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	echo '{"compute": 0.7, "idle": 0.3}'
	sleep 4
	echo '{"memory": 0.6}'
} | "$bin" >"$tmp/out" &
pid=$!
sleep 2
early=$(wc -l <"$tmp/out")
wait $pid
late=$(wc -l <"$tmp/out")
if [ "$early" = 1 ] && [ "$late" = 2 ]; then
	echo "stream-flush: 1 passed, 0 failed"
	exit 0
fi
echo "stream-flush: expected 1 line while the writer waited and 2 at the end, got $early and $late"
echo "stream-flush: 0 passed, 1 failed"
exit 1

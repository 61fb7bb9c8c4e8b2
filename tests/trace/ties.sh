#!/usr/bin/env bash
# The output does not depend on how the C library's qsort orders records that compare equal: every trace
# fixture (JSON with --roofline, which sorts ops and kernels sharing an External id; JSON holds all the text
# shows) and every job folder in tests/data, run with qsort_reversed.so preloaded (ties reversed), gives the
# bytes and exit status it gives with the C library's qsort. A plain build only: a sanitizer's runtime must be loaded first.
# Usage: ties.sh NEXTSTEP QSORT_REVERSED_SO
set -u
bin=${1:?usage: ties.sh NEXTSTEP QSORT_REVERSED_SO}
so=${2:?usage: ties.sh NEXTSTEP QSORT_REVERSED_SO}
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SOURCE_DATE_EPOCH=1700000000

if ! QSORT_REVERSED_MARK=$tmp/loaded LD_PRELOAD=$so "$bin" --version >/dev/null 2>&1 || [ ! -e "$tmp/loaded" ]; then
	echo "FAIL: $so was not preloaded"
	exit 1
fi

runs=0 differ=0
same() { # args...: the command's stdout, stderr and status, with and without the reversing qsort
	local rc_lib rc_rev
	"$bin" "$@" >"$tmp/lib.out" 2>"$tmp/lib.err"
	rc_lib=$?
	LD_PRELOAD=$so "$bin" "$@" >"$tmp/rev.out" 2>"$tmp/rev.err"
	rc_rev=$?
	runs=$((runs + 1))
	if [ "$rc_lib" != "$rc_rev" ] || ! cmp -s "$tmp/lib.out" "$tmp/rev.out" || ! cmp -s "$tmp/lib.err" "$tmp/rev.err"; then
		differ=$((differ + 1))
		echo "FAIL: nextstep $* differs when qsort reverses ties (exit $rc_lib, $rc_rev):"
		diff "$tmp/lib.out" "$tmp/rev.out" | cut -c 1-160 | head -n 6
	fi
}

for f in tests/data/trace*.json; do
	same trace --roofline --format json "$f"
done
for d in tests/data/job-*/; do
	same trace --format json "$d"
done
echo "ties: $runs runs, $differ differ"
[ "$differ" = 0 ]

# shellcheck shell=bash
# Sourced by the test scripts: what every one of them starts and ends with. After
#   . "$(dirname "$0")/../lib.sh"
# a script has $src (the repository root), $here (its own folder), $tmp (a temporary folder, removed when the
# script exits), pass=0, fail=0 and:
#   t_binary PATH          PATH made absolute (for a script that changes folder)
#   t_skip REASON          "skipped: REASON" and exit 77, which CTest and tests/run-all.sh count as skipped
#   t_need_shared PATH...  t_skip unless each PATH exists: files in ../shared, which a fresh clone lacks
#   t_check NAME STATUS DETAIL   one check: STATUS 0 passes; anything else prints "FAIL: NAME: DETAIL"
#   t_finish NAME          "NAME: N passed, N failed"; returns 0 only when something passed and nothing failed
# shellcheck disable=SC2034 # used by the scripts that source this
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034
here=$(dirname "$0")
pass=0
fail=0
tmp=$(mktemp -d)
# shellcheck disable=SC2064 # the folder's name is fixed now
trap "rm -rf '$tmp'" EXIT

t_binary() {
	echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

t_skip() {
	echo "skipped: $1"
	exit 77
}

t_need_shared() {
	local p
	for p in "$@"; do
		[ -e "$p" ] || t_skip "../shared not found ($p)"
	done
}

t_check() {
	if [ "$2" = 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1: $3"
	fi
}

t_finish() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}

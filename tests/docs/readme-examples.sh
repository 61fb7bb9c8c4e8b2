#!/usr/bin/env bash
# Runs every ```console block of the README: a line "$ CMD" is run from the repository root with the built
# nextstep first on PATH, and the lines after it (up to the next "$ " or the end of the block) must be exactly
# its standard output. Blocks whose commands use ../shared are skipped, with a message, when it is absent.
# Usage: readme-examples.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 1
export PATH="$build:$PATH" NO_COLOR=1 LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0 fail=0 skip=0
run_one() { # command expected-file
	if [[ $1 == *../shared* && ! -d ../shared ]]; then
		echo "skipped: ../shared not found: $1"
		skip=$((skip + 1))
		return
	fi
	bash -c "$1" >"$tmp/got" 2>/dev/null
	if cmp -s "$2" "$tmp/got"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1"
		diff -u "$2" "$tmp/got" | head -n 30
	fi
}

in_block=0 cmd=""
: >"$tmp/want"
while IFS= read -r line; do
	if [[ $in_block == 0 ]]; then
		[[ $line == '```console' ]] && in_block=1
		continue
	fi
	if [[ $line == '```' || $line == '$ '* ]]; then
		[[ -n $cmd ]] && run_one "$cmd" "$tmp/want"
		cmd="" && : >"$tmp/want"
		if [[ $line == '```' ]]; then
			in_block=0
		else
			cmd=${line#\$ }
		fi
		continue
	fi
	printf '%s\n' "$line" >>"$tmp/want"
done <README.md

echo "readme: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]

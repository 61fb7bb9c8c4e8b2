#!/usr/bin/env bash
# Runs every ```console block of docs/roofline.md (the README's roofline section before the lead merges it) the
# way tests/docs/readme-examples.sh runs the README's: "$ CMD" lines run with the built nextstep first on PATH,
# and the lines after them must be exactly the standard output. The commands run in a scratch folder with a
# docs/ subfolder, so the --svg example writes there; its plot must equal the committed
# docs/roofline-h100-matmul.svg, so the picture in the docs cannot drift from what the code draws.
# Usage: doc-examples.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$build:$PATH" NO_COLOR=1 LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/run/docs"

pass=0 fail=0
run_one() { # command expected-file
	(cd "$tmp/run" && bash -c "$1") >"$tmp/got" 2>/dev/null
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
done <"$src/docs/roofline.md"

if cmp -s "$src/docs/roofline-h100-matmul.svg" "$tmp/run/docs/roofline-h100-matmul.svg"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: docs/roofline-h100-matmul.svg differs from what the documented command draws"
fi
echo "roofline docs: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 1 ]

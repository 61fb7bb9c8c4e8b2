#!/usr/bin/env bash
# Runs every ```console block of README.md and docs/*.md: a line "$ CMD" is run with the built nextstep first on PATH, and
# the lines after it (up to the next "$ " or the end of the block) must be exactly its standard output.
# Commands run in a scratch copy of the repository's layout (examples/, tests/, data/ linked; an empty docs/;
# ../shared linked when it exists), so a command that draws a plot into docs/ writes there, and every plot it
# draws must equal the one committed in docs/: the pictures in the README cannot drift from the code.
# Commands that use ../shared are skipped, with a message, when it is absent.
# Usage: readme-examples.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$build:$PATH" NO_COLOR=1 LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/run/docs"
for d in examples tests data; do ln -s "$src/$d" "$tmp/run/$d"; done
[ -d "$src/../shared" ] && ln -s "$(cd "$src/../shared" && pwd)" "$tmp/shared"

pass=0 fail=0 skip=0
run_one() { # command expected-file
	if [[ $1 == *../shared* && ! -d $tmp/shared ]]; then
		echo "skipped: ../shared not found: $page: $1"
		skip=$((skip + 1))
		return
	fi
	(cd "$tmp/run" && bash -c "$1") >"$tmp/got" 2>/dev/null
	if cmp -s "$2" "$tmp/got"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $page: $1"
		diff -u "$2" "$tmp/got" | head -n 30
	fi
}

run_page() { # markdown file
	local in_block=0 cmd="" line
	page=${1#"$src"/}
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
	done <"$1"
}

for page in "$src/README.md" "$src"/docs/*.md; do
	run_page "$page"
done

for drawn in "$tmp"/run/docs/*; do
	[ -e "$drawn" ] || continue
	name=docs/$(basename "$drawn")
	if cmp -s "$src/$name" "$drawn"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name differs from what the docs' command draws"
	fi
done

echo "docs examples: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]

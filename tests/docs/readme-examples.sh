#!/usr/bin/env bash
# Runs every ```console block of README.md and docs/*.md: a line "$ CMD" is run and the lines after it (up to the
# next "$ " or the end of the block) must be exactly its standard output. `nextstep` is the one installed from
# BUILD_DIR into a temporary prefix (cmake --install), first on PATH, as a user has it after the README's set-up
# (the fixes page -v names is given as the default install's, NEXTSTEP_DOCDIR).
# README.md is the user's page: its commands run in a copy of the repository's tracked files (git ls-files; a
# fresh clone) with no ../shared beside it, and a command that names ../shared fails. The docs/ pages may use
# ../shared (developers' material): they run in the source tree's layout (examples/, tests/, data/ linked), with
# ../shared linked when it exists and their commands that need it skipped, with a message, when it does not.
# In both, docs/ starts empty, so a command that draws a plot into docs/ writes there, and every plot it draws
# must equal the one committed in docs/: the pictures cannot drift from the code.
# Also: the README's set-up lines are in .ci/run word for word, so CI runs what the README says.
# Usage: readme-examples.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
# -v names the fixes page in the installed documentation: as the README's default install (/usr/local) has it,
# whatever the temporary prefix.
export NO_COLOR=1 LC_ALL=C NEXTSTEP_DOCDIR=/usr/local/share/doc/nextstep
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0

if ! cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "FAIL: cmake --install $build --prefix $tmp/prefix"
	exit 1
fi
export PATH="$tmp/prefix/bin:$PATH"

# The fresh clone: the tracked files as they are in the working tree (or, outside git, the folders the
# examples use), docs/ empty.
mkdir -p "$tmp/fresh/repo/docs"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z | grep -zv '^docs/' | xargs -0 tar cf - --no-recursion 2>/dev/null) |
		(cd "$tmp/fresh/repo" && tar xf -)
else
	for d in examples tests data; do ln -s "$src/$d" "$tmp/fresh/repo/$d"; done
fi
# The developers' layout, for docs/*.md.
mkdir -p "$tmp/dev/repo/docs"
for d in examples tests data; do ln -s "$src/$d" "$tmp/dev/repo/$d"; done
[ -d "$src/../shared" ] && ln -s "$(cd "$src/../shared" && pwd)" "$tmp/dev/shared"

run_one() { # command expected-file
	if [[ $1 == *../shared* ]]; then
		if [[ $page == README.md ]]; then
			fail=$((fail + 1))
			echo "FAIL: README.md: a fresh clone has no ../shared: $1"
			return
		fi
		if [[ ! -d $tmp/dev/shared ]]; then
			echo "skipped: ../shared not found: $page: $1"
			skip=$((skip + 1))
			return
		fi
	fi
	(cd "$root" && bash -c "$1") >"$tmp/got" 2>/dev/null
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

root=$tmp/fresh/repo
run_page "$src/README.md"
root=$tmp/dev/repo
for page in "$src"/docs/*.md; do
	run_page "$page"
done

for drawn in "$tmp"/fresh/repo/docs/* "$tmp"/dev/repo/docs/*; do
	[ -e "$drawn" ] || continue
	name=docs/$(basename "$drawn")
	if cmp -s "$src/$name" "$drawn"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name differs from what the docs' command draws"
	fi
done

# The set-up block (the first ```sh block after "## Set-up"): each line is a line of .ci/run.
setup=$(awk '/^## Set-up/ { s = 1 } s && /^```sh$/ { b = 1; next } b && /^```$/ { exit } b' "$src/README.md")
if [ -z "$setup" ]; then
	fail=$((fail + 1))
	echo "FAIL: README.md has no set-up block"
fi
while IFS= read -r line; do
	[ -n "$line" ] || continue
	if grep -qxF -- "$line" "$src/.ci/run"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: the README's set-up line is not in .ci/run word for word: $line"
	fi
done <<<"$setup"

echo "docs examples: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]

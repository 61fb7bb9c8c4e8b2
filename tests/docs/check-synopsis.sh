#!/usr/bin/env bash
# The usage text, the man page SYNOPSIS and the README usage block must say the same thing, and every long
# option of the router's --help must be documented in the man page.
# Usage: check-synopsis.sh NEXTSTEP_BINARY
set -u
bin=$1
cd "$(dirname "$0")/../.." || exit 1
words() { tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }

usage=$("$bin" --help | sed -n '1,/^$/p' | sed 's/^usage://' | words)
man=$(sed -n '/^\.SH SYNOPSIS/,/^\.fi/p' doc/nextstep.1 | grep -v '^\.' | sed 's/\\-/-/g' | words)
readme=$(sed -n '/^## Usage/,/^The four/p' README.md | sed -n '/^```$/,/^```$/p' | grep -v '^```' | words)
status=0
if [ "$usage" != "$man" ]; then
	printf 'usage and man SYNOPSIS differ:\n  usage: %s\n  man:   %s\n' "$usage" "$man"
	status=1
fi
if [ "$usage" != "$readme" ]; then
	printf 'usage and README differ:\n  usage:  %s\n  README: %s\n' "$usage" "$readme"
	status=1
fi
for mode in "" trace roofline scaling devices; do
	# shellcheck disable=SC2086 # an empty mode is no word at all
	for opt in $("$bin" $mode --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		if ! sed 's/\\-/-/g' doc/nextstep.1 | grep -q -- "$opt"; then
			echo "option $opt is in '$mode --help' but not in the man page"
			status=1
		fi
	done
done
[ $status = 0 ] && echo "synopsis: 1 passed, 0 failed"
exit $status

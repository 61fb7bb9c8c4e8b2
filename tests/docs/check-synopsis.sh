#!/usr/bin/env bash
# The usage text, the man page SYNOPSIS and the README usage block must say the same thing, and every long
# option a mode's --help lists must be documented in that mode's man page: nextstep(1) for the router,
# nextstep-MODE(1) for each subcommand.
# Usage: check-synopsis.sh NEXTSTEP_BINARY
set -u
bin=$1
cd "$(dirname "$0")/../.." || exit 1
words() { tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }
# The first paragraph of --help: the usage lines.
usage_of() { "$bin" ${1:+"$1"} --help | sed -n '1,/^$/p' | sed 's/^usage://' | words; }
synopsis_of() { sed -n '/^\.SH SYNOPSIS/,/^\.fi/p' "$1" | grep -v '^\.' | sed 's/\\-/-/g' | words; }
page_of() { if [ -z "$1" ]; then echo doc/nextstep.1; else echo "doc/nextstep-$1.1"; fi; }

status=0 checked=0
fail() {
	printf '%s\n' "$@"
	status=1
}

# The first plain ``` block after "## Usage".
readme=$(sed -n '/^## Usage/,$p' README.md | awk '/^```$/ { if (++n == 2) exit; next } n == 1' | words)
[ "$(usage_of "")" = "$readme" ] ||
	fail "usage and README differ:" "  usage:  $(usage_of "")" "  README: $readme"
modes=$("$bin" --help | sed -n 's/^ *\(usage: \)\{0,1\}nextstep \([a-z][a-z]*\)\( .*\)\{0,1\}$/\2/p')
for mode in "" $modes; do
	page=$(page_of "$mode")
	checked=$((checked + 1))
	if [ ! -f "$page" ]; then
		fail "$page: missing (the man page of 'nextstep $mode')"
		continue
	fi
	[ "$(usage_of "$mode")" = "$(synopsis_of "$page")" ] ||
		fail "'nextstep $mode --help' usage and $page SYNOPSIS differ:" "  usage: $(usage_of "$mode")" \
			"  man:   $(synopsis_of "$page")"
	# shellcheck disable=SC2086 # an empty mode is no word at all
	for opt in $("$bin" $mode --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		sed 's/\\-/-/g' "$page" | grep -q -- "$opt" || fail "option $opt is in 'nextstep $mode --help' but not in $page"
	done
	for section in SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" ENVIRONMENT "SEE ALSO"; do
		grep -q "^\.SH \"\{0,1\}$section" "$page" || fail "$page has no $section section"
	done
done
[ $status = 0 ] && echo "synopsis: $checked pages checked, 0 failed"
exit $status

#!/usr/bin/env bash
# libnextstep.so exports exactly the stable API: the functions nextstep/nextstep.h declares without
# NEXTSTEP_STATIC_LINKING_ONLY (marked NS_API), and none of the unstable tier (NS_STATIC_API) or of the
# library's internals (src/util, the split stages, ...); libnextstep.a defines every function of both tiers.
# The declared lists come from the compiler (-aux-info over nextstep.h, with and without the tier's macro),
# so a function marked in the wrong tier, or not marked, fails here, and so does a declared function that no
# source defines (a header promising what the library lacks) and a header nextstep.h does not include.
# Usage: exports.sh LIBNEXTSTEP_SO LIBNEXTSTEP_A SOURCE_DIR
set -u
usage="usage: exports.sh LIBNEXTSTEP_SO LIBNEXTSTEP_A SOURCE_DIR"
so=${1:?$usage}
archive=${2:?$usage}
src=${3:?$usage}
# -aux-info, which lists what the headers declare, is GCC's.
cc=${NS_AUX_CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
	echo "exports: $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/  /'
	status=1
}

printf '#include "nextstep/nextstep.h"\n' >"$tmp/all.c"
# declared TIER DEFINES...: the functions nextstep.h declares with these -D flags, into $tmp/TIER
declared() {
	local tier=$1
	shift
	# shellcheck disable=SC2046 # the pkg-config flags are words
	if ! "$cc" -std=c11 "$@" -I"$src/include" $(pkg-config --cflags libcjson libpcre2-8 zlib) \
		-fsyntax-only -aux-info "$tmp/aux.$tier" "$tmp/all.c" 2>"$tmp/cc.txt"; then
		fail "nextstep/nextstep.h ($tier) does not compile" "$(cat "$tmp/cc.txt")"
		return
	fi
	# Lines like: /* .../include/nextstep/regime.h:19:NC */ extern const char *regime_name (ns_regime);
	grep '/include/nextstep/' "$tmp/aux.$tier" | grep -v '\*/ static ' |
		sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' | sort -u >"$tmp/$tier"
}
declared stable
declared all -DNEXTSTEP_STATIC_LINKING_ONLY
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort -u >"$tmp/exported"
nm -g --defined-only "$archive" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRVW]$/ { print $3 }' | sort -u \
	>"$tmp/defined"

if [ "$(wc -l <"$tmp/stable")" -lt 30 ] || [ "$(wc -l <"$tmp/all")" -lt 150 ]; then
	fail "only $(wc -l <"$tmp/stable") stable and $(wc -l <"$tmp/all") declarations found: -aux-info changed?"
fi
missing=$(comm -23 "$tmp/stable" "$tmp/exported")
[ -n "$missing" ] && fail "the stable API declares these, but $so does not export them (NS_API missing?):" \
	"$missing"
extra=$(comm -13 "$tmp/stable" "$tmp/exported")
[ -n "$extra" ] && fail "exported by $so but not in the stable API (internals or the unstable tier leak):" \
	"$extra"
undefined=$(comm -23 "$tmp/all" "$tmp/defined")
[ -n "$undefined" ] && fail "declared in include/nextstep but defined in no object of $archive:" "$undefined"

# Every declaration says its tier (NS_API or NS_STATIC_API on the line that names it): an unmarked function of
# the unstable tier would be hidden all the same, but nobody would have said so.
unmarked=$(grep '/include/nextstep/' "$tmp/aux.all" | grep -v '\*/ static ' |
	sed -E 's|^/\* (.*/include/nextstep/[^:]*):([0-9]+):.*|\1 \2|' | while read -r file line; do
	sed -n "${line}p" "$file" | grep -q 'NS_API\|NS_STATIC_API' || echo "$(basename "$file"):$line: $(sed -n "${line}p" "$file")"
done)
[ -n "$unmarked" ] && fail "declarations marked neither NS_API nor NS_STATIC_API (nextstep/api.h):" "$unmarked"

# nextstep.h is the one header: with the unstable tier it includes every public header.
# shellcheck disable=SC2046
"$cc" -std=c11 -DNEXTSTEP_STATIC_LINKING_ONLY -I"$src/include" $(pkg-config --cflags libcjson libpcre2-8 zlib) \
	-MM "$tmp/all.c" 2>/dev/null | tr ' ' '\n' | sed -n 's|.*/include/nextstep/\([^/]*\.h\)$|\1|p' |
	sort -u >"$tmp/included"
(cd "$src/include/nextstep" && ls -- *.h) | sort >"$tmp/headers"
unlisted=$(comm -23 "$tmp/headers" "$tmp/included")
[ -n "$unlisted" ] && fail "headers nextstep/nextstep.h does not include (add them, in their tier):" "$unlisted"

[ $status = 0 ] &&
	echo "exports: $(wc -l <"$tmp/exported") stable functions exported, $(($(wc -l <"$tmp/all") - $(wc -l <"$tmp/stable"))) of the unstable tier in the archive only"
exit $status

#!/usr/bin/env bash
# libnextstep.so exports exactly the functions its public headers declare: the API a program linking it may
# use, and none of the library's internals (src/util, the split stages, ...). The declared list comes from
# the compiler (-aux-info over a file including every public header), not from the export list the build
# writes, so a declaration the build's script misses, an exported internal, or a declared function that no
# source defines each fail here.
# Usage: exports.sh LIBNEXTSTEP_SO SOURCE_DIR
set -u
lib=${1:?usage: exports.sh LIBNEXTSTEP_SO SOURCE_DIR}
src=${2:?usage: exports.sh LIBNEXTSTEP_SO SOURCE_DIR}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$src"/include/nextstep/*.h; do
	printf '#include "nextstep/%s"\n' "$(basename "$h")"
done >"$tmp/all.c"
# shellcheck disable=SC2046 # the pkg-config flags are words
if ! "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -I"$src/include" $(pkg-config --cflags libcjson libpcre2-8 zlib) \
	-fsyntax-only -aux-info "$tmp/aux.txt" "$tmp/all.c" 2>"$tmp/cc.txt"; then
	cat "$tmp/cc.txt"
	echo "exports: the public headers do not compile on their own"
	exit 1
fi
# Lines like: /* .../include/nextstep/regime.h:19:NC */ extern const char *regime_name (ns_regime);
grep '/include/nextstep/' "$tmp/aux.txt" | grep -v '\*/ static ' |
	sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' | sort -u >"$tmp/declared"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort -u >"$tmp/exported"
status=0
if [ "$(wc -l <"$tmp/declared")" -lt 100 ]; then # the API has well over a hundred functions
	echo "exports: only $(wc -l <"$tmp/declared") declarations found: the -aux-info output changed?"
	status=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
	echo "exports: declared in include/nextstep but not exported by $lib (undefined, or missed by cmake/exports.cmake):"
	echo "$missing" | sed 's/^/  /'
	status=1
fi
if [ -n "$extra" ]; then
	echo "exports: exported by $lib but declared in no public header (internals leak):"
	echo "$extra" | sed 's/^/  /'
	status=1
fi
[ $status = 0 ] && echo "exports: $(wc -l <"$tmp/exported") functions, exactly the public headers' declarations"
exit $status

#!/usr/bin/env bash
# libnextstep.so exports exactly the functions its public headers declare: the API a program linking it may
# use, and none of the library's internals (src/util, the split stages, ...). The declared list comes from
# the compiler (-aux-info over a file including every public header), independently of the version script
# the build writes (cmake/exports.cmake): a declaration that script misses, or an exported internal, fails
# here, and so does a declared function that no source defines (a header promising what the library lacks).
# Usage: exports.sh LIBNEXTSTEP_SO VERSION_SCRIPT SOURCE_DIR
set -u
usage="usage: exports.sh LIBNEXTSTEP_SO VERSION_SCRIPT SOURCE_DIR"
lib=${1:?$usage}
map=${2:?$usage}
src=${3:?$usage}
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
sed -n 's/^\t\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$map" | sort -u >"$tmp/listed"
if ! diff "$tmp/declared" "$tmp/listed" >"$tmp/diff.txt"; then
	echo "exports: the version script $map does not list exactly the declarations (< declared, > listed):"
	sed 's/^/  /' "$tmp/diff.txt"
	status=1
fi
undefined=$(comm -23 "$tmp/declared" "$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$undefined" ]; then
	echo "exports: declared in include/nextstep but defined by no source:"
	echo "$undefined" | sed 's/^/  /'
	status=1
fi
if [ -n "$extra" ]; then
	echo "exports: exported by $lib but declared in no public header (internals leak):"
	echo "$extra" | sed 's/^/  /'
	status=1
fi
[ $status = 0 ] && echo "exports: $(wc -l <"$tmp/exported") functions, all declared in the public headers"
exit $status

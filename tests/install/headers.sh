#!/usr/bin/env bash
# Every public header compiles on its own, as the first include of a C99 file (-pedantic) and of a C++11 one,
# warnings as errors, and so does nextstep/nextstep.h. A header of the stable tier needs nothing defined; one of
# the unstable tier (it checks NEXTSTEP_STATIC_LINKING_ONLY) compiles with the macro and, without it, stops
# with an error naming the macro. Then C++ programs link every function the headers declare, by address: the
# stable ones against libnextstep.so, all of them against libnextstep.a. A declaration outside the headers'
# extern "C" would be looked up under its C++ (mangled) name and fail to link.
# Usage: headers.sh SOURCE_DIR LIBNEXTSTEP_SO LIBNEXTSTEP_A      (exit 77: no C++ compiler)
set -u
usage="usage: headers.sh SOURCE_DIR LIBNEXTSTEP_SO LIBNEXTSTEP_A"
src=$(cd "${1:?$usage}" && pwd)
so=${2:?$usage}
archive=${3:?$usage}
cc=${CC:-cc}
cxx=${CXX:-c++}
# -aux-info, which lists what the headers declare, is GCC's.
aux_cc=${NS_AUX_CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() {
	pass=$((pass + 1))
}
bad() {
	fail=$((fail + 1))
	echo "FAIL: $1"
	[ -s "$tmp/err" ] && head -n 5 "$tmp/err" | sed 's/^/  /'
}
if ! command -v "$cxx" >/dev/null; then
	echo "headers: no C++ compiler ($cxx): skipped"
	exit 77
fi
# shellcheck disable=SC2207 # the pkg-config flags are words
deps=($(pkg-config --cflags libcjson libpcre2-8 zlib sqlite3))
c_flags=(-std=c99 -pedantic -Wall -Wextra -Werror -I"$src/include" "${deps[@]}")
cxx_flags=(-std=c++11 -pedantic -Wall -Wextra -Werror -I"$src/include" "${deps[@]}")

compiles() { # header defines...: C99 and C++11, the header first
	local h=$1
	shift
	printf '#include "nextstep/%s"\ntypedef int not_empty; /* ISO C: a unit declares something */\n' "$h" >"$tmp/h.c"
	cp "$tmp/h.c" "$tmp/h.cpp"
	"$cc" "${c_flags[@]}" "$@" -fsyntax-only "$tmp/h.c" 2>"$tmp/err" &&
		"$cxx" "${cxx_flags[@]}" "$@" -fsyntax-only "$tmp/h.cpp" 2>"$tmp/err"
}

for path in "$src"/include/nextstep/*.h; do
	h=$(basename "$path")
	if grep -q '^#ifndef NEXTSTEP_STATIC_LINKING_ONLY' "$path"; then
		if compiles "$h" -DNEXTSTEP_STATIC_LINKING_ONLY; then ok; else bad "$h (unstable tier) with the macro"; fi
		if compiles "$h"; then
			bad "$h compiles without NEXTSTEP_STATIC_LINKING_ONLY, but checks it"
		elif grep -q 'NEXTSTEP_STATIC_LINKING_ONLY' "$tmp/err"; then
			ok
		else
			bad "$h without the macro: not the tier's error"
		fi
	else
		if compiles "$h"; then ok; else bad "$h (stable) alone"; fi
	fi
done
if compiles nextstep.h -DNEXTSTEP_STATIC_LINKING_ONLY; then ok; else bad "nextstep.h with the unstable tier"; fi

# link TIER LIBRARY DEFINES...: a C++ program taking the address of every function nextstep.h declares
link() {
	local tier=$1 lib=$2
	shift 2
	printf '#include "nextstep/nextstep.h"\n' >"$tmp/all.c"
	"$aux_cc" -std=c11 "$@" -I"$src/include" "${deps[@]}" -fsyntax-only -aux-info "$tmp/aux" "$tmp/all.c" 2>"$tmp/err" ||
		{
			bad "nextstep.h ($tier) for -aux-info"
			return
		}
	grep '/include/nextstep/' "$tmp/aux" | grep -v '\*/ static ' |
		sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' | sort -u >"$tmp/names"
	{
		printf '#include <cstdio>\n#include "nextstep/nextstep.h"\ntypedef void (*fn)();\n'
		# external and read at run time, so that no compiler leaves the table (and its references) out
		printf 'extern fn const all[];\nfn const all[] = {\n'
		sed 's/.*/\treinterpret_cast<fn>(\&&),/' "$tmp/names"
		printf '};\nint main(int argc, char **)\n{\n\tif (all[argc - 1] == 0)\n\t\treturn 1;\n'
		printf '\tstd::printf("%%zu\\n", sizeof(all) / sizeof(all[0]));\n\treturn 0;\n}\n'
	} >"$tmp/link.cpp"
	# shellcheck disable=SC2046
	if "$cxx" "${cxx_flags[@]}" -Wno-cast-function-type "$@" -o "$tmp/link" "$tmp/link.cpp" "$lib" \
		$(pkg-config --libs libcjson libpcre2-8 zlib sqlite3) -lm -pthread 2>"$tmp/err" &&
		[ "$(LD_LIBRARY_PATH=$(dirname "$so") "$tmp/link")" = "$(wc -l <"$tmp/names" | tr -d ' ')" ]; then
		ok
	else
		bad "a C++ program linking every function of the $tier tier against $(basename "$lib")"
	fi
}
link stable "$so"
link all "$archive" -DNEXTSTEP_STATIC_LINKING_ONLY

echo "headers: $pass passed, $fail failed"
[ "$fail" = 0 ]

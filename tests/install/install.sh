#!/usr/bin/env bash
# Installs nextstep as a user or a packager would, then moves the build tree away and checks that what was
# installed works on its own: the binary (routing, and the roofline with the installed device table), the
# data directory override and its error, a moved prefix, every man page, the bash completion (without the
# bash-completion package), and the library from a moved prefix, through pkg-config and through CMake's
# find_package(nextstep), with examples/route_profile.c and examples/trace_verdict.c (and, linked statically
# through CMake, examples/job_stragglers.c).
# The build it installs is the fixture build_elsewhere's (build-elsewhere.sh: a copy of the sources built as
# the build under test was, tests off), which this test moves aside once installed (to BUILD_DIR.aside: its path
# is then gone, as if removed) and puts back at its end, so the next run's build is incremental.
# Usage: install.sh SOURCE_DIR BUILD_DIR     (CTest runs it; prints one line per check)
set -u
usage="usage: install.sh SOURCE_DIR BUILD_DIR"
src=$(cd "${1:?$usage}" && pwd)
build=${2:?$usage}
tmp=$(mktemp -d)
aside=
# shellcheck disable=SC2317 # called by the EXIT trap
finish() {
	rm -rf "$tmp"
	[ -z "$aside" ] || mv "$aside" "$build"
}
trap finish EXIT
export LC_ALL=C NO_COLOR=1
pass=0 fail=0

check() { # name expected-text actual-text
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
		echo "ok: $1"
	else
		fail=$((fail + 1))
		printf 'FAIL: %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"
	fi
}

echo "== install $build into $tmp/prefix, move the build tree away =="
if ! cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/log" 2>&1; then
	tail -n 30 "$tmp/log"
	echo "install: install failed (the fixture build_elsewhere builds $build)"
	exit 1
fi
build=$(cd "$build" && pwd)
if [ -e "$build.aside" ] || ! mv "$build" "$build.aside"; then
	echo "install: cannot move $build away (to $build.aside)"
	exit 1
fi
aside=$build.aside
prefix=$tmp/prefix
(cd "$prefix" && find . -type f -o -type l | sort | sed 's|^\./|  installed: |')
bin=$prefix/bin/nextstep
cd "$tmp" || exit 1 # nowhere near the source tree

# The lesson's first profile: compute is the largest share (0.72), rounded to a whole percent.
check "routes examples/compute.json" \
	"compute: compute-bound (72%) -> write/use a fused kernel or lower precision (Module 4/5)" \
	"$("$bin" "$src/examples/compute.json" 2>&1)"
# 8192^3 bf16 matmul: 2*8192^3 FLOP over 3*8192^2*2 B = 2730.7 FLOP/B; H100 SXM ridge 989.5/3.35 = 295.4.
want="compute-bound (AI 2731 FLOP/B, ridge 295 FLOP/B) -> write/use a fused kernel or lower precision (Module 4/5)"
check "roofline reads the installed device table" "$want" \
	"$("$bin" roofline --matmul 8192,8192,8192 --device h100 --dtype bf16 2>&1)"
check "devices lists the installed table" "H100 SXM" "$("$bin" devices h100 2>&1 | sed -n 2p | cut -c1-8)"

# -v names the section of the installed fixes page that explains the verdict's fix (compute: #compute-bound).
check "-v names the fix's section of the installed fixes page" \
	"fix explained: $prefix/share/doc/nextstep/fixes.md#compute-bound" \
	"$(env -u NEXTSTEP_DOCDIR "$bin" -v "$src/examples/compute.json" 2>&1 | grep '^fix explained:')"
# A decode pass at batch 8 sits far below the ridge (AI ~7 FLOP/B against 295): decode's own memory route,
# whose section is #decode-memory.
check "roofline --transformer -v names decode's section" \
	"fix explained: $prefix/share/doc/nextstep/fixes.md#decode-memory" \
	"$(env -u NEXTSTEP_DOCDIR "$bin" roofline --device h100 --transformer --layers 32 --hidden 4096 --heads 32 \
		--kv-heads 8 --vocab 128256 --intermediate 14336 --decode --context 4096 --batch 8 -v 2>&1 |
		grep '^fix explained:')"
check "the fixes page is installed, with that section" "## Compute-bound" \
	"$(grep -x '## Compute-bound' "$prefix/share/doc/nextstep/fixes.md" 2>&1)"

mkdir -p "$tmp/empty"
out=$(NEXTSTEP_DATADIR=$tmp/empty "$bin" devices 2>&1 >/dev/null)
check "NEXTSTEP_DATADIR without devices.json is an error naming it" \
	"nextstep: no devices.json in NEXTSTEP_DATADIR=$tmp/empty; exit 1" "$out; exit $?"
check "NEXTSTEP_DATADIR points at another table" "0" \
	"$(NEXTSTEP_DATADIR=$src/data "$bin" devices >/dev/null 2>&1; echo $?)"
mkdir -p "$tmp/broken" && printf '{"devices": [\n' >"$tmp/broken/devices.json"
check "trace with a table that is there but broken: a warning, and the report without it" \
	"nextstep: $tmp/broken/devices.json:2: warning: malformed JSON; going on without the device table; exit 0" \
	"$(NEXTSTEP_DATADIR=$tmp/broken "$bin" trace "$src/tests/data/trace_two_devices.json" 2>&1 >/dev/null); exit $?"

mv "$prefix" "$tmp/moved"
check "a moved prefix still finds its table" "$want" \
	"$("$tmp/moved/bin/nextstep" roofline --matmul 8192,8192,8192 --device h100 --dtype bf16 2>&1)"
check "a moved prefix names its own fixes page" "fix explained: $tmp/moved/share/doc/nextstep/fixes.md#compute-bound" \
	"$(env -u NEXTSTEP_DOCDIR "$tmp/moved/bin/nextstep" -v "$src/examples/compute.json" 2>&1 | grep '^fix explained:')"
mv "$tmp/moved/share/nextstep/devices.json" "$tmp/devices.json"
check "a missing table names the folders tried" \
	"nextstep: no devices.json in $tmp/moved/bin/../share/nextstep or $tmp/moved/bin/share/nextstep; set NEXTSTEP_DATADIR to the folder that holds it" \
	"$("$tmp/moved/bin/nextstep" devices 2>&1)"
mv "$tmp/devices.json" "$tmp/moved/share/nextstep/devices.json"
mv "$tmp/moved" "$prefix"

# One page for the tool and one per subcommand the installed binary's usage lines name.
modes=$("$bin" --help | sed -n 's/^ *\(usage: \)\{0,1\}nextstep \([a-z][a-z]*\)\( .*\)\{0,1\}$/\2/p')
# shellcheck disable=SC2086 # $modes is a list of words
for page in nextstep $(printf 'nextstep-%s ' $modes); do
	file=$prefix/share/man/man1/$page.1
	if [ ! -f "$file" ]; then
		check "man page $page(1) installed" "present" "missing"
		continue
	fi
	# groff -ww warns about every questionable request; a clean page prints nothing on stderr.
	warnings=$(groff -t -man -ww -z -Tutf8 "$file" 2>&1)
	check "man page $page(1) renders without warnings" "" "$warnings"
	if command -v man >/dev/null; then
		check "man -l $page(1) shows its NAME" "yes" \
			"$(MANWIDTH=80 man -l "$file" 2>/dev/null | grep -q "^NAME" && echo yes || echo no)"
	fi
done

# The completion, loaded the way bash loads it, in a shell without the bash-completion package.
completion=$prefix/share/bash-completion/completions/nextstep
complete_words() { # words... ; the last one is completed
	PATH="$prefix/bin:$PATH" bash --norc --noprofile -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_nextstep nextstep "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$completion" "$@"
}
check "completion: subcommands" "trace " "$(complete_words nextstep tr)"
check "completion: options of the installed trace --help" "--roofline " "$(complete_words nextstep trace --roof)"
check "completion: device names from the installed table" "h100 h100-pcie h100-pcie-80gb h100-sxm h100-sxm-80gb h100-sxm5 " \
	"$(complete_words nextstep roofline --device h100)"

# The README's line for bash without the bash-completion package, with this prefix for /usr/local.
line=$(grep -o 'source /usr/local/share/bash-completion/completions/nextstep' "$src/README.md" | head -n 1)
check "README: the completion's source line names the installed file" "yes" \
	"$([ -n "$line" ] && [ -f "$prefix${line#source /usr/local}" ] && echo yes || echo no)"
check "README: that line loads the completion in a plain bash" "complete -F _nextstep nextstep" \
	"$(bash --norc --noprofile -c "${line/\/usr\/local/$prefix} && complete -p nextstep" 2>&1)"

# The library, from a prefix moved after the install (the pkg-config file and the CMake package find their
# prefix from their own folders): the example programs, built and run with the lines their comments print,
# exactly (from a folder whose examples/ is the source's), against the installed prefix only: no rpath or
# LD_LIBRARY_PATH added.
mv "$prefix" "$tmp/relocated"
prefix=$tmp/relocated
bin=$prefix/bin/nextstep
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
check "pkg-config version" "$(sed -n 's/^project(nextstep VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" \
	"$(pkg-config --modversion nextstep 2>&1)"
build_line=$(sed -n 's/^ \*   \(cc -o route_profile .*\)$/\1/p' "$src/examples/route_profile.c")
run_line=$(sed -n 's/^ \*   \(\.\/route_profile .*\)$/\1/p' "$src/examples/route_profile.c")
mkdir "$tmp/example" && ln -s "$src/examples" "$tmp/example/examples"
if [ -n "$build_line" ] && (cd "$tmp/example" && eval "$build_line") 2>"$tmp/cc.log"; then
	check "examples/route_profile.c: its printed lines build and run it" \
		"compute-bound (72%) -> write/use a fused kernel or lower precision (Module 4/5)|runner-up: memory (15%)" \
		"$(cd "$tmp/example" && env -u LD_LIBRARY_PATH bash -c "$run_line" 2>&1 | tr '\n' '|' | sed 's/|$//')"
	# The run path is the pkg-config file's ${pcfiledir}/../../lib: the same file, spelled otherwise.
	lib=$(ldd "$tmp/example/route_profile" | awk '/libnextstep\.so/ { print $3 }')
	check "the example finds the installed shared library by itself" "yes" \
		"$([ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$prefix/lib/libnextstep.so.2")" ] && echo yes || echo no)"
else
	cat "$tmp/cc.log"
	check "examples/route_profile.c builds with its printed line: $build_line" "built" "failed"
fi

# A trace through the one-call workflow (nextstep/analysis.h): the fixture's hand-derived split
# (tests/data/trace_buckets.expect.json: compute 30 of 100 us, the largest) gives the compute route, and the
# next step is the one `nextstep trace` names for the same trace. The example gives the library no device
# table, so the CLI runs without one too (NEXTSTEP_DATADIR names no folder): with the table both would say the
# fp32 kernels' peak ratio, and bound the compute fix by it (docs/next-step.md, "Precision").
trace=$src/tests/data/trace_buckets.json
want_verdict="rank 0 dev 0: compute-bound (30%) -> write/use a fused kernel or lower precision (Module 4/5)"
want_next=$(NEXTSTEP_DATADIR="$tmp/no-such-datadir" "$bin" trace "$trace" 2>&1 | sed -n 's/^next step: [^,]*, up to [^>]*-> \(.*\) ([^()]*)$/\1/p' | head -n 1)
check "nextstep trace names a next step for the fixture" "yes" "$([ -n "$want_next" ] && echo yes || echo no)"
build_line=$(sed -n 's/^ \*   \(cc -o trace_verdict .*\)$/\1/p' "$src/examples/trace_verdict.c")
if [ -n "$build_line" ] && (cd "$tmp/example" && eval "$build_line") 2>"$tmp/cc.log"; then
	out=$(cd "$tmp/example" && env -u LD_LIBRARY_PATH ./trace_verdict "$trace" 2>&1)
	check "examples/trace_verdict.c (pkg-config): the verdict" "$want_verdict" "$(echo "$out" | sed -n 1p)"
	check "examples/trace_verdict.c (pkg-config): the next step" "$want_next" \
		"$(echo "$out" | sed -n 's/^next step: \(.*\) (up to [0-9]*% of the step)$/\1/p')"
	# Given the installed device table, as `nextstep trace` reads it, the example decides what the CLI does:
	# the A100's peak ratio in the verdict, and the fp32 kernels' autocast estimate as the next step.
	out=$(cd "$tmp/example" && env -u LD_LIBRARY_PATH ./trace_verdict "$trace" "$prefix/share/nextstep/devices.json" 2>&1)
	cli=$("$bin" trace "$trace" 2>&1)
	check "examples/trace_verdict.c with the device table: the verdict" "$(echo "$cli" | sed -n 1p)" \
		"$(echo "$out" | sed -n 1p)"
	check "examples/trace_verdict.c with the device table: the next step" \
		"$(echo "$cli" | sed -n 's/^next step: [^,]*, \(up to\|about\) [^>]*-> \(.*\) ([^()]*)$/\2/p' | head -n 1)" \
		"$(echo "$out" | sed -n 's/^next step: \(.*\) (up to [0-9]*% of the step)$/\1/p')"
else
	cat "$tmp/cc.log"
	check "examples/trace_verdict.c builds with its printed line: $build_line" "built" "failed"
fi

# The same programs through CMake's find_package(nextstep), as examples/CMakeLists.txt builds them.
if cmake -S "$src/examples" -B "$tmp/cmake-examples" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cmake.log" 2>&1 &&
	cmake --build "$tmp/cmake-examples" >>"$tmp/cmake.log" 2>&1; then
	check "find_package(nextstep): route_profile runs" \
		"compute-bound (72%) -> write/use a fused kernel or lower precision (Module 4/5)" \
		"$(env -u LD_LIBRARY_PATH "$tmp/cmake-examples/route_profile" compute=0.72 memory=0.15 2>&1 | sed -n 1p)"
	check "find_package(nextstep): trace_verdict runs" "$want_verdict" \
		"$(env -u LD_LIBRARY_PATH "$tmp/cmake-examples/trace_verdict" "$trace" 2>&1 | sed -n 1p)"
	# The job fixture's distributedInfo: ranks 0 and 1 of a world of 2.
	check "find_package(nextstep): job_stragglers (nextstep::nextstep_static) runs" "2 ranks of a world of 2" \
		"$(env -u LD_LIBRARY_PATH "$tmp/cmake-examples/job_stragglers" "$src/tests/data/job-dir/rank-0.json" \
			"$src/tests/data/job-dir/rank-1.json" 2>&1 | sed -n 1p)"
	lib=$(ldd "$tmp/cmake-examples/trace_verdict" | awk '/libnextstep\.so/ { print $3 }')
	check "find_package(nextstep): the moved prefix's shared library" "yes" \
		"$([ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$prefix/lib/libnextstep.so.2")" ] && echo yes || echo no)"
else
	tail -n 20 "$tmp/cmake.log"
	check "examples/CMakeLists.txt configures and builds with find_package(nextstep)" "built" "failed"
fi

echo "install: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# The one extra build the install and reproducibility tests share (a CTest fixture): the project's own files
# copied to OUT/elsewhere/src, configured as the build under test was (CMAKE_ARGS) with the tests off, and built
# in OUT/elsewhere/build. tests/install/reproducible.sh compares its binaries with the build under test, whose
# source and build folders both differ; tests/install/install.sh installs it and removes its build tree.
# Usage: build-elsewhere.sh SOURCE_DIR BUILD_DIR OUT [CMAKE_ARGS...]   (OUT is emptied first)
set -u
usage="usage: build-elsewhere.sh SOURCE_DIR BUILD_DIR OUT [CMAKE_ARGS...]"
src=$(cd "${1:?$usage}" && pwd)
build=$(cd "${2:?$usage}" && pwd)
out=${3:?$usage}
shift 3
rm -rf "$out"
mkdir -p "$out/elsewhere/src" || exit 1
# the project's own files only: not its build folders (the one under test wherever it is, build*, out)
exclude=()
case $build/ in "$src"/*) exclude=(--exclude="./${build#"$src"/}") ;; esac
if ! (cd "$src" && tar cf - "${exclude[@]}" --exclude='./build*' --exclude=./.git --exclude=./out .) |
	(cd "$out/elsewhere/src" && tar xf -); then
	echo "build-elsewhere: copying the sources failed"
	exit 1
fi
if ! { cmake -S "$out/elsewhere/src" -B "$out/elsewhere/build" -DBUILD_TESTING=OFF "$@" &&
	cmake --build "$out/elsewhere/build" -j"$(nproc 2>/dev/null || echo 2)"; } >"$out/log" 2>&1; then
	tail -n 30 "$out/log"
	echo "build-elsewhere: the build in $out/elsewhere failed"
	exit 1
fi
echo "built in $out/elsewhere/build"

#!/usr/bin/env bash
# The one extra build the install and reproducibility tests share (a CTest fixture): the project's own files
# copied to OUT/elsewhere/src, configured as the build under test was (CMAKE_ARGS) with the tests off, and built
# in OUT/elsewhere/build. tests/install/reproducible.sh compares its binaries with the build under test, whose
# source and build folders both differ; tests/install/install.sh installs it and moves its build tree away while
# it runs what was installed.
# The build is kept for the next run, which rebuilds only what changed: a file whose bytes differ from the last
# copy's gets a new modification time, so the build cannot miss it (tar keeps the sources' times, and a source
# put back with an older time would otherwise look built). OUT is emptied first when the arguments differ from
# the last run's. A fresh clone builds all of it, as before: about 35 s of CPU on the CI machine's 2 cores.
# Usage: build-elsewhere.sh SOURCE_DIR BUILD_DIR OUT [CMAKE_ARGS...]
set -u
usage="usage: build-elsewhere.sh SOURCE_DIR BUILD_DIR OUT [CMAKE_ARGS...]"
src=$(cd "${1:?$usage}" && pwd)
build=$(cd "${2:?$usage}" && pwd)
out=${3:?$usage}
shift 3
here=$out/elsewhere
args=$(printf '%s\n' "$src" "$@")
# install.sh moves the build aside while it runs; a run killed there leaves it so
[ -d "$here/build.aside" ] && [ ! -e "$here/build" ] && mv "$here/build.aside" "$here/build"
if [ "$(cat "$here/args" 2>/dev/null)" != "$args" ] || [ -e "$here/build.aside" ]; then
	rm -rf "$out"
fi
mkdir -p "$here/src" || exit 1
rm -rf "$here/src.new" && mkdir "$here/src.new" || exit 1
# the project's own files only: not its build folders (the one under test wherever it is, build*, out)
exclude=()
case $build/ in "$src"/*) exclude=(--exclude="./${build#"$src"/}") ;; esac
if ! (cd "$src" && tar cf - "${exclude[@]}" --exclude='./build*' --exclude=./.git --exclude=./out .) |
	(cd "$here/src.new" && tar xf -); then
	echo "build-elsewhere: copying the sources failed"
	exit 1
fi
# what differs from the last copy, or is new, is newer than anything built from it
(cd "$here" && diff -rq src src.new 2>/dev/null) |
	sed -nE 's|^Files src/.* and src\.new/(.*) differ$|\1|p; s|^Only in src\.new/?(.*): (.*)$|\1/\2|p' |
	while IFS= read -r changed; do
		find "$here/src.new/${changed#/}" -exec touch {} +
	done
rm -rf "$here/src" && mv "$here/src.new" "$here/src" || exit 1
printf '%s\n' "$args" >"$here/args"
if ! { cmake -S "$here/src" -B "$here/build" -DBUILD_TESTING=OFF "$@" &&
	cmake --build "$here/build" -j"$(nproc 2>/dev/null || echo 2)"; } >"$out/log" 2>&1; then
	tail -n 30 "$out/log"
	echo "build-elsewhere: the build in $here failed"
	rm -f "$here/args" # the next run starts again from nothing
	exit 1
fi
echo "built in $here/build ($(grep -cE '^\[[0-9]+/[0-9]+\] (Building|Linking)|^\[ *[0-9]+%\] (Building|Linking)' "$out/log") steps)"

#!/usr/bin/env bash
# A reproducible build: the same sources built in two different folders (source and build paths both
# differ) give byte-identical binaries and libraries, so no absolute path is compiled in (the data directory
# is found at run time, never baked in).
# Usage: reproducible.sh SOURCE_DIR
set -u
src=$(cd "${1:?usage: reproducible.sh SOURCE_DIR}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
for tree in first/a second/elsewhere/b; do
	mkdir -p "$tmp/$tree"
	# the project's own files only, not its build folders
	(cd "$src" && tar cf - --exclude='./build*' --exclude=./.git --exclude='./out' .) | (cd "$tmp/$tree" && tar xf -)
	if ! { cmake -S "$tmp/$tree" -B "$tmp/$tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF &&
		cmake --build "$tmp/$tree/build" -j"$jobs" --target nextstep libnextstep_shared; } >"$tmp/log" 2>&1; then
		tail -n 30 "$tmp/log"
		echo "reproducible: the build in $tree failed"
		exit 1
	fi
done
status=0
for file in nextstep libnextstep.so.2; do
	a=$tmp/first/a/build/$file b=$tmp/second/elsewhere/b/build/$file
	if cmp -s "$a" "$b"; then
		echo "ok: $file is identical ($(wc -c <"$a") bytes) from two source and build folders"
	else
		echo "FAIL: $file differs between the two builds"
		for dir in "$tmp/first/a" "$tmp/second/elsewhere/b"; do
			strings -a "$a" "$b" | grep -F "$dir" | sort -u | head -n 5 | sed 's/^/  path compiled in: /'
		done
		status=1
	fi
done
exit $status

#!/usr/bin/env bash
# A reproducible build: the same sources built in two different folders (source and build paths both
# differ) give byte-identical binaries and libraries, so no absolute path is compiled in (the data directory
# is found at run time, never baked in). The two builds are the one under test and the copy that
# build-elsewhere.sh built, configured the same way (the CTest fixture build_elsewhere).
# Usage: reproducible.sh BUILD_DIR OTHER_BUILD_DIR
set -u
usage="usage: reproducible.sh BUILD_DIR OTHER_BUILD_DIR"
first=$(cd "${1:?$usage}" && pwd)
second=$(cd "${2:?$usage}" && pwd) || { echo "reproducible: no second build (the fixture build_elsewhere)"; exit 1; }
status=0
for file in nextstep libnextstep.so.2; do
	a=$first/$file b=$second/$file
	if [ ! -f "$a" ] || [ ! -f "$b" ]; then
		echo "FAIL: $file missing from one of the builds"
		status=1
	elif cmp -s "$a" "$b"; then
		echo "ok: $file is identical ($(wc -c <"$a") bytes) from two source and build folders"
	else
		echo "FAIL: $file differs between the two builds (is $first up to date?)"
		for dir in "$first" "$second" "$(dirname "$second")/src"; do
			strings -a "$a" "$b" | grep -F "$dir" | sort -u | head -n 5 | sed 's/^/  path compiled in: /'
		done
		status=1
	fi
done
exit $status

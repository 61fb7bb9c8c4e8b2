#!/usr/bin/env bash
# Speed and memory of `nextstep trace` on an Nsight Systems export of ~1 GB, against SQLite reading the same
# tables (`sqlite3 FILE 'select count(*) from ...'`) in the same sitting. The export is a make-trace trace
# rewritten by tests/nsys/kineto2nsys.py, then doubled in place (every event table's rows copied once more,
# shifted past the last event, correlation ids past the last one) until it reaches the size: the same
# events per step as a real capture, as many steps as the size takes. Prints wall and CPU seconds (median of 3)
# and peak RSS, and nextstep's time as a multiple of the baseline's; with OLD_BINARY (an earlier build), its
# figures too and new/old, in the same sitting. Files go under $TMPDIR (default /tmp).
# CPU seconds (user + system) are the figure to compare on a shared machine: wall time counts the other
# users' load.
# Usage: bench/bench-nsys.sh NEXTSTEP_BINARY [SIZE_MB [OLD_BINARY]]      (default 1000)
set -euo pipefail
bin=${1:?usage: bench-nsys.sh NEXTSTEP_BINARY [SIZE_MB [OLD_BINARY]]}
mb=${2:-1000}
old=${3:-}
src=$(cd "$(dirname "$0")/.." && pwd)
tools=$src/../shared/tools
work=${TMPDIR:-/tmp}/nextstep-bench-nsys
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch

if [ ! -x "$tools/make-trace" ] || ! command -v sqlite3 >/dev/null; then
	echo "bench-nsys: needs ../shared/tools/make-trace and the sqlite3 command" >&2
	exit 1
fi
tables="CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMSET
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION CUPTI_ACTIVITY_KIND_RUNTIME NVTX_EVENTS"

# The export of ~mb MB, cached.
export_of() { # out.sqlite
	local json=$work/make-trace-50mb.json base=$work/base-50mb.sqlite part
	[ -s "$1" ] && return 0
	bench_make_trace "$json" "$tools/make-trace" --target-mb 50
	[ -s "$base" ] || python3 "$src/tests/nsys/kineto2nsys.py" "$json" "$base" 2>/dev/null
	part=$(mktemp "$1.XXXXXX")
	cp "$base" "$part"
	python3 - "$part" "$mb" $tables <<'PY'
import os, sqlite3, sys
path, mb, tables = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
db = sqlite3.connect(path)
while os.path.getsize(path) < mb * 1e6:
    lo, hi = db.execute("SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()
    corr = db.execute("SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0]
    shift = hi - lo + 1000000
    for t in tables:
        cols = [r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (t,))]
        expr = [("%s + %d" % (c, shift)) if c in ("start", "end") else
                ("%s + %d" % (c, corr + 1)) if c == "correlationId" else c for c in cols]
        db.execute("INSERT INTO %s (%s) SELECT %s FROM %s" % (t, ", ".join(cols), ", ".join(expr), t))
    db.commit()
db.close()
PY
	mv -f "$part" "$1"
}

median() { sort -n | sed -n 2p; }
time_of() { # command... -> "wall cpu rss_kb"
	/usr/bin/time -v "$@" 2>"$scratch/time.txt" >/dev/null
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
	            /User time/ { u = $2 } /System time/ { k = $2 }
	            /Maximum resident set size/ { r = $2 } END { print w, u + k, r }' "$scratch/time.txt"
}
bench() { # label command... -> "wall cpu rss_kb" (medians of 3)
	local runs
	runs=$(for _ in 1 2 3; do time_of "${@:2}"; done)
	echo "$(echo "$runs" | awk '{print $1}' | median) $(echo "$runs" | awk '{print $2}' | median)" \
		"$(echo "$runs" | awk '{print $3}' | median)"
}

file=$work/export-${mb}mb.sqlite
export_of "$file"
counts=""
for t in $tables; do counts="$counts select count(*) from $t;"; done
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); export $(($(bench_size "$file") / 1000000)) MB," \
	"$(sqlite3 "$file" "select count(*) from CUPTI_ACTIVITY_KIND_KERNEL") kernels," \
	"$(sqlite3 "$file" "select count(*) from CUPTI_ACTIVITY_KIND_RUNTIME") runtime calls," \
	"$(sqlite3 "$file" "select count(*) from NVTX_EVENTS") NVTX ranges"
cat "$file" >/dev/null # both runs read a warm page cache
read -r bw bc br < <(bench baseline sqlite3 "$file" "$counts")
read -r nw nc nr < <(bench nextstep "$bin" trace --format json "$file")
ow=0 oc=0 om=0
if [ -n "$old" ]; then
	read -r ow oc om < <(bench old "$old" trace --format json "$file")
fi
awk -v bw="$bw" -v bc="$bc" -v br="$br" -v nw="$nw" -v nc="$nc" -v nr="$nr" \
	-v ow="$ow" -v oc="$oc" -v om="$om" 'BEGIN {
	printf "sqlite3 count(*) of the 6 tables   wall %6.2f s  cpu %6.2f s  peak RSS %6.1f MB\n", bw, bc, br / 1024
	printf "nextstep trace --format json        wall %6.2f s  cpu %6.2f s  peak RSS %6.1f MB\n", nw, nc, nr / 1024
	if (oc > 0)
		printf "old binary, the same                wall %6.2f s  cpu %6.2f s  peak RSS %6.1f MB\n", ow, oc, om / 1024
	printf "nextstep / baseline                 wall %6.2fx   cpu %6.2fx\n", nw / bw, nc / bc
	if (oc > 0)
		printf "nextstep / old binary               wall %6.2fx   cpu %6.2fx   peak RSS %6.2fx\n", nw / ow, nc / oc, nr / om }'

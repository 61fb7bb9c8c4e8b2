#!/usr/bin/env bash
# Truncated traces (docs/trace.md, "truncated"): a capture cut off by a killed job still gets a report of what
# was read, graded by where the cut fell, with the byte where the file ended, and exit status 1. The cuts are
# made here from tests/data/trace_kineto_order.json (events in the order Kineto writes them) and the expected
# byte is the cut file's own length (plain) or what zlib inflates from the cut gzip stream (python3), never the
# program's output. Run from the repository root: truncated.sh NEXTSTEP_BINARY
set -u
bin=$1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || t_skip "python3 not installed"
full=tests/data/trace_kineto_order.json

# cut FILE STRING OUT: OUT is FILE up to (not including) the first line holding STRING, plus half of that line
cut_at() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
at = data.index(sys.argv[2].encode())
line = data.rfind(b"\n", 0, at) + 1
end = data.index(b"\n", at)
open(sys.argv[3], "wb").write(data[: line + (end - line) // 2])
PY
}

# the JSON report's truncated problem: "GRADE BYTE" (BYTE from its detail), or "none"
problem() {
	python3 -c '
import json, re, sys
q = json.load(open(sys.argv[1]))["quality"]
p = [p for p in q["problems"] if p["kind"] == "truncated"]
print("none" if not p else "%s %s %s" % (q["grade"], p[0]["grade"], re.search(r"byte (\d+)", p[0]["detail"]).group(1)))' "$1" 2>/dev/null ||
		echo "no report"
}

# 1. Cut inside the device's activity (after the second kernel's launch): the third step's kernel is lost, the
#    host's ops are all there. Unfit, the numbers still printed, exit 1 with the reader's message.
cut_at "$full" '"correlation": 102}},' "$tmp/activity.json"
size=$(wc -c <"$tmp/activity.json")
"$bin" trace --format json "$tmp/activity.json" >"$tmp/a.json" 2>"$tmp/a.err"
t_check "activity cut: exit status 1" $(($? != 1)) "got another status"
t_check "activity cut: unfit, truncated at byte $size" "$([ "$(problem "$tmp/a.json")" = "unfit unfit $size" ]; echo $?)" \
	"$(problem "$tmp/a.json")"
grep -q "byte $size: unexpected end of input" "$tmp/a.err"
t_check "activity cut: the reader's message on stderr" $? "$(cat "$tmp/a.err")"
"$bin" trace "$tmp/activity.json" >"$tmp/a.txt" 2>/dev/null
grep -q '^trace quality: unfit, no verdict' "$tmp/a.txt" && grep -q '^  truncated: the file ends at byte' "$tmp/a.txt" &&
	grep -q '^  3 steps' "$tmp/a.txt"
t_check "activity cut: text report of what was read" $? "$(cat "$tmp/a.txt")"

# 2. Cut in the closing metadata (after the last kernel): no activity lost. Degraded, and the verdict is the
#    whole trace's.
cut_at "$full" '"name": "process_labels"' "$tmp/tail.json"
size=$(wc -c <"$tmp/tail.json")
"$bin" trace --format json "$tmp/tail.json" >"$tmp/t.json" 2>/dev/null
t_check "metadata cut: exit status 1" $(($? != 1)) "got another status"
t_check "metadata cut: degraded, truncated at byte $size" "$([ "$(problem "$tmp/t.json")" = "degraded degraded $size" ]; echo $?)" \
	"$(problem "$tmp/t.json")"
"$bin" trace "$tmp/tail.json" 2>/dev/null | grep -q '^device 0 (NVIDIA H100 80GB HBM3): compute-bound (60%)'
t_check "metadata cut: the verdict of the whole file" $? "no compute-bound verdict"

# 3. The same activity cut through gzip: the stream stops; the byte is what zlib inflates from it.
gzip -c "$full" >"$tmp/full.gz"
head -c $(($(wc -c <"$tmp/full.gz") * 2 / 3)) "$tmp/full.gz" >"$tmp/cut.gz"
want=$(python3 -c '
import sys, zlib
print(len(zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(open(sys.argv[1], "rb").read())))' "$tmp/cut.gz")
"$bin" trace --format json "$tmp/cut.gz" >"$tmp/g.json" 2>"$tmp/g.err"
t_check "gzip cut: exit status 1" $(($? != 1)) "got another status"
got=$(problem "$tmp/g.json")
t_check "gzip cut: truncated at byte $want" "$([ "${got##* }" = "$want" ]; echo $?)" "$got"
grep -q "truncated gzip data" "$tmp/g.err"
t_check "gzip cut: the inflater's message on stderr" $? "$(cat "$tmp/g.err")"

# 4. Cut before traceEvents: nothing was read, so there is nothing to report: the error alone.
cut_at "$full" '"traceEvents"' "$tmp/head.json"
"$bin" trace "$tmp/head.json" >"$tmp/h.txt" 2>"$tmp/h.err"
t_check "cut before the events: exit 1, no report" "$([ $? = 1 ] && [ ! -s "$tmp/h.txt" ]; echo $?)" "$(cat "$tmp/h.txt")"

# 5. A cut rank is not a job's: it is reported alone, and a summary is refused.
sed 's/"schemaVersion": 1,/"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},/' "$tmp/activity.json" >"$tmp/rank.json"
"$bin" trace --summary "$tmp/rank.json" >"$tmp/s.out" 2>"$tmp/s.err"
t_check "cut rank: --summary refuses it" "$([ $? = 1 ] && [ ! -s "$tmp/s.out" ] && grep -q 'cut off: no summary' "$tmp/s.err"; echo $?)" \
	"$(cat "$tmp/s.err")"

t_finish "truncated traces"

#!/bin/bash
# output-files.sh NEXTSTEP: the files nextstep writes (--html FILE, --svg FILE) never destroy an input and
# never leave a part (issue 19, item 1). Each case names the mistake or the failure it stands for; the cases
# marked "guard" keep what already worked (an own page replaced, /dev/null, links kept) while the others
# change. Every other case failed on the binary before the change: --html opened its FILE with fopen("w"),
# truncating it before anything was read.
set -u
bin=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
trace=$here/tests/data/trace_buckets.json
profile='{"compute": 0.5, "memory": 0.2}'

ok() { pass=$((pass + 1)); }
ko() {
	fail=$((fail + 1))
	echo "FAIL: $1"
	[ -f "$tmp/err" ] && head -c 600 "$tmp/err" && echo
}
# run CODE NAME CMD...: the command's exit status must be CODE; its stderr is kept in $tmp/err.
run() {
	local code=$1 name=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" -eq "$code" ] && return 0
	ko "$name: exit $got, want $code"
	return 1
}
# No new file was left beside the names in the case's folder (the page's temporary file starts with '.').
no_leftover() { [ -z "$(find "$1" -mindepth 1 -maxdepth 1 -name '.*' -print -quit)" ]; }
fresh() { rm -rf "$tmp/w" && mkdir "$tmp/w" && cp "$trace" "$tmp/w/run.json" && cp "$trace" "$tmp/w/orig.json"; }
# An own page, as an earlier run wrote it.
own_page() { "$bin" trace --html "$1" "$tmp/w/orig.json" >/dev/null && cp "$1" "$tmp/w/page.orig"; }

# The issue's case: the page's name forgotten, so --html takes the trace, and stdin is not a terminal.
fresh
if run 2 "--html TRACE, stdin empty" "$bin" trace --html "$tmp/w/run.json" </dev/null; then
	if cmp -s "$tmp/w/run.json" "$trace" && grep -q 'that is a trace, not a page nextstep wrote' "$tmp/err" &&
		grep -q -- '--html takes the page.s name: nextstep trace --html page.html' "$tmp/err" &&
		no_leftover "$tmp/w"; then ok; else ko "--html TRACE: the trace changed or the message is unclear"; fi
fi
fresh
if run 2 "--html TRACE, a trace on stdin" "$bin" trace --html "$tmp/w/run.json" <"$trace"; then
	if cmp -s "$tmp/w/run.json" "$trace" && [ ! -s "$tmp/out" ]; then ok; else ko "--html TRACE <trace: stdin was read or the trace changed"; fi
fi
# The router form of the same mistake, with a profile on stdin, exited 0 after replacing the trace.
fresh
if run 2 "router: --html TRACE, a profile on stdin" "$bin" --html "$tmp/w/run.json" <<<"$profile"; then
	if cmp -s "$tmp/w/run.json" "$trace" && [ ! -s "$tmp/out" ]; then ok; else ko "router --html TRACE: changed or routed"; fi
fi

# An input of the same run, by any name, is never overwritten, --force or not (an input's name is refused
# before its content is looked at: a trace's, a playbook's, a device table's).
fresh
if run 2 "--html run.json run.json" "$bin" trace --html "$tmp/w/run.json" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/run.json" "$trace" && grep -q 'that file is an input of this run' "$tmp/err"; then ok; else ko "--html run.json run.json"; fi
fi
# (--force is new: on the old binary this case was a usage error for the unknown option.)
if run 2 "--force does not make an input writable" "$bin" trace --force --html "$tmp/w/run.json" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/run.json" "$trace" && grep -q 'that file is an input of this run' "$tmp/err"; then ok; else ko "--force wrote over an input"; fi
fi
fresh
ln "$tmp/w/run.json" "$tmp/w/hard.html"
if run 2 "--html HARD-LINK run.json" "$bin" trace --html "$tmp/w/hard.html" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/run.json" "$trace"; then ok; else ko "a hard link to the input was written"; fi
fi
fresh
ln -s run.json "$tmp/w/soft.html"
if run 2 "--html SYMLINK run.json" "$bin" trace --html "$tmp/w/soft.html" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/run.json" "$trace" && [ -L "$tmp/w/soft.html" ]; then ok; else ko "a symbolic link to the input was written"; fi
fi
fresh
if run 2 "--html a path spelled otherwise" "$bin" trace --html "$tmp/w/../w/./run.json" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/run.json" "$trace"; then ok; else ko "./ and ../ hid the input"; fi
fi
fresh
if run 2 "--html FILE-IN-DIR DIR" "$bin" trace --html "$tmp/w/run.json" "$tmp/w"; then
	if cmp -s "$tmp/w/run.json" "$trace"; then ok; else ko "a file the directory operand stands for was written"; fi
fi
fresh
if run 2 "--html FILE <FILE (stdin)" "$bin" trace --html "$tmp/w/run.json" <"$tmp/w/run.json"; then
	if cmp -s "$tmp/w/run.json" "$trace" && grep -q '(stdin)' "$tmp/err"; then ok; else ko "the file on stdin was written"; fi
fi
fresh
cp "$here/examples/playbook.json" "$tmp/w/pb.json"
cp "$tmp/w/pb.json" "$tmp/w/pb.orig"
if run 2 "--playbook P --html P" "$bin" trace --playbook "$tmp/w/pb.json" --html "$tmp/w/pb.json" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/pb.json" "$tmp/w/pb.orig"; then ok; else ko "the playbook was written"; fi
fi
fresh
if run 2 "diff --html AFTER BEFORE AFTER" "$bin" diff --html "$tmp/w/run.json" "$tmp/w/orig.json" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/run.json" "$trace"; then ok; else ko "diff's AFTER was written"; fi
fi
printf '{"devices":[]}\n' >"$tmp/w/dev.json"
cp "$tmp/w/dev.json" "$tmp/w/dev.orig"
if run 2 "roofline --svg DEVICE-FILE" "$bin" roofline --device-file "$tmp/w/dev.json" --svg "$tmp/w/dev.json" --device h100 --matmul 64,64,64; then
	if cmp -s "$tmp/w/dev.json" "$tmp/w/dev.orig"; then ok; else ko "the device file was written"; fi
fi

# An existing file nextstep did not write is replaced only with --force; an own page or an empty file is.
fresh
printf 'my notes\n' >"$tmp/w/notes.html"
if run 2 "--html NOTES (not a page of ours)" "$bin" trace --html "$tmp/w/notes.html" "$tmp/w/run.json"; then
	if [ "$(cat "$tmp/w/notes.html")" = "my notes" ] && grep -q 'not a page nextstep wrote: left as it is (--force replaces it)' "$tmp/err"; then ok; else ko "notes replaced or unclear message"; fi
fi
if run 0 "--force --html NOTES" "$bin" trace --force --html "$tmp/w/notes.html" "$tmp/w/run.json"; then
	if head -c 15 "$tmp/w/notes.html" | grep -q '<!DOCTYPE html>'; then ok; else ko "--force did not write the page"; fi
fi
printf 'not a plot\n' >"$tmp/w/plot.svg"
if run 2 "roofline --svg NOTES" "$bin" roofline --device h100 --matmul 64,64,64 --svg "$tmp/w/plot.svg"; then
	if [ "$(cat "$tmp/w/plot.svg")" = "not a plot" ] && [ ! -s "$tmp/out" ]; then ok; else ko "--svg replaced a foreign file or printed"; fi
fi
# guard: a plot or page of ours, and an empty file (mktemp's), are replaced without --force.
rm -f "$tmp/w/plot.svg"
run 0 "guard: --svg new" "$bin" roofline --device h100 --matmul 64,64,64 --svg "$tmp/w/plot.svg" &&
	run 0 "guard: --svg over its own plot" "$bin" roofline --device h100 --matmul 128,128,128 --svg "$tmp/w/plot.svg" && ok
own_page "$tmp/w/page.html"
run 0 "guard: --html over its own page" "$bin" trace --html "$tmp/w/page.html" "$tmp/w/run.json" && ok
: >"$tmp/w/empty.html"
run 0 "guard: --html over an empty file" "$bin" trace --html "$tmp/w/empty.html" "$tmp/w/run.json" && ok

# A failed run leaves no page: not a new, empty one, and not over the old one.
fresh
printf '{"traceEvents": [' >"$tmp/w/cut.json"
if run 1 "bad input, new page name" "$bin" trace --html "$tmp/w/new.html" "$tmp/w/cut.json"; then
	if [ ! -e "$tmp/w/new.html" ] && no_leftover "$tmp/w" && grep -q 'no page written: no input was analysed' "$tmp/err"; then ok; else ko "a failed run left a page"; fi
fi
own_page "$tmp/w/page.html"
if run 1 "bad input, existing page" "$bin" trace --html "$tmp/w/page.html" "$tmp/w/cut.json"; then
	if cmp -s "$tmp/w/page.html" "$tmp/w/page.orig" && no_leftover "$tmp/w"; then ok; else ko "a failed run changed the old page"; fi
fi
if run 1 "router: bad profile, existing page" "$bin" --html "$tmp/w/page.html" <<<'{"compute": 7}'; then
	if cmp -s "$tmp/w/page.html" "$tmp/w/page.orig" && no_leftover "$tmp/w"; then ok; else ko "a failed router run changed the old page"; fi
fi
if run 1 "job: no summary, existing page" "$bin" job --html "$tmp/w/page.html" "$tmp/w/cut.json"; then
	if cmp -s "$tmp/w/page.html" "$tmp/w/page.orig" && no_leftover "$tmp/w"; then ok; else ko "a failed job run changed the old page"; fi
fi

# A write that fails part way (ulimit -f: the page is over 4 KiB) leaves the old page: the write error, whether
# the caller ignores SIGXFSZ or not (nextstep ignores it itself since issue 26: a file past the limit is a
# write error, said, not a silent exit 153).
own_page "$tmp/w/page.html"
if run 1 "write error (EFBIG)" bash -c 'trap "" XFSZ; ulimit -f 4; exec "$0" trace --html "$1" "$2"' "$bin" "$tmp/w/page.html" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/page.html" "$tmp/w/page.orig" && no_leftover "$tmp/w" && grep -q 'page.html: write error' "$tmp/err"; then ok; else ko "a write error changed the old page"; fi
fi
own_page "$tmp/w/page.html"
if run 1 "SIGXFSZ not ignored by the caller" bash -c 'ulimit -f 4; exec "$0" trace --html "$1" "$2"' "$bin" "$tmp/w/page.html" "$tmp/w/run.json"; then
	if cmp -s "$tmp/w/page.html" "$tmp/w/page.orig" && no_leftover "$tmp/w" && grep -q 'page.html: write error' "$tmp/err"; then ok; else ko "SIGXFSZ: the old page changed or the new file was left"; fi
fi

# Interrupted while reading (a FIFO with a writer that sends nothing): SIGTERM and SIGINT leave the old page
# and no new file.
for sig in TERM INT; do
	own_page "$tmp/w/page.html"
	rm -f "$tmp/w/fifo" && mkfifo "$tmp/w/fifo"
	sleep 30 >"$tmp/w/fifo" &
	writer=$!
	# Not started from an interactive shell: SIGINT would be ignored in a background job without this.
	(trap - INT && exec "$bin" trace --html "$tmp/w/page.html" "$tmp/w/fifo") 2>/dev/null &
	reader=$!
	for _ in $(seq 100); do
		[ -n "$(find "$tmp/w" -maxdepth 1 -name '.page.html.*' -print -quit)" ] && break
		sleep 0.05
	done
	kill -s "$sig" "$reader"
	wait "$reader" 2>/dev/null
	status=$?
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	# Ended by the signal itself (128 + its number), not by the end of its input.
	if [ "$status" = $((128 + $(kill -l "$sig"))) ] && cmp -s "$tmp/w/page.html" "$tmp/w/page.orig" &&
		no_leftover "$tmp/w"; then ok; else ko "SIG$sig while reading (exit $status): the old page changed or the new file was left"; fi
	rm -f "$tmp/w/fifo"
done

# The new file is made as a plain create would make it (the umask), and a replaced file keeps its mode.
fresh
if run 0 "umask 027: a new page" bash -c 'umask 027; exec "$0" trace --html "$1" "$2"' "$bin" "$tmp/w/m.html" "$tmp/w/run.json"; then
	if [ "$(stat -c %a "$tmp/w/m.html")" = 640 ]; then ok; else ko "umask 027 gave mode $(stat -c %a "$tmp/w/m.html")"; fi
fi
chmod 600 "$tmp/w/m.html"
if run 0 "a private page stays private" "$bin" trace --html "$tmp/w/m.html" "$tmp/w/run.json"; then
	if [ "$(stat -c %a "$tmp/w/m.html")" = 600 ]; then ok; else ko "a 0600 page became $(stat -c %a "$tmp/w/m.html")"; fi
fi
# guard: a symbolic link to a page stays a link, to the new page; a device is written in place.
ln -s m.html "$tmp/w/link.html"
if run 0 "guard: --html LINK" "$bin" trace --html "$tmp/w/link.html" "$tmp/w/run.json"; then
	if [ -L "$tmp/w/link.html" ] && no_leftover "$tmp/w"; then ok; else ko "the link was replaced by a file"; fi
fi
run 0 "guard: --html /dev/null" "$bin" trace --html /dev/null "$tmp/w/run.json" && ok

echo "output files: $pass passed, $fail failed"
[ "$fail" = 0 ]

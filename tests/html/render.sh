#!/usr/bin/env bash
# The HTML report in a real browser: pages of a small fixture, a generated trace (checked against the
# generator's truth), the shared ResNet-50 trace and the diff of the ResNet-50 pair, each parsed for
# well-formedness and external references, rendered by headless Chromium (no console error, the script ran,
# the DOM holds the verdict and the split's numbers) and, for the generated trace, screenshotted and compared
# with docs/html-report.png (tolerant: same size, few differing pixels; NS_UPDATE_SCREENSHOT=1 rewrites it).
# Run from the repository root: render.sh NEXTSTEP_BINARY [JOB_SUMMARIZE (tests/job's helper: the job page)]
set -u
bin=$(realpath "$1")
summarize=${2:+$(realpath "$2")}
here=$(realpath "$(dirname "$0")")
root=$(pwd)
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "skipped: chromium not installed (Debian: apt-get install chromium)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SOURCE_DATE_EPOCH=1767225600 # 2026-01-01 00:00:00 UTC: reproducible pages
pass=0
fail=0
skipped=0

ok() { pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

browser() { # chromium options... (its own profile, no sandbox: tests may run as root)
	timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 "$@"
}

# The page: well-formed, self-contained, rendered without a console error and with its script run to the end.
render() { # name page
	local name=$1 page=$2
	python3 "$here/check_page.py" wellformed "$page" || { ko "$name: page"; return 1; }
	if ! browser --dump-dom "file://$page" >"$tmp/$name.dom" 2>"$tmp/$name.log"; then
		ko "$name: chromium failed: $(tail -3 "$tmp/$name.log")"
		return 1
	fi
	if grep -E 'CONSOLE|Uncaught' "$tmp/$name.log"; then
		ko "$name: console messages"
		return 1
	fi
	python3 "$here/check_page.py" ran "$tmp/$name.dom" || { ko "$name: script"; return 1; }
	size=$(stat -c %s "$page")
	if [ "$size" -gt 1048576 ]; then
		ko "$name: page of $size bytes, over 1 MiB"
		return 1
	fi
	echo "$name: $size bytes"
}

# A hand-written fixture: needs nothing outside the repository.
cp tests/data/trace_buckets.json "$tmp/fixture.json"
if (cd "$tmp" && "$bin" trace --html fixture.html fixture.json >/dev/null) && render fixture "$tmp/fixture.html" &&
	python3 "$here/check_page.py" source "$tmp/fixture.dom" "$tmp/fixture.json"; then ok; else ko fixture; fi

# --html - puts the page alone on stdout.
if "$bin" trace --html - tests/data/trace_buckets.json >"$tmp/stdout.html" &&
	head -c 15 "$tmp/stdout.html" | grep -q '<!DOCTYPE html>' && tail -1 "$tmp/stdout.html" | grep -q '</html>'; then
	ok
else ko "--html - is not the page alone"; fi

# Read from a pipe the digest is taken as the bytes go by (a file is hashed on a thread of its own).
if gzip -c tests/data/trace_buckets.json >"$tmp/piped.json.gz" &&
	"$bin" trace --html "$tmp/piped.html" - <"$tmp/piped.json.gz" >/dev/null &&
	cat "$tmp/piped.json.gz" | "$bin" trace --html "$tmp/piped2.html" - >/dev/null &&
	python3 "$here/check_page.py" source "$tmp/piped.html" "$tmp/piped.json.gz" &&
	python3 "$here/check_page.py" source "$tmp/piped2.html" "$tmp/piped.json.gz"; then
	ok
else ko "digest of stdin"; fi

# --roofline: the plot inline and the placed ops. aten::mm 2048x2048x2048 in fp32 does 2*2048^3 FLOPs on
# (3 * 2048^2) * 4 bytes: 341.333 FLOP/B.
if "$bin" trace --roofline --html "$tmp/roofline.html" tests/data/trace_roofline.json >/dev/null &&
	render roofline "$tmp/roofline.html" && grep -q '<svg role="img" class="roofline"' "$tmp/roofline.dom" &&
	grep -q '<tr><td>aten::mm</td><td>.*</td><td>fp32</td>.*data-v="341.333"' "$tmp/roofline.dom"; then
	ok
else ko "--roofline section"; fi

# A bad trace among good ones: its place on the page says what is wrong, the good one is still drawn, exit 1.
printf '{"traceEvents": [{"ph": "X", "name": "k", "cat": "kernel", "ts": 1}]}' >"$tmp/bad.json"
"$bin" trace --html "$tmp/mixed.html" "$tmp/bad.json" tests/data/trace_buckets.json >/dev/null 2>&1
rc=$?
if [ "$rc" = 1 ] && render mixed "$tmp/mixed.html" && grep -q 'data-error="1"' "$tmp/mixed.dom" &&
	grep -q 'without "dur"' "$tmp/mixed.dom" && grep -q '<section class="device"' "$tmp/mixed.dom"; then
	ok
else ko "bad trace on the page (exit $rc)"; fi

# A capture with a dropped kernel (1 of its 20 launches, by construction of the fixture): the page says the
# trace is degraded before the verdict, and why.
if "$bin" trace --html "$tmp/quality.html" tests/data/trace_quality_dropped.json >/dev/null &&
	render quality "$tmp/quality.html" && grep -q '<div class="quality" data-grade="degraded">' "$tmp/quality.dom" &&
	grep -q '<li>launch_without_activity: 1 of 20 launches' "$tmp/quality.dom" &&
	! grep -q 'class="quality"' "$tmp/fixture.dom"; then
	ok
else ko "trace quality on the page"; fi

# NDJSON through the router: a card per record, the bad one as an error card.
printf '{"compute":0.7,"idle":0.3}\n{"dataloader":0.6,"compute":0.4}\nnot json\n' >"$tmp/records.ndjson"
"$bin" --html "$tmp/router.html" "$tmp/records.ndjson" >/dev/null 2>&1
if render router "$tmp/router.html" && [ "$(grep -c 'class="card"' "$tmp/router.dom")" = 2 ] &&
	grep -q 'class="card" style="--c:[^"]*" data-regime="compute"' "$tmp/router.dom" &&
	grep -q 'data-regime="dataloader"' "$tmp/router.dom" && grep -q 'data-error="1"' "$tmp/router.dom"; then
	ok
else ko "router cards"; fi

tools=$root/../shared/tools
traces=$root/../shared/traces
if [ ! -x "$tools/make-trace" ]; then
	echo "skipped: ../shared not found (generated and shared traces)"
	skipped=1
else
	# A generated trace against its truth, and the screenshot.
	(cd "$tmp" && "$tools/make-trace" --out generated.json --truth generated.truth.json --steps 8 --seed 14 \
		>/dev/null 2>&1)
	if (cd "$tmp" && "$bin" trace --html generated.html generated.json >/dev/null) &&
		render generated "$tmp/generated.html" &&
		python3 "$here/check_page.py" truth "$tmp/generated.dom" "$tmp/generated.truth.json" &&
		python3 "$here/check_page.py" source "$tmp/generated.dom" "$tmp/generated.json"; then ok; else ko generated; fi
	if browser --window-size=1000,1400 --screenshot="$tmp/generated.png" "file://$tmp/generated.html" \
		>/dev/null 2>&1 && [ -s "$tmp/generated.png" ]; then
		if [ "${NS_UPDATE_SCREENSHOT:-}" = 1 ]; then
			cp "$tmp/generated.png" "$root/docs/html-report.png"
			echo "docs/html-report.png rewritten"
		fi
		if python3 "$here/pngdiff.py" "$tmp/generated.png" "$root/docs/html-report.png"; then ok; else ko screenshot; fi
	else ko "screenshot not written"; fi

	# The ResNet-50 pair (TensorBoard plugin figures, as tests/trace/real.sh), one page and the diff.
	b=$traces/tbp/resnet50_num_workers_0.pt.trace.json.gz
	a=$traces/tbp/resnet50_num_workers_4.pt.trace.json.gz
	if "$bin" trace --html "$tmp/resnet.html" "$b" >/dev/null && render resnet50 "$tmp/resnet.html" &&
		python3 "$here/check_page.py" tbp "$tmp/resnet50.dom" 177.6 33.4 &&
		python3 "$here/check_page.py" source "$tmp/resnet50.dom" "$b"; then ok; else ko resnet50; fi
	# An 8-rank job with a straggler (rank 5): the heat map against the generator's per-rank truth.
	mkdir -p "$tmp/job/t" "$tmp/job/truth"
	"$tools/make-trace" --out "$tmp/job/t/job.json" --truth "$tmp/job/truth/job.truth.json" --ranks 8 \
		--straggler 5 --steps 2 --seed 3 >/dev/null 2>&1
	if [ -n "$summarize" ]; then
		if "$summarize" "$tmp"/job/t/* >"$tmp/job/s.ndjson" &&
			"$bin" job --html "$tmp/job.html" "$tmp/job/s.ndjson" >/dev/null && render job "$tmp/job.html" &&
			python3 "$here/check_page.py" job "$tmp/job.dom" "$tmp/job/truth" 5 &&
			python3 "$here/check_page.py" source "$tmp/job.dom" "$tmp/job/s.ndjson"; then ok; else ko job; fi
	fi
	# The same ranks' traces given to `nextstep trace`: each rank's section, then the job's.
	if "$bin" trace --html "$tmp/tracejob.html" "$tmp"/job/t/* >/dev/null && render tracejob "$tmp/tracejob.html" &&
		python3 "$here/check_page.py" job "$tmp/tracejob.dom" "$tmp/job/truth" 5 &&
		[ "$(grep -c '<article class="trace">' "$tmp/tracejob.dom")" = 8 ]; then ok; else ko "trace of a job"; fi
	if "$bin" diff --html "$tmp/diff.html" "$b" "$a" >/dev/null && render diff "$tmp/diff.html" &&
		python3 "$here/check_page.py" diff "$tmp/diff.dom" 177.6 141.1 33.4 0.8 &&
		python3 "$here/check_page.py" source "$tmp/diff.dom" "$b" "$a"; then ok; else ko diff; fi
fi

echo "html pages: $pass passed, $fail failed"
[ "$fail" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0

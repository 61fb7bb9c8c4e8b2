#!/usr/bin/env bash
# The HTML report in a real browser: pages of a small fixture, a generated trace (checked against the
# generator's truth), the shared ResNet-50 trace and the diff of the ResNet-50 pair, each parsed for
# well-formedness and external references, rendered by headless Chromium (no console error, the script ran,
# the DOM holds the verdict and the split's numbers) and, for the generated trace, screenshotted and compared
# with docs/html-report.png (tolerant: same size, few differing pixels; NS_UPDATE_SCREENSHOT=1 rewrites it).
# Fixtures show the rest of what the text report says (passes of a step, inference phases, Python frames, graph
# replays), and the main pages are printed to PDF to check the print stylesheet (pdftotext, poppler-utils).
# Run from the repository root: render.sh NEXTSTEP_BINARY [JOB_SUMMARIZE (tests/job's helper: the job page)]
set -u
bin=$(realpath "$1")
summarize=${2:+$(realpath "$2")}
here=$(realpath "$(dirname "$0")")
root=$(pwd)
# NS_HTML_PAGES_ONLY=1 (CTest sets it in sanitized builds): the pages are written and checked as markup, without
# the browser. What runs under AddressSanitizer is the writing of a page; rendering it in Chromium exercises no
# code of ours, and the plain build's run renders the same pages. Then the checks below that read the DOM read the
# page's own markup, and the script, print and screenshot checks are left to the plain build.
pages_only=${NS_HTML_PAGES_ONLY:-}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$pages_only" ]; then
	echo "pages only (NS_HTML_PAGES_ONLY): no browser; rendering, printing and the screenshot are checked in the plain build"
elif [ -z "$chromium" ]; then
	echo "skipped: chromium not installed (Debian: apt-get install chromium)"
	exit 77
fi
tmp=$(mktemp -d)
browser_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ -n "$browser_pid" ]; then
		exec {browser_in}>&- # its end of input: it closes the browser and exits
		wait "$browser_pid"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
export SOURCE_DATE_EPOCH=1767225600 # 2026-01-01 00:00:00 UTC: reproducible pages
# the fixes page the banner names, as the README's default install has it (not this build tree's path)
export NEXTSTEP_DOCDIR=/usr/local/share/doc/nextstep
pass=0
fail=0
skipped=0

ok() { pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# One browser for every page (browse.py: Chromium driven over the DevTools protocol on a pipe, its own profile, no
# sandbox: tests may run as root): a browser start per page cost about 1.5 s of CPU, and there are 18.
if [ -z "$pages_only" ]; then
	coproc BROWSER { python3 "$here/browse.py" "$chromium" "$tmp/profile" 2>"$tmp/browser.log"; }
	# shellcheck disable=SC2153 # set by coproc
	browser_pid=$BROWSER_PID
	browser_in=${BROWSER[1]}
	browser_out=${BROWSER[0]}
fi
browser() { # dom|pdf|png URL OUT LOG [WIDTH HEIGHT]: one request; its answer is "ok" or says what failed
	local reply IFS=$'\t' # the request's fields, tab-separated ("$*"); not in a subshell, which has no coproc
	echo "$*" >&"$browser_in" && read -r reply <&"$browser_out" ||
		reply="error: the browser driver exited: $(grep -v dbus "$tmp/browser.log" | tail -3)"
	[ "$reply" = ok ] && return 0
	echo "$reply" >>"$4"
	return 1
}

# The page: well-formed, self-contained, rendered without a console error and with its script run to the end.
render() { # name page
	local name=$1 page=$2
	python3 "$here/check_page.py" wellformed "$page" || { ko "$name: page"; return 1; }
	if [ -n "$pages_only" ]; then
		cp "$page" "$tmp/$name.dom"
	elif ! browser dom "file://$page" "$tmp/$name.dom" "$tmp/$name.log"; then
		ko "$name: chromium failed: $(tail -3 "$tmp/$name.log")"
		return 1
	fi
	if [ -z "$pages_only" ] && grep -E 'CONSOLE|Uncaught' "$tmp/$name.log"; then
		ko "$name: console messages"
		return 1
	fi
	[ -n "$pages_only" ] || python3 "$here/check_page.py" ran "$tmp/$name.dom" || { ko "$name: script"; return 1; }
	size=$(stat -c %s "$page")
	if [ "$size" -gt 1048576 ]; then
		ko "$name: page of $size bytes, over 1 MiB"
		return 1
	fi
	echo "$name: $size bytes"
}

# Printed (print media, US Letter, Chromium's default): the print stylesheet's promises, read back from the PDF with
# poppler's pdftotext (Debian: poppler-utils; without it the print checks are skipped, and said so).
if [ -n "$pages_only" ]; then
	can_print=
elif command -v pdftotext >/dev/null && command -v pdfinfo >/dev/null; then
	can_print=1
else
	can_print=
	echo "skipped: print checks (pdftotext/pdfinfo not installed; Debian: apt-get install poppler-utils)"
	skipped=1
fi
printed() { # name page min-pages max-pages verdict-word
	[ -n "$can_print" ] || return 0
	if ! browser pdf "file://$2" "$tmp/$1.pdf" "$tmp/$1.pdf.log" || [ ! -s "$tmp/$1.pdf" ]; then
		echo "  $1: chromium wrote no PDF: $(tail -1 "$tmp/$1.pdf.log")"
		return 1
	fi
	python3 "$here/check_page.py" print "$tmp/$1.pdf" "$3" "$4" "$5" || return 1
	echo "$1: printed pages: $(pdfinfo "$tmp/$1.pdf" | sed -n 's/^Pages: *//p')"
}

# A hand-written fixture: needs nothing outside the repository.
cp tests/data/trace_buckets.json "$tmp/fixture.json"
# Its verdict is compute-bound (30 %, README), and the banner names that fix's section of the installed fixes page.
if (cd "$tmp" && "$bin" trace --html fixture.html fixture.json >/dev/null) && render fixture "$tmp/fixture.html" &&
	python3 "$here/check_page.py" source "$tmp/fixture.dom" "$tmp/fixture.json" &&
	grep -q '<p>How to apply it: <span class="doc">/usr/local/share/doc/nextstep/fixes\.md#compute-bound</span></p>' \
		"$tmp/fixture.dom"; then ok; else ko fixture; fi

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
	grep -q -e 'without "dur"' -e 'without &quot;dur&quot;' "$tmp/mixed.dom" && grep -q '<section class="device"' "$tmp/mixed.dom"; then
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

# The passes of a training step, by hand from tests/data/trace_phases.json (docs/trace.md's rule: optimizer
# wins over forward, forward over backward; other processes' and GPU-side markers do not count). Step 1
# [0, 100) us: forward 5-35 = 30, backward 38-72 = 34, optimizer 0-4 + 75-95 = 24. Step 2 [100, 200): forward
# 105-135 = 30 (two markers), backward the engine's 130-150 and 155-165 less forward and optimizer = 15 + 5 =
# 20, optimizer 160-190 = 30. Means: 30, 27, 27 us, other 16; the optimizer's 27 % is a high finding (>= 20 %),
# so it is in the banner too. Printed: the passes' strip and the folded steps table.
if "$bin" trace --html "$tmp/phases.html" tests/data/trace_phases.json >/dev/null &&
	render phases "$tmp/phases.html" &&
	grep -q '<tr data-pass="forward">.*data-v="0.030000">.*data-v="30.0000"' "$tmp/phases.dom" &&
	grep -q '<tr data-pass="backward">.*data-v="0.027000">.*data-v="27.0000"' "$tmp/phases.dom" &&
	grep -q '<tr data-pass="optimizer">.*data-v="0.027000">.*data-v="27.0000"' "$tmp/phases.dom" &&
	grep -q '<tr data-pass="other">.*data-v="0.016000">.*data-v="16.0000"' "$tmp/phases.dom" &&
	grep -q '<td class="n">1</td>.*data-v="0.030000">0.030</td><td class="n" data-v="0.034000">0.034</td><td class="n" data-v="0.024000">0.024</td></tr>' "$tmp/phases.dom" &&
	grep -q '<td class="n">2</td>.*data-v="0.030000">0.030</td><td class="n" data-v="0.020000">0.020</td><td class="n" data-v="0.030000">0.030</td></tr>' "$tmp/phases.dom" &&
	[ "$(grep -c '<g class="strip-bar"><title>step [12] host phases: 0.100 ms' "$tmp/phases.dom")" = 2 ] &&
	sed -n '/<div class="banner"/,/<\/div>/p' "$tmp/phases.dom" | grep -q 'data-finding="optimizer" data-grade="high">Also high: optimizer step 27%' &&
	printed phases "$tmp/phases.html" 1 3 idle; then
	ok
else ko "phases of the step"; fi

# Inference steps (tests/data/trace_vllm_markers.json): vLLM's markers give the steps and their phase, and each
# phase gets its verdict: prefill, step 0, a GEMM of 80 us in 100 (compute 80 %); decode, steps 1-2, a GEMV (a
# memory-class kernel) of 30 us in 50 each (memory 60 %); mixed, step 3, a 50 us GEMM and a 20 us GEMV in 100
# (compute 50 %).
if "$bin" trace --html "$tmp/vllm.html" tests/data/trace_vllm_markers.json >/dev/null &&
	render vllm "$tmp/vllm.html" &&
	grep -q '(steps from <span class="step-source">inference-server iteration markers</span>)' "$tmp/vllm.dom" &&
	grep -q '<tr data-phase="prefill" data-regime="compute"><td>prefill</td><td class="n">1</td><td class="n">0.100</td>.*<td class="n">80%</td>' "$tmp/vllm.dom" &&
	grep -q '<tr data-phase="decode" data-regime="memory"><td>decode</td><td class="n">2</td><td class="n">0.050</td>.*<td class="n">60%</td>' "$tmp/vllm.dom" &&
	grep -q '<tr data-phase="mixed" data-regime="compute"><td>mixed</td><td class="n">1</td><td class="n">0.100</td>.*<td class="n">50%</td>' "$tmp/vllm.dom" &&
	grep -q '<title>step 1 \[decode\]: 0.050 ms' "$tmp/vllm.dom" &&
	grep -q '<td class="n">0</td><td>execute_context_1(512)_generation_0(0)</td><td>prefill</td>' "$tmp/vllm.dom" &&
	! grep -q 'python-hint' "$tmp/vllm.dom"; then # compute-bound: Python frames would not explain it
	ok
else ko "inference phases"; fi

# What the text report says about the trace is on the page too, in the same numbers: the Python frames behind
# each host cause (trace -v) and the CUDA-graph replays (trace).
"$bin" trace -v tests/data/trace_python_frames.json >"$tmp/python.txt"
"$bin" trace tests/data/trace_quality_graphs.json >"$tmp/graphs.txt"
graphs=$(sed -n 's/^  graphs: \([0-9]*\)% of GPU time in \([0-9]*\) replays (\([0-9]*\) kernels)$/\1 \2 \3/p' "$tmp/graphs.txt")
read -r g_pct g_launches g_kernels <<<"$graphs"
if "$bin" trace --html "$tmp/python.html" tests/data/trace_python_frames.json >/dev/null &&
	"$bin" trace --html "$tmp/graphs.html" tests/data/trace_quality_graphs.json >/dev/null &&
	render python "$tmp/python.html" && render graphs "$tmp/graphs.html" &&
	frames_ok=1 && while read -r pct ms unit frame; do
		grep -qF "<tr><td class=\"kname\">$frame</td><td class=\"n\" data-v=\"${ms}000\">$ms</td><td class=\"n\">$pct</td></tr>" \
			"$tmp/python.dom" || { echo "  python frame not on the page: $frame $ms"; frames_ok=; }
	done < <(grep -E '^ +[0-9.]+% +[0-9.]+ ms  ' "$tmp/python.txt") && [ -n "$frames_ok" ] &&
	[ "$(grep -cE '^ +[0-9.]+% +[0-9.]+ ms  ' "$tmp/python.txt")" = "$(grep -c '<tr><td class="kname">' "$tmp/python.dom")" ] &&
	[ -n "$g_launches" ] &&
	grep -q "<p class=\"graphs\" data-launches=\"$g_launches\" data-kernels=\"$g_kernels\">CUDA/HIP graphs: $g_pct% of GPU time" "$tmp/graphs.dom" &&
	grep -q 'class="note python-hint">Host-side causes hold' "$tmp/graphs.dom"; then
	ok
else ko "python frames and graph replays as the text report"; fi

# The text report's notes on what the steps leave out (trace -v): step markers of a process that launched no
# device work, and GPU work launched outside every step; the page says the same, in the same numbers.
"$bin" trace -v tests/data/trace_gpu_behind.json >"$tmp/behind.txt"
ignored=$(sed -n 's/^note: \([0-9]*\) step markers of process \([0-9]*\) ignored.*/\1 \2/p' "$tmp/behind.txt")
outside=$(sed -n 's/^  outside the steps: \([0-9]*\) GPU events* (\([0-9.]*\) ms).*/\1 \2/p' "$tmp/behind.txt")
read -r i_n i_pid <<<"$ignored"
read -r o_n o_ms <<<"$outside"
if [ -n "$i_n" ] && [ -n "$o_n" ] && "$bin" trace --html "$tmp/behind.html" tests/data/trace_gpu_behind.json >/dev/null &&
	render behind "$tmp/behind.html" &&
	grep -q "<p class=\"note ignored-markers\" data-markers=\"$i_n\">$i_n step markers of process $i_pid ignored" "$tmp/behind.dom" &&
	grep -q "<span class=\"outside\" data-events=\"$o_n\">$o_n GPU events* ($o_ms ms) launched outside" "$tmp/behind.dom"; then
	ok
else ko "notes on what the steps leave out"; fi

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
		python3 "$here/check_page.py" source "$tmp/generated.dom" "$tmp/generated.json" &&
		python3 "$here/check_page.py" passes "$tmp/generated.dom" "$tmp/generated.json" "$tmp/generated.truth.json" &&
		printed generated "$tmp/generated.html" 2 5 compute-bound; then ok; else ko generated; fi
	if [ -n "$pages_only" ]; then
		: # the screenshot is the browser's
	elif browser png "file://$tmp/generated.html" "$tmp/generated.png" "$tmp/generated.png.log" 1000 1400 &&
		[ -s "$tmp/generated.png" ]; then
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
		python3 "$here/check_page.py" source "$tmp/resnet50.dom" "$b" &&
		printed resnet50 "$tmp/resnet.html" 2 6 compute-bound; then ok; else ko resnet50; fi
	# An 8-rank job with a straggler (rank 5): the heat map against the generator's per-rank truth.
	mkdir -p "$tmp/job/t" "$tmp/job/truth"
	"$tools/make-trace" --out "$tmp/job/t/job.json" --truth "$tmp/job/truth/job.truth.json" --ranks 8 \
		--straggler 5 --steps 2 --seed 3 >/dev/null 2>&1
	if [ -n "$summarize" ]; then
		if "$summarize" "$tmp"/job/t/* >"$tmp/job/s.ndjson" &&
			"$bin" job --html "$tmp/job.html" "$tmp/job/s.ndjson" >/dev/null && render job "$tmp/job.html" &&
			python3 "$here/check_page.py" job "$tmp/job.dom" "$tmp/job/truth" 5 &&
			python3 "$here/check_page.py" source "$tmp/job.dom" "$tmp/job/s.ndjson" &&
			printed job "$tmp/job.html" 1 3 straggler-bound; then ok; else ko job; fi
	fi
	# The same ranks' traces given to `nextstep trace`: each rank's section, then the job's.
	if "$bin" trace --html "$tmp/tracejob.html" "$tmp"/job/t/* >/dev/null && render tracejob "$tmp/tracejob.html" &&
		python3 "$here/check_page.py" job "$tmp/tracejob.dom" "$tmp/job/truth" 5 &&
		[ "$(grep -c '<article class="trace">' "$tmp/tracejob.dom")" = 8 ]; then ok; else ko "trace of a job"; fi
	if "$bin" diff --html "$tmp/diff.html" "$b" "$a" >/dev/null && render diff "$tmp/diff.html" &&
		python3 "$here/check_page.py" diff "$tmp/diff.dom" 177.6 141.1 33.4 0.8 &&
		python3 "$here/check_page.py" source "$tmp/diff.dom" "$b" "$a" &&
		printed diff "$tmp/diff.html" 1 5 compute-bound; then ok; else ko diff; fi
fi

echo "html pages: $pass passed, $fail failed"
[ "$fail" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0

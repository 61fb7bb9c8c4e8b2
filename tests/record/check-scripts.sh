#!/usr/bin/env bash
# Checks the trace-recording scripts in examples/record without a GPU or PyTorch: they byte-compile, record-all.sh
# parses, every workload script records through common.record() (which turns on record_shapes and with_flops and
# calls prof.step() each step), and --help works without torch installed.
# Run from the repository root (CTest does). Exits 77 (skipped) when python3 is missing.
set -u
dir=examples/record
fail=0
checks=0

if ! command -v python3 >/dev/null; then
	echo "skipped: python3 not found"
	exit 77
fi
[ -d "$dir" ] || {
	echo "FAIL: $dir not found (run from the repository root)"
	exit 1
}

# The interpreter itself, not a version-manager shim that costs a second per start.
py=$(python3 -c 'import sys; print(sys.executable)') || {
	echo "FAIL: python3 does not run"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Keeps byte-code out of the source tree.
export PYTHONPYCACHEPREFIX=$tmp/pycache

check() { # check NAME COMMAND...: runs one check, reports it
	local name=$1
	shift
	checks=$((checks + 1))
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok: $name"
	else
		fail=$((fail + 1))
		echo "FAIL: $name"
		sed 's/^/    /' "$tmp/out" | head -n 20
	fi
}

# Fails when file $1 does not contain the fixed string $2.
has() { grep -qF -- "$2" "$1" || { echo "$1: no '$2'"; return 1; }; }
lacks() { ! grep -qF -- "$2" "$1" || { echo "$1: has '$2'"; return 1; }; }

# The common module itself must set the profiler up as the README says.
common_setup() {
	local f=$dir/common.py
	has "$f" "record_shapes=True" && has "$f" "with_flops=True" && has "$f" "prof.step()" &&
		has "$f" "ProfilerActivity.CUDA" && has "$f" "torch.profiler.schedule(wait=WAIT_STEPS, warmup=WARMUP_STEPS" &&
		has "$f" "export_chrome_trace" && has "$f" "gzip.open" && has "$f" ".pt.trace.json.gz"
}

# A workload script records through common.record() and builds no profiler of its own; torch comes only
# through common (so --help works without it), never from a top-level import.
uses_common() {
	local f=$1
	has "$f" "import common" && has "$f" "common.record(" && lacks "$f" "torch.profiler.profile(" || return 1
	if grep -qE '^(import torch|from torch)' "$f"; then
		echo "$f: imports torch at top level"
		return 1
	fi
}

# A stand-in 'torch' that fails on import: the checks below then hold even where torch is installed.
mkdir -p "$tmp/notorch/torch"
echo 'raise ImportError("this test hides torch")' >"$tmp/notorch/torch/__init__.py"

help_without_torch() {
	PYTHONPATH=$tmp/notorch "$py" "$1" --help | grep -q -- "--active"
}

no_torch_message() {
	# Without torch, a real run stops with a clear message and a failing status, not a traceback.
	local out code
	out=$(PYTHONPATH=$tmp/notorch "$py" "$1" 2>&1)
	code=$?
	[ "$code" -ne 0 ] && echo "$out" | grep -q "PyTorch is not installed" && ! echo "$out" | grep -q Traceback ||
		{ echo "status $code, output: $out"; return 1; }
}

py_files=("$dir"/*.py)
workloads=()
for f in "${py_files[@]}"; do
	check "py_compile $f" "$py" -m py_compile "$f"
	case $f in */common.py) ;; *) workloads+=("$f") ;; esac
done
[ "${#workloads[@]}" -ge 4 ] || {
	echo "FAIL: expected at least 4 workload scripts in $dir, found ${#workloads[@]}"
	fail=$((fail + 1))
}
check "bash -n record-all.sh" bash -n "$dir/record-all.sh"
check "record-all.sh is executable" test -x "$dir/record-all.sh"
check "common.py sets record_shapes, with_flops, prof.step()" common_setup
for f in "${workloads[@]}"; do
	check "$f records through common.record()" uses_common "$f"
	check "$f --help works without torch" help_without_torch "$f"
	check "$f without torch says so" no_torch_message "$f"
	check "record-all.sh runs $(basename "$f")" has "$dir/record-all.sh" "$(basename "$f")"
done

echo "$((checks - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]

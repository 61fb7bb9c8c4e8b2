#!/usr/bin/env bash
# The nsys reader against the split's hand-worked fixtures: each tests/data/trace_NAME.json is rewritten as an
# Nsight Systems export by tests/nsys/kineto2nsys.py and its report must hold every number of
# trace_NAME.expect.json, worked out by hand for the Kineto trace: one verdict engine, two formats. Fixtures
# whose point an export cannot carry are listed with the reason, not silently left out. Also the committed
# fixture tests/data/nsys/trace_buckets.sqlite (made by the converter: tests/data/nsys/README.md) is read
# without python3. Needs python3 (its sqlite3 module), not ../shared.
# Run from the repository root: fixtures.sh NEXTSTEP_BINARY
set -u
bin=$1
here=$(dirname "$0")
check="python3 $here/../trace/check_split.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass=0
checked=()

# name | why an export cannot hold what the fixture tests
not_in_an_export=(
	"trace_gpu_profiler_step|ProfilerStep# on the GPU timeline: nsys projects NVTX onto the GPU only in its viewer"
	"trace_mtia|MTIA device categories: Nsight Systems records NVIDIA GPUs"
	"trace_xpu|Intel XPU runtime categories: Nsight Systems records NVIDIA GPUs"
	"trace_unknown_device|a device category nextstep does not know: an export has only CUDA activity tables"
	"trace_python_frames|python_function frames: not in an export"
	"trace_quality_profiler|with_stack/record_shapes cost: Python frames and op shapes are not in an export"
	"trace_quality_missing_ops|External ids of ops: not in an export"
	"trace_quality_out_of_order|an E before its B: an NVTX range always ends after it starts"
	"trace_quality_cut_short|GPU work past the profiler's own span: an export has no such span"
	"trace_memory_deltas|the allocator's [memory] events (profile_memory): nsys records allocations only with --cuda-memory-usage, in a table the reader does not read"
	"trace_memory_events|the allocator's [memory] events (profile_memory): as above"
	"trace_launch_batch|a larger batch from the allocator's [memory] events (profile_memory): as above"
	"trace_mtia_launch|MTIA device categories: Nsight Systems records NVIDIA GPUs"
	"trace_xpu_sync|Intel XPU runtime categories: Nsight Systems records NVIDIA GPUs"
	"trace_python_native|python_function frames: not in an export"
	"trace_python_preprocess|python_function frames: not in an export"
	"trace_quality_profiler_capped|with_stack/record_shapes cost: Python frames and op shapes are not in an export"
	"trace_tp_train_desc|the NCCL kernels' collective args (\"Process Group Description\"): an export's kernels carry their names only (its place-based twin trace_tp_train_forward is checked)"
	"trace_shape_gemm|op shapes (record_shapes' Input Dims): an export's ops carry their names only, so no GEMM is placed by its shapes"
	"trace_fp8_gemms|op shapes (record_shapes' Input Dims): an export's ops carry their names only, so no GEMM is placed on the roofline and no fp8 bound is made"
	"trace_fp8_gemms_train|as trace_fp8_gemms: no op shapes in an export"
	"trace_compute_at_roof|as trace_fp8_gemms: no op shapes in an export, so nothing is placed near its roof"
	"trace_sliver|its 1.33 ms of host work is one op named without a namespace (CompiledFunction), which an NVTX range without emit_nvtx's fields reads as an annotation: the export's host activity is its 5 us driver call"
)

skip_reason() {
	for s in "${not_in_an_export[@]}"; do
		[ "${s%%|*}" = "$1" ] && { echo "${s#*|}"; return 0; }
	done
	return 1
}

# The exports are written in one Python process, then read, then checked in one (check_split.py batch): a
# Python start costs about what a small conversion or check does.
: >"$tmp/pairs"
: >"$tmp/checks"
names=()
for expect in tests/data/trace_*.expect.json; do
	trace=${expect%.expect.json}.json
	name=$(basename "$trace" .json)
	if why=$(skip_reason "$name"); then
		echo "not in an export: $name ($why)"
		continue
	fi
	names+=("$name")
	printf '%s\t%s\n' "$trace" "$tmp/$name.sqlite" >>"$tmp/pairs"
done
python3 "$here/kineto2nsys.py" --batch <"$tmp/pairs" >"$tmp/conv" 2>"$tmp/conv.log"
# the last line counts the conversions: one that stopped early fails every fixture it did not convert
grep -qx "converted ${#names[@]}" "$tmp/conv" || echo "kineto2nsys --batch: $(tail -3 "$tmp/conv.log")"
for name in "${names[@]}"; do
	if grep -q "^$tmp/$name.sqlite	" "$tmp/conv"; then
		echo "FAIL $name: kineto2nsys: $(grep "^$tmp/$name.sqlite	" "$tmp/conv" | cut -f 2-)"
		fail=$((fail + 1))
		continue
	fi
	if [ ! -s "$tmp/$name.sqlite" ]; then
		echo "FAIL $name: kineto2nsys wrote no export"
		fail=$((fail + 1))
		continue
	fi
	if ! "$bin" trace --format json --steps "$tmp/$name.sqlite" >"$tmp/$name.json" 2>"$tmp/err"; then
		echo "FAIL $name: nextstep exited $?: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	printf '%s\tsanity\t%s\n' "$name" "$tmp/$name.json" >>"$tmp/checks"
	printf '%s\texpect\t%s\t%s\n' "$name" "$tmp/$name.json" "tests/data/$name.expect.json" >>"$tmp/checks"
	checked+=("$name")
done
python3 "$here/../trace/check_split.py" batch <"$tmp/checks" >"$tmp/bad"
# the batch's last line counts the checks it ran: one that stopped early fails every fixture, not none
if ! grep -qx "checked $(wc -l <"$tmp/checks")" "$tmp/bad"; then
	echo "FAIL: check_split.py batch did not run every check"
	fail=$((fail + 1))
fi
for name in "${checked[@]}"; do
	if grep -q "^$name	" "$tmp/bad"; then
		grep "^$name	" "$tmp/bad" | cut -f 2-
		echo "FAIL $name (the export of the fixture)"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done

# The committed export: the same numbers, no python3 needed to make it.
if "$bin" trace --format json --steps tests/data/nsys/trace_buckets.sqlite >"$tmp/committed.json" 2>"$tmp/err" &&
	$check expect "$tmp/committed.json" tests/data/trace_buckets.expect.json; then
	pass=$((pass + 1))
else
	echo "FAIL tests/data/nsys/trace_buckets.sqlite: $(cat "$tmp/err")"
	fail=$((fail + 1))
fi

echo "nsys fixtures: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]

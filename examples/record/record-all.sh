#!/usr/bin/env bash
# Records every workload in this folder with small step counts and writes the gzipped traces plus a MANIFEST
# (GPU, driver, PyTorch, CUDA, workload, expected regime per file) into one folder, ready to be copied into
# tests/data/real/. A few minutes on one H100/H200.
#
# Usage: examples/record/record-all.sh [OUT_DIR]      (default: ./recorded-<UTC date and time>)
# Environment: PYTHON (default python3), ACTIVE (recorded steps per trace, default 3),
#              COMM=0 to skip the two-process comm workload.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-recorded-$(date -u +%Y%m%dT%H%M%SZ)}
python=${PYTHON:-python3}
active=${ACTIVE:-3}
comm=${COMM:-1}

die() {
	echo "record-all: $*" >&2
	exit 1
}

command -v nvidia-smi >/dev/null || die "nvidia-smi not found: these traces must be recorded on an NVIDIA GPU"
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
	die "$python cannot use CUDA through PyTorch (see examples/record/README.md)"

mkdir -p "$out/logs"
manifest=$out/MANIFEST
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader | head -n 1; }
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
{
	echo "# nextstep labelled traces: one line per file below the header (tab-separated)."
	echo "# expect is the verdict word nextstep should print; 'not X' means any verdict but X."
	echo "recorded	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "gpu	$(smi name)"
	echo "gpus	$gpus"
	echo "driver	$(smi driver_version)"
	echo "torch	$("$python" -c 'import torch; print(torch.__version__)')"
	echo "cuda	$("$python" -c 'import torch; print(torch.version.cuda)')"
	echo "python	$("$python" -c 'import platform; print(platform.python_version())')"
	echo "active_steps	$active"
	echo
	echo "file	workload	expect	command"
} >"$manifest"

# record WORKLOAD EXPECT SCRIPT [ARGS...]: runs one script, moves its trace(s) into $out, adds MANIFEST lines.
record() {
	local workload=$1 expect=$2 script=$3
	shift 3
	local log=$out/logs/$workload.log
	echo "== $workload (expect: $expect)"
	# One workload that fails (a PyTorch release without an API, a machine without shared memory for
	# workers) must not cost the recordings of the others: it is noted in the MANIFEST and the run goes on.
	if ! "$python" "$here/$script" --out "$out" --active "$active" "$@" 2>&1 | tee "$log"; then
		echo "# not recorded: $workload ($script${*:+ $*} failed; see logs/$workload.log)" >>"$manifest"
		echo "record-all: $script failed (log: $log); going on with the others" >&2
		failed=$((failed + 1))
		return 0
	fi
	local n=0 path
	while read -r path; do
		[ -f "$path" ] || die "$script reported $path but it is not there"
		printf '%s\t%s\t%s\t%s\n' "$(basename "$path")" "$workload" "$expect" "$script${*:+ $*}" >>"$manifest"
		n=$((n + 1))
	done < <(sed -n 's/^trace: \([^ ]*\.pt\.trace\.json\.gz\)$/\1/p' "$log")
	if [ "$n" -eq 0 ]; then
		echo "# not recorded: $workload ($script wrote no trace; see logs/$workload.log)" >>"$manifest"
		failed=$((failed + 1))
	fi
}
failed=0

record compute_bound "compute-bound" compute_bound.py
record compute_fp32 "compute-bound" compute_bound.py --dtype float32
record memory_bound "memory-bound" memory_bound.py
record memory_fixed "memory-bound" memory_bound.py --fixed
record transfer_bound "memory-bound" transfer_bound.py
record overhead_bound "overhead-bound" overhead_bound.py
record overhead_fixed "not overhead-bound" overhead_bound.py --fixed
record decode_batch1 "memory-bound" decode_bound.py
record decode_cudnn_attention "overhead-bound" decode_bound.py --attention cudnn
record decode_small "overhead-bound" decode_bound.py --small
record dataloader_bound "dataloader-bound" dataloader_bound.py
record dataloader_fixed "not dataloader-bound" dataloader_bound.py --fixed
if [ "$comm" = 1 ]; then
	# NCCL needs a GPU per rank; on one GPU the script falls back to gloo, whose trace is not yet known to
	# classify as comm-bound, so it is labelled as unverified.
	if [ "$gpus" -ge 2 ]; then
		record comm_bound "comm-bound" comm_bound.py --world 2 --backend nccl
	else
		record comm_bound "unverified: comm-bound (gloo on one GPU)" comm_bound.py --world 2 --backend gloo
	fi
fi

echo
echo "traces and MANIFEST in $out:"
ls -l "$out"
echo "check each with: for f in $out/*.pt.trace.json.gz; do nextstep trace \"\$f\"; done"
if [ "$failed" -gt 0 ]; then
	echo "record-all: $failed workload(s) not recorded; see the '# not recorded' lines in $manifest" >&2
	exit 1
fi

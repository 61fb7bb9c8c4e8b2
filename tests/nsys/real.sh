#!/usr/bin/env bash
# The three real Nsight Systems exports in ../shared/traces/nsys/ (schemas 2.9.1, 3.16.1 and 3.24.14): each is
# read, its layout named, and the numbers below, worked out by hand from the exports' rows (sqlite3 queries in
# the comments), are what the report says. Skips (77) without ../shared.
# Run from the repository root: real.sh NEXTSTEP_BINARY
set -u
bin=$1
dir=../shared/traces/nsys
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$dir/fuser-matmul-h200.sqlite" "$dir/nsysai-mock-torch.sqlite" "$dir/pipit-saxpy-mpi.sqlite"

# get FILE.json PYTHON-EXPRESSION over d (the report): prints its value
get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
# expect NAME FILE.json EXPRESSION VALUE
expect() {
	local got
	got=$(get "$2" "$3" 2>&1)
	[ "$got" = "$4" ]
	t_check "$1" $? "$3 is $got, expected $4"
}

for f in fuser-matmul-h200 nsysai-mock-torch pipit-saxpy-mpi; do
	"$bin" trace --format json "$dir/$f.sqlite" >"$tmp/$f.json" 2>"$tmp/err"
	t_check "$f reads" $? "$(cat "$tmp/err")"
done

# nsys 2024.6 (schema 3.16.1), one H200, no steps: the window is the GPU work's span, from the first kernel
# (select min(start) from CUPTI_ACTIVITY_KIND_KERNEL: 770742793) to the last copy's end (1279020183):
# 508277.390 us. The host is in nvFuser's compiler (561 NVTX ranges named Class::method) and module loads
# (cuLibraryLoadData, 18 ms, set-up): GPU work is 0.08 % of the window.
j=$tmp/fuser-matmul-h200.json
expect "fuser: schema" "$j" 'd["export"]["schema"]' 3.16.1
expect "fuser: window" "$j" 'd["devices"][0]["overall"]["dur_us"]' 508277.39
expect "fuser: device name from TARGET_INFO_GPU" "$j" 'd["devices"][0]["name"]' "NVIDIA H200"
expect "fuser: host-bound" "$j" 'd["devices"][0]["overall"]["regime"]' overhead
expect "fuser: kernels (19 rows)" "$j" 'd["devices"][0]["overall"]["kernels"]' 19
expect "fuser: NVTX ranges read as ops" "$j" 'd["export"]["ops"]' 561

# nsys 2026.1 (schema 3.24.14), tables only where they have rows, no NVTX: two kernels, one copy. Window: the
# first kernel's start 1517727052 to the copy's end 1540180111 = 22453.059 us. Set-up: cudaHostAlloc
# 1535956590-1539525531 (3568.941 us) less the reduce kernel inside it (1535979030-1535981719, 2.689 us) =
# 3566.252 us. Launch: the second cudaLaunchKernel (1518030155-1535794161, 17764.006 us, the lazy load of its
# module) + cudaMemcpyAsync (1539568563-1540158067, 589.504 us) = 18353.510 us; the first launch ends before
# the window.
j=$tmp/nsysai-mock-torch.json
expect "nsysai: schema" "$j" 'd["export"]["schema"]' 3.24.14
expect "nsysai: window" "$j" 'd["devices"][0]["overall"]["dur_us"]' 22453.059
expect "nsysai: init is cudaHostAlloc's idle time" "$j" \
	'[c["us"] for c in d["devices"][0]["overall"]["causes"] if c["cause"] == "init"][0]' 3566.252
expect "nsysai: launch" "$j" \
	'[c["us"] for c in d["devices"][0]["overall"]["causes"] if c["cause"] == "launch"][0]' 18353.51
expect "nsysai: the device named per CUDA device (TARGET_INFO_CUDA_DEVICE)" "$j" 'd["devices"][0]["name"]' \
	"NVIDIA GeForce RTX 3080"

# nsys 2022.2 (schema 2.9.1): every runtime call twice under one correlation id (eventClass 67 is the
# backtrace's copy, skipped), so each launch links once and nothing is unlinked or duplicated. MPI rank 0 from
# the thread's NVTX name "MPI Rank 0"; MPI_Send/MPI_Recv ranges are communication on the host. Five saxpy
# kernels, one per iteration, give the steps (period); the copies are 262144000-byte pageable transfers.
j=$tmp/pipit-saxpy-mpi.json
expect "pipit: schema" "$j" 'd["export"]["schema"]' 2.9.1
expect "pipit: rank from the MPI thread name" "$j" 'd["devices"][0]["rank"]' 0
expect "pipit: quality (no unlinked or duplicated launches)" "$j" 'd["quality"]["grade"]' good
expect "pipit: steps from the kernel sequence" "$j" 'd["step_source"]' period
expect "pipit: MPI on the host" "$j" 'd["devices"][0]["overall"]["buckets_us"]["comm"] > 0' True
expect "pipit: verdict" "$j" 'd["devices"][0]["overall"]["regime"]' idle

# The text report says what an export lacks, and never asks for with_stack=True alone.
"$bin" trace -v "$dir/nsysai-mock-torch.sqlite" >"$tmp/v.txt" 2>&1
grep -q '^export: Nsight Systems (schema 3.24.14), program .*/python: Python (its process name); no Python frames' "$tmp/v.txt"
t_check "nsysai -v: the export line" $? "$(head -3 "$tmp/v.txt")"
# Its one 6 us kernel in 236 ms of host activity is a sliver (little_device_work, issue 25): no verdict, so no
# hint about the host causes either; nothing asks for with_stack=True, which an export cannot give.
grep -q '^  little_device_work: ' "$tmp/v.txt" && ! grep -q 'with_stack=True' "$tmp/v.txt"
t_check "nsysai -v: a sliver of device work, no with_stack advice" $? "$(grep -e little_device -e with_stack "$tmp/v.txt")"

# What each export says of its program, from its own tables. pipit: the GPU's process (globalPid >> 24 &
# 0xFFFFFF of the kernels: 1230493) is "./saxpy-mpi-cuda" in PROCESSES, no NVTX range of PyTorch; 5451
# COMPOSITE_EVENTS rows (CPU samples), OSRT_API empty, MPI_Send/MPI_Recv ranges. fuser: "./bin/test_matmul"
# (a C++ test), no COMPOSITE_EVENTS or OSRT_API table. nsysai: ".../.venv-gpu/bin/python", no samples.
j=$tmp/pipit-saxpy-mpi.json
expect "pipit: the program" "$j" 'd["export"]["program"]["process"]' ./saxpy-mpi-cuda
expect "pipit: not Python, by its process name" "$j" \
	'(d["export"]["program"]["python"], d["export"]["program"]["evidence"])' "(False, 'process_name')"
expect "pipit: CPU samples, no OS runtime calls, MPI" "$j" \
	'(d["export"]["cpu_samples"], d["export"]["os_runtime"], d["export"]["mpi"])' "(True, False, True)"
expect "fuser: not Python, by its process name" "$tmp/fuser-matmul-h200.json" \
	'(d["export"]["program"]["process"], d["export"]["program"]["python"], d["export"]["cpu_samples"])' \
	"('./bin/test_matmul', False, False)"
expect "nsysai: Python, by its process name" "$tmp/nsysai-mock-torch.json" \
	'(d["export"]["program"]["python"], d["export"]["program"]["evidence"])' "(True, 'process_name')"

# A program that is not Python is never told to record Python (with_stack, py-spy), use a DataLoader,
# torch.* or .item(), in the headline, the next steps or any step's route: pipit's idle host time is untraced
# host code, which its CPU samples show; its host communication is MPI's; its synchronize waits are CUDA
# calls. The sliver advice of fuser names nsys's capture range, not torch.profiler's schedule.
for f in pipit-saxpy-mpi fuser-matmul-h200; do
	"$bin" trace -v --steps "$dir/$f.sqlite" >"$tmp/$f.txt" 2>&1
	! grep -n -e with_stack -e py-spy -e DataLoader -e 'torch\.' -e 'on Python' -e '\.item()' "$tmp/$f.txt"
	t_check "$f: no Python advice" $? "$(grep -n -e with_stack -e py-spy -e DataLoader -e 'torch\.' -e 'on Python' -e '\.item()' "$tmp/$f.txt")"
done
grep -q 'synchronize waits, .* -> the host is blocked (cudaDeviceSynchronize' "$tmp/pipit-saxpy-mpi.txt"
t_check "pipit: synchronize waits worded as CUDA calls" $? "$(grep 'synchronize waits' "$tmp/pipit-saxpy-mpi.txt")"
# Its CPU samples name the code: of the 5451 samples (all of the step thread's), the innermost function is
# main in 2980 and std::abs(double) in 492, the next is cxip_cq_progress in 240 (select s.value, count(*) from
# SAMPLING_CALLCHAINS c join StringIds s on s.id = c.symbol where c.stackDepth = 0 group by 1 order by 2 desc):
# the host gap, half of each iteration, is main's own loop and std::abs.
grep -q '^rank 0 dev 0: idle (52%) -> the GPU waits on host code between CUDA calls that nsys does not trace; its CPU samples put it in main [0-9]* ms, std::abs(double) [0-9]* ms' "$tmp/pipit-saxpy-mpi.txt"
t_check "pipit: the headline names the sampled code" $? "$(grep -m1 -e '->' "$tmp/pipit-saxpy-mpi.txt")"
expect "pipit: CPU samples read" "$tmp/pipit-saxpy-mpi.json" 'd["export"]["cpu_samples_read"]' True
expect "pipit: the host gap's sampled code, JSON" "$tmp/pipit-saxpy-mpi.json" \
	'[f["frame"] for c in d["devices"][0]["overall"]["causes"] if c["cause"] == "host_gap" for f in c["cpu_samples"]][:2]' \
	"['main', 'std::abs(double)']"
grep -q 'host collectives, .* -> MPI calls hold the host' "$tmp/pipit-saxpy-mpi.txt"
t_check "pipit: host communication is MPI's" $? "$(grep 'host collectives' "$tmp/pipit-saxpy-mpi.txt")"
grep -q 'little_device_work: .*nsys profile --capture-range=cudaProfilerApi' "$tmp/fuser-matmul-h200.txt"
t_check "fuser: the sliver names nsys's capture range" $? "$(grep little_device "$tmp/fuser-matmul-h200.txt")"

t_finish "nsys real"

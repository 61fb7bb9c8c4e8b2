#!/bin/sh
# The generated traces the README's examples read, and how they were made: make-trace, the project's trace
# generator with exact ground truth (a developers' tool, not part of this repository). Each is gzipped without
# a name or time stamp (gzip -n), so the same generator writes the same files.
#   before.pt.trace.json.gz   one rank, 3 steps of a job that waits on its input pipeline (dataloader 35 %)
#   after.pt.trace.json.gz    the same trace after a perfect fix: the dataloader phase removed from every step,
#                             every other phase unchanged (make-trace --remove dataloader)
#   job/rank-N.pt.trace.json.gz   a 4-rank job, 3 steps, whose rank 2 computes 1.5x longer while the others wait
#                             in the all-reduce; each rank's clock is shifted by up to 300 us
# Usage: generate.sh MAKE_TRACE OUT_DIR
set -eu
make_trace=${1:?usage: generate.sh MAKE_TRACE OUT_DIR}
out=${2:?usage: generate.sh MAKE_TRACE OUT_DIR}
split=compute=0.35,memory=0.15,comm=0.05,dataloader=0.35,overhead=0.05,idle=0.05
mkdir -p "$out/job"
"$make_trace" --out "$out/before.pt.trace.json" --steps 3 --split "$split" --seed 1 >/dev/null
"$make_trace" --out "$out/after.pt.trace.json" --steps 3 --split "$split" --seed 1 --remove dataloader >/dev/null
"$make_trace" --out "$out/job" --ranks 4 --straggler 2 --clock-skew 300 --steps 3 >/dev/null
gzip -9 -n -f "$out"/*.json "$out"/job/*.json

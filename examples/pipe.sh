#!/usr/bin/env bash
# Using nextstep in a script: route each profile of a stream and act on the regime.
# Run from the repository root after building: bash examples/pipe.sh [path/to/nextstep]
set -eu
nextstep=${1:-build/nextstep}

# --quiet prints only the regime name, one line per profile, for `case`.
while read -r regime; do
	case $regime in
	compute | memory) echo "kernel work: open Module 4/5" ;;
	comm) echo "distributed: open Module 6/8" ;;
	dataloader | idle) echo "input pipeline or sync gap: open Module 3" ;;
	overhead) echo "launch overhead: try CUDA graphs or torch.compile" ;;
	esac
done < <("$nextstep" --quiet examples/lesson.ndjson)

# JSON output is a contract: one object per profile, here filtered with python3's json module.
"$nextstep" --format json examples/lesson.ndjson |
	python3 -c 'import json,sys
for line in sys.stdin:
    v = json.loads(line)
    print("%-8s %3.0f%%  margin %.2f  decided by %s" % (v["regime"], v["share"] * 100, v["margin"], v["decided_by"]))'

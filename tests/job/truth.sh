#!/usr/bin/env bash
# The job report against make-trace's multi-rank truth (issue 12): the straggler and its cause, and every rank's
# waiting time per step within 1 us, with and without clock skew, both category spellings, plain and gzip,
# 2 to 16 ranks. Each case goes one of three ways to the report: `nextstep trace --summary` piped into
# `nextstep job -`, `nextstep trace DIR` (the job report directly), or tests/job/summarize (the library's writer)
# and `nextstep job FILE`.
# Run from the repository root: truth.sh NEXTSTEP_BINARY SUMMARIZE_BINARY
set -u
bin=$1
summarize=$2
tools=../shared/tools
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
t_need_shared "$tools/make-trace"

# name | make-trace options | straggler | extension | way
cases=(
	"r2_new_plain|--ranks 2 --straggler 1 --style new --steps 3|1|json|lib"
	"r2_old_gzip_skew|--ranks 2 --straggler 0 --style old --steps 2 --clock-skew 3000 --seed 4|0|json.gz|summary"
	"r4_new_gzip_skew|--ranks 4 --straggler 2 --style new --steps 3 --clock-skew 5000 --seed 1|2|json.gz|direct"
	"r4_old_plain|--ranks 4 --straggler 3 --style old --steps 2 --seed 2|3|json|summary"
	"r8_new_plain_skew|--ranks 8 --straggler 5 --style new --steps 2 --clock-skew 20000 --seed 3|5|json|direct"
	"r16_old_gzip_skew|--ranks 16 --straggler 11 --style old --steps 2 --clock-skew 1000 --seed 5|11|json.gz|lib"
	"r16_new_plain|--ranks 16 --straggler 0 --style new --steps 1 --seed 6|0|json|summary"
)

report() { # way dir: the job report as JSON in dir/report.json
	case $1 in
	lib) "$summarize" "$2"/t/* >"$2/s.ndjson" && "$bin" job --format json "$2/s.ndjson" >"$2/report.json" ;;
	summary) "$bin" trace --summary "$2"/t/* | "$bin" job --format json - >"$2/report.json" ;;
	direct) "$bin" trace --format json "$2/t" >"$2/report.json" ;;
	esac
}

for c in "${cases[@]}"; do
	IFS='|' read -r name opts straggler ext way <<<"$c"
	dir=$tmp/$name
	mkdir -p "$dir/t" "$dir/truth"
	# shellcheck disable=SC2086
	if ! "$tools/make-trace" --out "$dir/t/job.$ext" --truth "$dir/truth/job.truth.json" $opts >/dev/null 2>"$dir/gen.err"; then
		echo "FAIL $name: make-trace: $(cat "$dir/gen.err")"
		fail=$((fail + 1))
		continue
	fi
	if ! (set -o pipefail && report "$way" "$dir") 2>"$dir/err"; then
		echo "FAIL $name: $(cat "$dir/err")"
		fail=$((fail + 1))
		continue
	fi
	if python3 "$here/check_job.py" "$dir/report.json" "$dir/truth" "$straggler" >"$dir/check" 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL $name: $(cat "$dir/check")"
		fail=$((fail + 1))
	fi
	rm -rf "$dir"
done

t_finish "job truth"

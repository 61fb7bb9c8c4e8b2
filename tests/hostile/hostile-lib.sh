# hostile-lib.sh: the harness of the hostile suites (sourced): check() runs one case under a CPU-time limit
# and (unless the build is sanitized: ASan reserves terabytes of address space) an address-space limit,
# asserting the exit status and a clear message or result. Set bin, sanitized and build_type before sourcing.
#
# The issues bound what the program costs (5 s, 200 MB), so time is limited as CPU time: a soft `ulimit -t`,
# past which the kernel stops the process with SIGXCPU (exit 152). Wall time is not the program's cost: a
# loaded machine stretches it, and under `timeout 5` cases failed whenever other builds shared the 2 cores. A
# wall-clock `timeout` stays, 60 s, only to stop a hang (a process blocked while using no CPU). ASan and UBSan
# make these inputs 2-3 times slower; a sanitized build gets SANITIZER_CPU_FACTOR (4) times each CPU limit. The
# bounds are for an optimised build: an unoptimised one (build_type Debug: -O0, 2-3 times slower on issue 9's
# million steps) gets DEBUG_CPU_FACTOR (3) times each limit too, and says so.
SANITIZER_CPU_FACTOR=4
DEBUG_CPU_FACTOR=3
HANG_GUARD_S=60
factor=1
[ "$sanitized" = ON ] && factor=$SANITIZER_CPU_FACTOR
case ${build_type:-RelWithDebInfo} in
Release | RelWithDebInfo | MinSizeRel) ;;
*)
	factor=$((factor * DEBUG_CPU_FACTOR))
	echo "note: a $build_type build is not optimised: every CPU limit is $DEBUG_CPU_FACTOR times the issue's bound"
	;;
esac
# cpu_limit S: S seconds of CPU, times the factor of the build (sanitizers, no optimisation).
cpu_limit() { echo $(($1 * factor)); }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# check NAME WANT_CODE WANT_TEXT CMD...: WANT_TEXT is a grep -E pattern over stdout+stderr. limit_kb=N before
# it sets a tighter memory limit for that case, cpu_s=N another CPU limit (default 5 s). A case that fails is run
# once more, and fails only if it fails again: the program's answers do not change from one run to the next, but
# its CPU time does on this VM, where a page fault costs 10 us on idle cores and 20-45 us while other work runs
# (a million steps' JSON took 3.1-3.6 s of its 5 s alone, and was stopped past 5 s in a suite run on 2026-12-05).
# The retry is said on a line of its own.
run_case() { # CMD...: sets got, output in $tmp/out
	local cpu
	cpu=$(cpu_limit "${cpu_s:-5}")
	if [ "$sanitized" = ON ]; then
		(ulimit -S -t "$cpu" && timeout "$HANG_GUARD_S" "$@") >"$tmp/out" 2>&1
	else
		(ulimit -S -t "$cpu" && ulimit -v "${limit_kb:-400000}" && timeout "$HANG_GUARD_S" "$@") >"$tmp/out" 2>&1
	fi
	got=$?
}
check() {
	local name=$1 code=$2 want=$3 got first
	shift 3
	run_case "$@"
	if [ "$got" -ne "$code" ] || ! grep -Eq -- "$want" "$tmp/out"; then
		first=$got
		run_case "$@"
		echo "note: $name: run again after exit $first (want $code): exit $got the second time"
	fi
	if [ "$got" -eq "$code" ] && grep -Eq -- "$want" "$tmp/out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: exit $got (want $code), output:"
		head -c 600 "$tmp/out"
		echo
	fi
}


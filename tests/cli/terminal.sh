#!/usr/bin/env bash
# What changes when output is a terminal (run under script(1)):
#  - colour: on a terminal unless NO_COLOR is set to something (NO_COLOR= empty keeps it), or --color=never;
#  - the progress line of trace reading: shown once reading has taken a second, on a terminal unless CI is
#    set, or anywhere with --progress; never with --no-progress or into a pipe or file. The trace arrives
#    through a pipe in two parts, the second 1.3 s after nextstep has read the first (slow_feed.py), so reading
#    takes longer than the one second however late nextstep starts.
# Usage: terminal.sh NEXTSTEP_BINARY
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
bin=$(t_binary "$1")
cd "$src" || exit 1
trace=tests/data/trace_two_devices.json
size=$(wc -c <"$trace")
command -v script >/dev/null || t_skip "script(1) not installed"
slow_trace() { python3 "$src/tests/cli/slow_feed.py" "$trace"; }
# Under script(1) only stderr (and stdout) are the terminal; the trace still comes through a pipe.
printf 'python3 %q %q\n' "$src/tests/cli/slow_feed.py" "$trace" >"$tmp/slow.sh"
on_tty() { script -qec "sh $tmp/slow.sh | $bin $*" /dev/null </dev/null >"$tmp/tty" 2>&1; }
check() { t_check "$@"; }

slow_trace | env -u CI "$bin" trace --progress -q - >"$tmp/out" 2>"$tmp/err"
grep -q "^nextstep: reading <stdin>: $size B, " "$tmp/err" && [ "$(cat "$tmp/out")" = "$(printf 'compute\ncomm')" ]
check forced_progress_goes_to_stderr $? "stderr: $(cat "$tmp/err")"

slow_trace | env -u CI "$bin" trace -q - >"$tmp/out" 2>"$tmp/err"
[ ! -s "$tmp/err" ]
check no_progress_when_stderr_is_not_a_terminal $? "stderr: $(cat "$tmp/err")"

(unset CI; on_tty trace -q -)
grep -q "nextstep: reading <stdin>: $size B, " "$tmp/tty"
check progress_on_a_terminal $? "terminal: $(tr -d '\r' <"$tmp/tty" | head -c 300)"

(export CI=true; on_tty trace -q -)
! grep -q "reading" "$tmp/tty"
check no_progress_in_ci $? "terminal: $(tr -d '\r' <"$tmp/tty" | head -c 300)"

(unset CI; on_tty trace --no-progress -q -)
! grep -q "reading" "$tmp/tty"
check no_progress_forced_off $? "terminal: $(tr -d '\r' <"$tmp/tty" | head -c 300)"

color_on_tty() { # NO_COLOR-SETTING OPTION...: runs the router on a terminal
	local setting=$1
	shift
	(if [ "$setting" = unset ]; then unset NO_COLOR; else export NO_COLOR=$setting; fi
	script -qec "$bin $* --compute 0.72" /dev/null </dev/null >"$tmp/tty" 2>&1)
}
bold=$(printf '\033[1;33mcompute-bound')
color_on_tty unset
grep -qF "$bold" "$tmp/tty"
check color_on_a_terminal $? "$(od -c "$tmp/tty" | head -2)"
color_on_tty ""
grep -qF "$bold" "$tmp/tty"
check empty_no_color_keeps_color $? "$(od -c "$tmp/tty" | head -2)"
color_on_tty 1
! grep -qF "$bold" "$tmp/tty" && grep -q '^compute-bound (72%)' "$tmp/tty"
check no_color_set_turns_it_off $? "$(od -c "$tmp/tty" | head -2)"
color_on_tty unset --color=never
! grep -qF "$bold" "$tmp/tty" && grep -q '^compute-bound (72%)' "$tmp/tty"
check color_never_on_a_terminal $? "$(od -c "$tmp/tty" | head -2)"

t_finish terminal

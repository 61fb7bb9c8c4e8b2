#!/usr/bin/env bash
# The bash completion in a plain bash without the bash-completion package: COMP_WORDS/COMP_CWORD set by hand,
# _nextstep called, COMPREPLY compared with what the built binary's --help and device table say.
# Usage: completion.sh NEXTSTEP_BINARY
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/files"
ln -s "$bin" "$tmp/bin/nextstep"
touch "$tmp/files/run1.json" "$tmp/files/run2.json.gz" "$tmp/files/notes.txt" "$tmp/files/export.sqlite"
pass=0 fail=0

complete_words() { # words... ; the last one is the word being completed
	(cd "$tmp" && PATH="$tmp/bin:/usr/bin:/bin" bash --norc --noprofile -c '
		complete -p _init_completion >/dev/null 2>&1 && echo "bash-completion is loaded" >&2
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_nextstep nextstep "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$src/completions/nextstep.bash" "$@")
}

check() { # name expected words...
	local name=$1 want=$2 got
	shift 2
	got=$(complete_words "$@")
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		printf 'FAIL: %s: nextstep %s\n  want: %s\n  got:  %s\n' "$name" "${*:2}" "$want" "$got"
	fi
}

# Expected values come from the binary's own help text and table, read here independently of the script.
modes=$("$bin" --help | sed -n 's/^ *\(usage: \)\{0,1\}nextstep \([a-z][a-z]*\)\( .*\)\{0,1\}$/\2/p' | sort | tr '\n' ' ')
# shellcheck disable=SC2086 # $modes is a list of words
check "subcommands and files at the first word" "$(printf '%s\n' bin files $modes | sort | tr '\n' ' ')" nextstep ""
check "a subcommand by prefix" "roofline " nextstep ro
check "the router's options" "--compute " nextstep --comp
check "trace options come from 'trace --help'" "--roofline " nextstep trace --roof
check "roofline options come from 'roofline --help'" "--matmul " nextstep roofline --matm
check "an option of one mode is not offered in another" "" nextstep devices --matm
check "file names after trace" "files/run1.json files/run2.json.gz " nextstep trace files/run
check "an Nsight Systems export after trace" "files/export.sqlite " nextstep trace files/ex
check "diff options come from 'diff --help'" "--fail-if-regime-changes --fail-if-slower " nextstep diff --fail
check "file names after diff" "files/run1.json files/run2.json.gz " nextstep diff files/run1.json files/run
check "file names after the router's options" "files/notes.txt " nextstep --label x files/no
check "file names after --playbook" "files/run1.json files/run2.json.gz " nextstep --playbook files/r
check "file names after any FILE option of --help (--kernel-rules-only)" "files/run1.json files/run2.json.gz " \
	nextstep trace --kernel-rules-only files/r
check "file names after --svg" "files/notes.txt " nextstep roofline --svg files/n
check "--force, from each mode's --help" "--force " nextstep trace --forc
check "--force for roofline too" "--force " nextstep roofline --forc
check "nothing after an option taking a number (--top N)" "" nextstep trace --top ""
check "nothing after -j N" "" nextstep trace -j ""
check "a directory after trace (DIR operand)" "files " nextstep trace fi
check "dtype names" "bf16 " nextstep roofline --dtype b
check "dtype names after --dtype=" "fp16 fp32 fp4 fp64 fp8 " nextstep roofline --dtype=f
check "formats" "json " nextstep trace --format j
check "budget options come from 'budget --help'" "--checkpointing " nextstep budget --check
check "KV-cache dtype names" "fp16 fp32 fp4 fp64 fp8 " nextstep budget --kv-dtype f
check "optimizer names" "adafactor adamw " nextstep budget --optimizer ada
check "MLP kinds" "gated " nextstep roofline --mlp g
check "nothing is guessed for budget's operand" "" nextstep budget --train ""
want=$("$bin" devices --format json | python3 -c 'import json,sys
names = sorted({a for d in json.load(sys.stdin)["devices"] for a in d.get("aliases", []) if " " not in a and a.startswith("a10")})
print(" ".join(names) + " ")')
check "device names from the device table" "$want" nextstep roofline --device a10
check "device names as devices' operand" "mi325x " nextstep devices mi32
check "nothing is guessed for a number" "" nextstep roofline --flops ""

echo "completion: $pass passed, $fail failed"
[ "$fail" = 0 ]

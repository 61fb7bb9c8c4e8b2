# bash completion for nextstep. Works with or without the bash-completion package: it uses only bash's own
# compgen/complete. Subcommands and each mode's options are read from `nextstep --help` and
# `nextstep MODE --help` when completing, so new options appear without editing this file; device names come
# from `nextstep devices --format json`.
# shellcheck disable=SC2207 # compgen prints one candidate a line; splitting it into COMPREPLY is the intent
# (IFS is a newline where names may hold spaces)

# The subcommands, from the usage lines of `nextstep --help` ("nextstep trace [options] FILE", ...).
_nextstep_modes()
{
	command nextstep --help 2>/dev/null | grep -oE '^ *(usage: )?nextstep [a-z]+' | awk '{print $NF}'
}

# The long options of a mode ("" for the router) as its --help lists them.
_nextstep_options()
{
	command nextstep ${1:+"$1"} --help 2>/dev/null | grep -oE -- '(^|[ ,[(|])--[a-z][a-z0-9-]*' |
		grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# Device aliases without spaces (the names a user types: h100, a100-pcie, mi300x, ...).
_nextstep_devices()
{
	command nextstep devices --format json 2>/dev/null | grep -oE '"aliases":\[[^]]*\]' |
		sed 's/^"aliases":\[//; s/\]$//' | tr ',' '\n' | sed 's/^"//; s/"$//' | grep -v ' '
}

# Options whose --help entry shows an argument ("--playbook FILE", "--top N"): the first word printed is
# the option, the second its argument's name.
_nextstep_option_args()
{
	command nextstep ${1:+"$1"} --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*[ =][A-Z][A-Z0-9,.|]*' |
		tr '=' ' ' | sort -u
}

_nextstep_files()
{
	compopt -o filenames 2>/dev/null
	local IFS=$'\n'
	COMPREPLY+=($(compgen -f -- "$1"))
}

_nextstep()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" mode=""
	local IFS=$' \t\n'
	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=value: complete the value of --opt (bash splits at '=' when COMP_WORDBREAKS holds it)
	if [[ $cur == --*=* ]]; then
		prev=${cur%%=*}
		cur=${cur#*=}
	elif [[ $cur == = ]]; then
		cur=""
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	if ((COMP_CWORD > 1)); then
		case " $(_nextstep_modes | tr '\n' ' ') " in
		*" ${COMP_WORDS[1]} "*) mode=${COMP_WORDS[1]} ;;
		esac
	fi

	case $prev in
	--format) COMPREPLY=($(compgen -W "text json" -- "$cur")) && return ;;
	--color) COMPREPLY=($(compgen -W "always never auto" -- "$cur")) && return ;;
	--min-quality) COMPREPLY=($(compgen -W "good degraded" -- "$cur")) && return ;;
	--dtype | --kv-dtype | --grad-dtype | --state-dtype)
		COMPREPLY=($(compgen -W "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4" -- "$cur")) && return
		;;
	--optimizer) COMPREPLY=($(compgen -W "adamw sgd adafactor" -- "$cur")) && return ;;
	--mlp) COMPREPLY=($(compgen -W "gated plain" -- "$cur")) && return ;;
	--device) COMPREPLY=($(compgen -W "$(_nextstep_devices)" -- "$cur")) && return ;;
	-j) return ;; # a number: nothing to guess
	--priority)
		COMPREPLY=($(compgen -W "compute,memory,comm,dataloader,overhead,idle" -- "$cur"))
		return
		;;
	esac
	# Any other option that takes an argument: a FILE gets file names; a number or a name gets nothing
	# rather than a guess.
	if [[ $prev == --* ]]; then
		local arg
		arg=$(_nextstep_option_args "$mode" | awk -v o="$prev" '$1 == o { print $2; exit }')
		[[ $arg == FILE ]] && _nextstep_files "$cur"
		[[ -n $arg ]] && return
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_nextstep_options "$mode")" -- "$cur"))
		return
	fi
	case $mode in
	roofline | scaling | budget) ;;
	devices) COMPREPLY=($(compgen -W "$(_nextstep_devices)" -- "$cur")) ;;
	trace) _nextstep_files "$cur" ;;
	*)
		((COMP_CWORD == 1)) && COMPREPLY=($(compgen -W "$(_nextstep_modes)" -- "$cur"))
		_nextstep_files "$cur"
		;;
	esac
}
complete -F _nextstep nextstep

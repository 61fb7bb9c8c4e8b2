# bash completion for nextstep
_nextstep()
{
	local cur prev words cword
	_init_completion || return
	local common="--priority --tie --high --moderate --playbook --format --explain --verbose --quiet --no-color"
	case $prev in
	--format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
	--playbook | --kernel-rules | --device-file | --svg) _filedir; return ;;
	--priority)
		COMPREPLY=($(compgen -W "compute,memory,comm,dataloader,overhead,idle" -- "$cur"))
		return
		;;
	--device)
		# the first alias of each device: short, lower-case, no spaces
		COMPREPLY=($(compgen -W "$(nextstep devices --format json 2>/dev/null |
			grep -oE '"aliases":\["[^"]*"' | sed 's/.*\["//; s/"$//')" -- "$cur"))
		return
		;;
	esac
	if [[ $cword -eq 1 && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "trace roofline scaling devices" -- "$cur"))
		_filedir
		return
	fi
	case ${words[1]} in
	trace) COMPREPLY=($(compgen -W "$common --steps --top --kernel-rules --roofline --device --dtype" -- "$cur")) ;;
	roofline)
		COMPREPLY=($(compgen -W "$common --flops --bytes --device --dtype --time --matmul --batch --elementwise
			--inputs --outputs --flops-per-element --decode --params --context --layers --kv-heads --head-dim --heads
			--svg --device-file --overhead-threshold --label" -- "$cur"))
		;;
	scaling) COMPREPLY=($(compgen -W "--time --time-2x --overhead-below --work-above --label --format" -- "$cur")) ;;
	devices) COMPREPLY=($(compgen -W "--device-file --format --verbose" -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -W "$common --compute --memory --comm --idle --dataloader --overhead --label
			--normalize --strict --help --version" -- "$cur"))
		[[ $cur != -* ]] && _filedir
		;;
	esac
}
complete -F _nextstep nextstep

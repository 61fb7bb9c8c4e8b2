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
		COMPREPLY=($(compgen -W "$(nextstep devices --names 2>/dev/null)" -- "$cur"))
		return
		;;
	esac
	if [[ $cword -eq 1 && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "trace roofline scaling devices" -- "$cur"))
		_filedir
		return
	fi
	case ${words[1]} in
	trace) COMPREPLY=($(compgen -W "$common --steps --kernel-rules --roofline" -- "$cur")) ;;
	roofline)
		COMPREPLY=($(compgen -W "$common --flops --bytes --device --dtype --time --matmul --batch --elementwise
			--inputs --outputs --decode --params --context --layers --kv-heads --head-dim --svg --device-file" -- "$cur"))
		;;
	scaling) COMPREPLY=($(compgen -W "--time --time-2x --format" -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -W "$common --compute --memory --comm --idle --dataloader --overhead --label
			--normalize --strict --help --version" -- "$cur"))
		[[ $cur != -* ]] && _filedir
		;;
	esac
}
complete -F _nextstep nextstep

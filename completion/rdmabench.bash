# bash completion for rdmabench: the eight benchmarks, rb_devices, rb_doctor,
# rb-testbed, rb-plot, rb-compare, rb-campaign, rb-regress, rb-heatmap, rb-wire, rb_mpi.  The options come
# from the program's own --help each time, so they never drift from the
# program (the benchmarks' --help comes from their option rows, src/cli/rows.c),
# and so do the values --help lists as A|B|C (-c, --clock); only the values
# of a few other options are known here.  Needs no
# bash-completion package (uses it when present).
#
# Installed once as .../bash-completion/completions/rdmabench, with a link
# per program name (_rdmabench_programs, at the end) for bash-completion's
# on-demand loading; or source it.

# The options of PROG's --help, one a line: "NAME KIND", KIND being flag,
# eq (--name=VALUE), opt (--name[=VALUE]) or word (the value may follow in
# the next word).  Heading lines look like "  -d, --ib-dev=DEV   text",
# "      --csv[=FILE]   text", "  --mode M   text", "  -o DIR, --output DIR".
_rdmabench_parse()
{
	"$1" --help 2>/dev/null | awk '
		/^ +-/ {
			h = $0; sub(/^ +/, "", h); sub(/  .*/, "", h)
			n = split(h, p, /, /); group = "flag"
			for (i = 1; i <= n; i++) {
				name[i] = p[i]; sub(/[=[ ].*/, "", name[i])
				if (p[i] ~ /^[^ =[]*\[=/) kind[i] = "opt"
				else if (p[i] ~ /^[^ =[]*=/) kind[i] = "eq"
				else if (p[i] ~ / /) kind[i] = "word"
				else kind[i] = "flag"
				if (kind[i] != "flag") group = kind[i]
			}
			for (i = 1; i <= n; i++) {
				k = kind[i]
				if (name[i] !~ /^--/ && (group == "eq" || group == "word")) k = "word"
				print name[i], k
			}
		}'
}

# What to offer for "-" or "--": "--ib-dev=", "--csv" and "--csv=", "-d".
_rdmabench_options()
{
	_rdmabench_parse "$1" | while read -r name kind; do
		case $kind in
		eq) printf '%s=\n' "$name" ;;
		opt) printf '%s\n%s=\n' "$name" "$name" ;;
		*) printf '%s\n' "$name" ;;
		esac
	done
}

# Does OPTION of PROG take its value in the next word?
_rdmabench_takes_value()
{
	_rdmabench_parse "$1" | grep -Eq -- "^${2//_/-} (eq|word)\$"
}

# The port counters of every device, as -W takes them: counters/NAME and
# hw_counters/NAME, one a line.
_rdmabench_counters()
{
	local f d
	for f in /sys/class/infiniband/*/ports/*/counters/* /sys/class/infiniband/*/ports/*/hw_counters/*; do
		[ -f "$f" ] || continue
		d=${f%/*}
		printf '%s/%s\n' "${d##*/}" "${f##*/}"
	done | sort -u
}

# The values OPTION takes, one a line; "@file" or "@dir" for a file name or
# a folder, "@counters" for -W's comma-separated list.  Long options in
# either spelling (--atomic-type, --atomic_type).
_rdmabench_values()
{
	local d
	case ${1//_/-} in
	-d | --ib-dev | --device)
		for d in /sys/class/infiniband/*; do
			[ -e "$d" ] && printf '%s\n' "${d##*/}"
		done
		;;
	-A | --atomic-type) printf '%s\n' FETCH_AND_ADD CMP_AND_SWAP ;;
	--load) printf '%s\n' send_bw write_bw read_bw ;;
	--y-scale) printf '%s\n' auto linear log ;;
	-m | --mtu) printf '%s\n' 256 512 1024 2048 4096 ;;
	--numa-node)
		for d in /sys/devices/system/node/node[0-9]*; do
			[ -e "$d" ] && printf '%s\n' "${d##*/node}"
		done
		;;
	--mode) printf '%s\n' auto vm host ;;
	--interface)
		for d in /sys/class/net/*; do
			[ -e "$d" ] && printf '%s\n' "${d##*/}"
		done
		;;
	--result) echo @file ;;
	-W | --report-counters) echo @counters ;;
	--csv | --json | -H | --histogram | --raw) echo @file ;;
	--share) echo @dir ;;
	esac
}

# The values PROG's --help lists for OPTION as A|B|C ("--connection=RC|UC"),
# one a line; -c's is a list even of one (rb_read_bw's "--connection=RC").
_rdmabench_listed_values()
{
	local one=0
	case ${2//_/-} in -c | --connection) one=1 ;; esac
	"$1" --help 2>/dev/null | awk -v o="${2//_/-}" -v one=$one '
		/^ +-/ {
			h = $0; sub(/^ +/, "", h); sub(/  .*/, "", h)
			n = split(h, p, /, /); named = 0; v = ""
			for (i = 1; i <= n; i++) {
				name = p[i]; sub(/[=[ ].*/, "", name)
				if (name == o) named = 1
				if (match(p[i], one ? "=[^ ]+" : "=[^ ]*[|][^ ]*")) v = substr(p[i], RSTART + 1, RLENGTH - 1)
			}
			if (named && v != "") { gsub(/[][]/, "", v); gsub(/[|]/, "\n", v); print v }
		}'
}

# COMPREPLY from the values of OPT that start with CUR, each with PREFIX
# (cmd: the program, from _rdmabench).
_rdmabench_complete_value()
{
	local opt=$1 cur=$2 prefix=$3 v
	v=$(_rdmabench_values "$opt")
	[ -n "$v" ] || v=$(_rdmabench_listed_values "$cmd" "$opt")
	case $v in
	@file) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); compopt -o filenames 2>/dev/null ;;
	@dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); compopt -o filenames 2>/dev/null ;;
	@counters)
		# the entry after the last comma; the ones before it stay
		[[ $cur == *,* ]] && prefix=$prefix${cur%,*}, && cur=${cur##*,}
		mapfile -t COMPREPLY < <(compgen -W "$(_rdmabench_counters)" -- "$cur")
		compopt -o nospace 2>/dev/null
		;;
	*) mapfile -t COMPREPLY < <(compgen -W "$v" -- "$cur") ;;
	esac
	[ -n "$prefix" ] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
	return 0
}

_rdmabench()
{
	local cmd=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev="" prev2="" i
	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	((COMP_CWORD > 1)) && prev2=${COMP_WORDS[COMP_CWORD - 2]}
	case $cmd in \~/*) cmd=$HOME/${cmd#\~/} ;; esac

	# rb-testbed ... -- CMD: complete the command
	for ((i = 1; i < COMP_CWORD; i++)); do
		[ "${COMP_WORDS[i]}" = -- ] || continue
		if declare -F _command_offset >/dev/null; then
			_command_offset $((i + 1))
		else
			compopt -o bashdefault -o default 2>/dev/null
		fi
		return 0
	done

	# --opt=VALUE: one word, or three when '=' breaks words (the default)
	case $cur in
	--*=*)
		_rdmabench_complete_value "${cur%%=*}" "${cur#*=}" "${cur%%=*}="
		return 0
		;;
	=)
		[[ $prev == --* ]] && _rdmabench_complete_value "$prev" "" ""
		return 0
		;;
	esac
	if [ "$prev" = "=" ] && [[ $prev2 == --* ]]; then
		_rdmabench_complete_value "$prev2" "$cur" ""
		return 0
	fi
	# -d VALUE, --ib-dev VALUE, --mode VALUE
	if [[ $prev == -* ]] && _rdmabench_takes_value "$cmd" "$prev"; then
		_rdmabench_complete_value "$prev" "$cur" ""
		return 0
	fi

	# rb-wire: its mode first, then the capture file
	if [ "${cmd##*/}" = rb-wire ] && [[ $cur != -* ]]; then
		if ((COMP_CWORD == 1)); then
			mapfile -t COMPREPLY < <(compgen -W "capture analyse" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			compopt -o filenames 2>/dev/null
		fi
		return 0
	fi

	case $cur in
	--*_*) # perftest's spelling asked for: offer every name in it
		mapfile -t COMPREPLY < <(compgen -W "$(_rdmabench_options "$cmd" | grep -- '^--' |
			sed 's/^--//; s/-/_/g; s/^/--/')" -- "$cur") ;;
	--*) mapfile -t COMPREPLY < <(compgen -W "$(_rdmabench_options "$cmd" | grep -- '^--')" -- "$cur") ;;
	-*) mapfile -t COMPREPLY < <(compgen -W "$(_rdmabench_options "$cmd")" -- "$cur") ;;
	esac
	# "--ib-dev=": let the value follow without a space
	[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
	return 0
}

# Every installed program; Makefile.am links each name to this file.
_rdmabench_programs="rb_send_bw rb_send_lat rb_write_bw rb_write_lat rb_read_bw rb_read_lat rb_atomic_bw rb_atomic_lat rb_devices rb_doctor rb-testbed rb-plot rb-compare rb-campaign rb-regress rb-heatmap rb-wire rb_mpi"
# shellcheck disable=SC2086
complete -F _rdmabench $_rdmabench_programs

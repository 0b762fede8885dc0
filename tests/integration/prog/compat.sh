# shellcheck shell=bash
# needs: one-guest lane
# The compatibility list: each real perftest command line of
# tests/integration/compat/lines.txt (its head says where each came from,
# the substitution and the checks) runs under rdmabench's name, server and
# client on $RB_DEV, and must either mean what perftest's options asked
# (the client's metadata and rows, tests/integration/compat/check.py) or be
# refused as documented (exit 2 on both sides, stderr naming the option).
# Every run is cut short (-D 1, a few iterations: scripts/dev/vsperftest/
# line.py), on the case's own port, so it may run beside the others.
# Sourced by run-all.sh (see lib.sh).

compat_list=$top_srcdir/tests/integration/compat/lines.txt
compat_line=$top_srcdir/scripts/dev/vsperftest/line.py
compat_check=$top_srcdir/tests/integration/compat/check.py

# compat_words TEXT VARS: TEXT's words, one a line, as bash expands them
# with VARS (NAME=VALUE ...; a numeric NAME is a positional parameter).
compat_words() {
	(
		local compat_t=$1 v pos=()
		for v in $2; do
			if [[ ${v%%=*} =~ ^[0-9]+$ ]]; then
				pos[${v%%=*}]=${v#*=}
			else
				eval "${v%%=*}=\${v#*=}"
			fi
		done
		set -- "${pos[@]}"
		eval "printf '%s\n' $compat_t"
	)
}

# compat_argv SIDE WORDS: the command (shell-quoted) of SIDE for WORDS
# (one a line), rewritten by line.py; it writes SIDE.json in the case folder
# (ours: --json) unless compat_stdout is set.
compat_argv() {
	local out argv=()
	out=$(python3 "$compat_line" --tool rdmabench --side "$1" --bin "$RB_BIN" --dev "$RB_DEV" \
		--gid "$RB_GID_INDEX" --port "${RB_PAIR_PORT:-18515}" --ip "$RB_IP" --dir "$RB_CASE_DIR" \
		-- "${@:2}") || return 1
	IFS=$'\n' read -r -d '' -a argv <<<"$out"
	printf 'cd %q && exec' "$RB_CASE_DIR"
	printf ' %q' "${argv[@]}"
	# the metadata, in a file, unless the checks read stdout (ours prints
	# one format: the table, perftest's --output number, or the JSON)
	[ -n "$compat_stdout" ] || printf ' %q' "--json=$RB_CASE_DIR/$1.json"
}

# compat_case N TEXT VARS EXPECT: run line N and check it.
compat_case() {
	local n=$1 text=$2 vars=$3 expect=$4 name words=() srv cli st why
	name="compat $n: $text${vars:+ ($vars)}"
	IFS=$'\n' read -r -d '' -a words <<<"$(compat_words "$text" "$vars")"
	rb_case_dir "$name"
	compat_stdout=
	[[ " $expect " != *" stdout"* ]] || compat_stdout=1
	if ! srv=$(compat_argv server "${words[@]}") || ! cli=$(compat_argv client "${words[@]}"); then
		tap_ok 1 "$name (line.py cannot read it)"
		return
	fi
	RB_PAIR_TIMEOUT=40 rb_pair "$name" "$srv" "$cli"
	# shellcheck disable=SC2086 # the checks are words
	why=$(python3 "$compat_check" "$RB_CASE_DIR" $expect)
	st=$?
	[ -z "$why" ] || tap_diag "$why"
	tap_ok "$st" "$name: $expect"
}

tap_plan "$(grep -c '^expect:' "$compat_list")"

compat_n=0 compat_text='' compat_vars=''
while IFS= read -r compat_l; do
	case $compat_l in
	line:*) compat_text=${compat_l#line: } compat_vars='' ;;
	vars:*) compat_vars=${compat_l#vars: } ;;
	expect:*)
		compat_n=$((compat_n + 1))
		compat_case "$compat_n" "$compat_text" "$compat_vars" "${compat_l#expect: }"
		;;
	esac
done <"$compat_list"

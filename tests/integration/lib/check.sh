# shellcheck shell=bash
# tests/integration/lib/check.sh, sourced by tests/integration/lib.sh (read
# its top first): rb_check, through one python3 for a run (run-all.sh
# starts it) or in one of its own, and rb_meta_lines.

# python3 for the checks: Debian's, not a pyenv shim found first in PATH
# (under emulation a shim takes ~30 s).
RB_PY=/usr/bin/python3
[ -x "$RB_PY" ] || RB_PY=python3

# rb_check_serve: one python3 for all the checks of this run
# (tests/integration/rb_check.py --serve, reading $RB_TMP/check.fifo), so
# that a check costs no python3 start (~0.45 s of CPU each under emulation);
# run-all.sh starts it and rb_check_stop ends it.  Without it rb_check
# starts a python3 of its own.
rb_check_serve() {
	[ -n "$RB_NAP_FD" ] && mkfifo "$RB_TMP/check.fifo" || return 0
	# held open (read-write: no wait for a reader) for the whole run: a
	# request written before the server opened it is kept, not dropped
	# with the last descriptor, and a gone server blocks no writer
	exec {RB_CHECK_FD}<>"$RB_TMP/check.fifo"
	"$RB_PY" -I -S "$top_srcdir/tests/integration/rb_check.py" --serve "$RB_TMP/check.fifo" \
		</dev/null >"$RB_TMP/check.log" 2>&1 &
	RB_CHECK_PID=$! RB_CHECK_FIFO=$RB_TMP/check.fifo
}

rb_check_stop() {
	[ -n "${RB_CHECK_PID:-}" ] && kill "$RB_CHECK_PID" 2>/dev/null
	[ -n "${RB_CHECK_FD:-}" ] && exec {RB_CHECK_FD}>&-
	RB_CHECK_PID="" RB_CHECK_FIFO="" RB_CHECK_FD=""
}

# rb_env_of ARG...: into the array env, for each variable that the checks
# ARG name as E["NAME"] (or E['NAME']): NAME=VALUE when this shell exports
# it, else NAME (not in its environment): the part of it they read.
rb_env_of() {
	local s=$* name
	env=()
	while [[ $s =~ E\[[\"\']([A-Za-z_][A-Za-z0-9_]*)[\"\']\] ]]; do
		name=${BASH_REMATCH[1]}
		s=${s#*"${BASH_REMATCH[0]}"}
		if [[ ${!name@a} == *x* ]]; then env+=("$name=${!name}"); else env+=("$name"); fi
	done
}

# rb_check_ask ARG...: the check through the server; its status, its
# output printed.  Status 125: no answer within RB_CHECK_WAIT_S (default
# 120) seconds.  The request: this folder, the count of NAME=VALUE
# entries of the caller's environment that follow (rb_env_of), the ARGs.
rb_check_ask() {
	local req st i ms env
	RB_CHECK_N=$((${RB_CHECK_N:-0} + 1))
	req=$RB_TMP/check.$BASHPID.$RB_CHECK_N
	rb_env_of "$@"
	printf '%s\0' "$PWD" "${#env[@]}" "${env[@]}" "$@" >"$req" || return 125
	echo "$req" >&"$RB_CHECK_FD"
	# looked for after 5, 10, 20 ms, then every 40 ms
	for ((i = 0, ms = 5; i < ${RB_CHECK_WAIT_S:-120} * 1000; i += ms)); do
		[ -e "$req.done" ] && break
		rb_nap_ms "$ms"
		((ms < 40)) && ms=$((ms * 2))
	done
	[ -e "$req.done" ] || return 125
	{
		read -r st
		rb_lines
	} <"$req.done"
	[ -e "$req.err" ] && rb_lines <"$req.err" >&2
	return "$st"
}

# rb_lines: stdin's lines to stdout, the last one even without its newline
# (cat without a process).
rb_lines() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line"; done
}

# rb_py ARG...: the python3 program on stdin (a here-document), run with
# ARGs as `python3 - ARG...` would (its stdout, stderr, status), by the
# check server: no python3 start, ~0.45 s of CPU each in the test bed.
# Without the server (or no answer), by a python3 of its own.  For
# programs that read neither stdin nor the environment.
rb_py() {
	local code f st
	IFS= read -r -d '' code || :
	if [ -n "${RB_CHECK_FIFO:-}" ]; then
		RB_PY_N=$((${RB_PY_N:-0} + 1))
		f=$RB_TMP/py.$BASHPID.$RB_PY_N.py
		st=125
		printf '%s' "$code" >"$f" && { rb_check_ask --py "$f" "$@"; st=$?; }
		[ "$st" = 125 ] || return "$st"
	fi
	printf '%s' "$code" | "$RB_PY" - "$@"
}

rb_check() {
	local st
	if [ -n "${RB_CHECK_FIFO:-}" ]; then
		rb_check_ask "$@"
		st=$?
		[ "$st" = 125 ] || return "$st"
		tap_diag "rb_check: no answer from the check server (pid $RB_CHECK_PID) in ${RB_CHECK_WAIT_S:-120} s: checked in a python3 of its own"
	fi
	"$RB_PY" -I -S "$top_srcdir/tests/integration/rb_check.py" "$@"
}

# rb_meta_lines FILE.csv: its metadata as the "# KEY=VALUE" lines of the
# earlier CSV format, from the sidecar FILE.meta.json (or FILE's own "#"
# lines, an earlier file), for the case files that grep them.
rb_meta_lines() {
	rb_check --meta-lines "$1" 2>/dev/null
}

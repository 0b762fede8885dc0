# shellcheck shell=bash
# tests/integration/lib.sh: what an integration case file (t_NN_name.sh) uses.
# This file: the TAP lines, the waits, rb_pair and the small readers; it
# sources lib/run.sh, lib/check.sh and lib/jobs.sh (their list is at the top
# of lib/run.sh).
#
# run-all.sh sources this, then sources each t_*.sh in a subshell.  A case
# file calls tap_ok once per case; it must not exit by itself.  Before its
# first case (only definitions above it) it declares how many it reports:
#
#   tap_plan N                this file reports N cases, skips included (an
#                             expression of its case list: loops multiply).
#                             run-all.sh reads every file's plan first (the
#                             file sourced up to tap_plan, which ends it
#                             there) and prints the run's plan, "1..TOTAL",
#                             before any case runs; a file that reports
#                             fewer gets a "not ok" for each missing case,
#                             one that reports more fails the run (and its
#                             extra lines exceed the plan).  So a check that
#                             vanishes (a crashed checker, an early return)
#                             is a failure, never a shorter pass.
#   tap_mark / tap_expect N WHAT [RC]
#                             the cases reported since tap_mark must be N:
#                             each one missing is a "not ok" naming WHAT
#                             (RC: the checker's exit status, said with it);
#                             more than N, or RC not 0 with all N there, one
#                             "not ok" more.  For a group whose lines come
#                             from a checker's output (e.g. a python3 that
#                             prints "ok WHAT"/"FAIL WHAT" lines).
#   tap_checks N WHAT RC FILE  a checker's FILE of "ok: TEXT" / "not ok:
#                             TEXT" lines (and "# " notes) reported, then
#                             tap_expect N WHAT RC.
#
#   tap_ok STATUS NAME        one TAP line: "ok N - NAME" when STATUS is 0,
#                             else "not ok N - NAME" plus, as "# " comments,
#                             the tail of the last rb_pair's files.  Returns 0.
#   tap_skip NAME REASON      "ok N - NAME # SKIP REASON" (a SKIP, never a
#                             pass); under CI=true a failure instead,
#                             "not ok N - NAME: skipped under CI=true
#                             (REASON)": CI provides everything the cases
#                             need (the test bed, the delay and faults
#                             builds, rb_mpi, Slurm, gnuplot, valgrind...).
#   tap_skip_machine NAME REASON
#                             a SKIP under CI=true too: only for what the
#                             machine is, not what CI installs or builds
#                             (its architecture, KVM or not, a host too
#                             loaded for a timing premise); each use says
#                             why it is one.
#   tap_diag TEXT...          a "# " comment line (stdout, TAP-safe)
#   rb_pair NAME 'SERVER' 'CLIENT'
#                             runs SERVER (bash -c) in the background, waits
#                             for it to listen (RB_PAIR_PORT, default 18515 as
#                             perftest and rb_* use; 10 s at most; "" = sleep
#                             1 s), then CLIENT; each under `timeout
#                             $RB_PAIR_TIMEOUT` (default 120 s), so it never
#                             hangs.  Leaves in $RB_CASE_DIR (a fresh folder):
#                             server.out server.err server.rc client.out
#                             client.err client.rc.  Returns 0 when both
#                             exited 0.
#   csv_col FILE COLUMN       the values of COLUMN (a header name or a 1-based
#                             number) of a CSV whose '#' lines are comments
#                             and whose first other line is the header.
#   json_get FILE EXPR        prints the Python expression EXPR over d, the
#                             JSON document in FILE (or the list of its
#                             objects when FILE is JSON lines), e.g.
#                             json_get f.json 'd["results"][0]["bw_avg"]'.
#   num_gt A B                true when the number A > B (floats allowed).
#
# Environment: RB_DEV, RB_GID_INDEX, RB_IP (from the test bed; RB_PEER in
# two-guest mode; on an RDMA host without RB_DEV: the first device and its
# first IPv4-mapped RoCE v2 GID), RB_BIN (the built programs: $top_builddir), RB_TMP (a
# scratch folder removed at the end), top_srcdir and top_builddir.

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"

# Outside the test bed (an RDMA host, RB_DEV unset): the first device, and
# its first IPv4-mapped RoCE v2 GID for RB_GID_INDEX and RB_IP.
rb_guess_device() {
	local d g gid type h
	for d in /sys/class/infiniband/*; do [ -e "$d" ] && break; done
	[ -e "$d" ] || return 0
	: "${RB_DEV:=${d##*/}}"
	[ -n "${RB_GID_INDEX:-}" ] && return 0
	for g in /sys/class/infiniband/$RB_DEV/ports/1/gids/*; do
		read -r gid <"$g" 2>/dev/null || continue
		read -r type <"${g%/gids/*}/gid_attrs/types/${g##*/}" 2>/dev/null || continue
		[[ $gid == 0000:0000:0000:0000:0000:ffff:* && $type == "RoCE v2" ]] || continue
		RB_GID_INDEX=${g##*/}
		h=${gid//:/}; h=${h: -8}
		: "${RB_IP:=$((16#${h:0:2})).$((16#${h:2:2})).$((16#${h:4:2})).$((16#${h:6:2}))}"
		return 0
	done
}
[ -n "${RB_DEV:-}" ] || rb_guess_device
: "${RB_DEV:=rxe0}" "${RB_GID_INDEX:=1}" "${RB_IP:=192.0.2.1}"
: "${RB_PAIR_TIMEOUT:=120}" "${RB_PAIR_PORT=18515}"
RB_BIN=$top_builddir
export top_srcdir top_builddir RB_DEV RB_GID_INDEX RB_IP RB_BIN
if [ -z "${RB_TMP:-}" ]; then
	RB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rb-it.XXXXXX")
	export RB_TMP
fi
RB_CASE_DIR=""

# rb_nap SECONDS: sleep without starting a process (a read that times out on
# a FIFO no one writes to; sleep(1) where there is none): the wait loops
# poll often, and a process start costs ~50 ms of CPU under emulation.
RB_NAP_FD=""
mkfifo "$RB_TMP/nap.fifo" 2>/dev/null && exec {RB_NAP_FD}<>"$RB_TMP/nap.fifo"
rb_nap() {
	if [ -n "$RB_NAP_FD" ]; then
		read -r -t "$1" -u "$RB_NAP_FD" _
		return 0
	fi
	sleep "$1"
}

# rb_nap_ms MS: rb_nap for MS (1..999) milliseconds.
rb_nap_ms() {
	local t
	printf -v t '0.%03d' "$1"
	rb_nap "$t"
}

# rb_listening PORT: true when a TCP socket listens on PORT (/proc/net/tcp
# and tcp6, read by the shell: no process started).
rb_listening() {
	local hex f l st
	printf -v hex ':%04X' "$1"
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		while read -r _ l _ st _; do
			[[ $st == 0A && $l == *"$hex" ]] && return 0
		done <"$f"
	done
	return 1
}

# The TAP counter lives in a file so that case files can run in subshells.
# tap_bump: the next number, in TAP_N.  No process: under emulation each
# fork and exec costs 10-20 ms, and a boot prints hundreds of TAP lines.
tap_bump() {
	TAP_N=0
	[ -r "$RB_TMP/tap.n" ] && read -r TAP_N <"$RB_TMP/tap.n"
	TAP_N=$((TAP_N + 1))
	echo "$TAP_N" >"$RB_TMP/tap.n"
}

# tap_diag TEXT: each line of TEXT as a "# " line (in the shell, no sed).
tap_diag() {
	local line
	while IFS= read -r line; do echo "# $line"; done <<<"$*"
}

# RB_TIMES=1: each TAP line follows a "# at T busy B" line, T the seconds
# since the epoch, B the CPUs' busy time so far in clock ticks (/proc/stat's
# user, nice, system, irq, softirq and steal, all CPUs: under the test bed's
# emulation a busy vCPU is the host's CPU), so that the cost of each case,
# in time and in CPU, is the gap before its line.
tap_at() {
	[ -n "${RB_TIMES:-}" ] || return 0
	local c u n s i w q sq st rest
	read -r c u n s i w q sq st rest </proc/stat
	echo "# at $EPOCHREALTIME busy $((u + n + s + q + sq + st))"
}

tap_ok() {
	local st=$1 name=$2 n f
	# the plan pass: a case before tap_plan
	[ -z "${RB_PLAN_TO:-}" ] || exit 0
	tap_at
	tap_bump
	n=$TAP_N
	if [ "$st" = 0 ]; then
		echo "ok $n - $name"
		return 0
	fi
	echo "not ok $n - $name"
	echo "$n $name" >>"$RB_TMP/tap.failed"
	[ -n "$RB_CASE_DIR" ] || return 0
	for f in server.rc server.err client.rc client.err client.out; do
		[ -s "$RB_CASE_DIR/$f" ] || continue
		tap_diag "--- $f"
		tail -n 15 "$RB_CASE_DIR/$f" | sed 's/^/#   /'
	done
	return 0
}

tap_skip() {
	[ -z "${RB_PLAN_TO:-}" ] || exit 0
	if [ "${CI:-}" = true ]; then
		tap_ok 1 "$1: skipped under CI=true, where it must run ($2)"
		return 0
	fi
	tap_skip_machine "$1" "$2"
}

tap_skip_machine() {
	[ -z "${RB_PLAN_TO:-}" ] || exit 0
	tap_at
	tap_bump
	echo "ok $TAP_N - $1 # SKIP $2"
}

# tap_count: the cases reported so far, in TAP_COUNT (read by the shell).
tap_count() {
	TAP_COUNT=0
	[ -r "$RB_TMP/tap.n" ] && read -r TAP_COUNT <"$RB_TMP/tap.n"
	return 0
}

# tap_plan N: see the top.  In run-all.sh's plan pass (RB_PLAN_TO, a file)
# it writes N there and ends the subshell the file is sourced in; a case
# reported before it (tap_ok, tap_skip) ends that pass with no plan.
tap_plan() {
	[ -n "${RB_PLAN_TO:-}" ] || return 0
	echo "$(($1))" >"$RB_PLAN_TO"
	exit 0
}

tap_mark() { tap_count; TAP_MARK=$TAP_COUNT; }

# tap_checks N WHAT RC FILE: a checker's output FILE ("ok: TEXT" and
# "not ok: TEXT" lines, "# " notes) as TAP lines "WHAT: TEXT", its notes
# passed on; then tap_expect N WHAT RC (after tap_mark before the checker).
tap_checks() {
	local line
	grep '^# ' "$4"
	while IFS= read -r line; do
		case $line in
		"ok: "*) tap_ok 0 "$2: ${line#ok: }" ;;
		"not ok: "*) tap_ok 1 "$2: ${line#not ok: }" ;;
		esac
	done <"$4"
	tap_expect "$1" "$2" "$3"
}

tap_expect() {
	local want=$1 what=$2 rc=${3:-0} got k
	tap_count
	got=$((TAP_COUNT - TAP_MARK))
	for ((k = got + 1; k <= want; k++)); do
		tap_ok 1 "$what: check $k of $want not reported (the checker reported $got, exit status $rc)"
	done
	if ((got > want)); then
		tap_ok 1 "$what: $got checks reported, $want expected"
	elif [ "$rc" != 0 ] && ((got >= want)); then
		tap_ok 1 "$what: the checker exited $rc"
	fi
	return 0
}

# wait_listen PORT [FILE [PID]]: wait (at most 10 s, or until PID, the
# server, has ended) for a TCP listener on PORT,
# looking after 10, 20, 40, 80 ms, then every 100 ms.  FILE, a server's
# stderr: its "waiting for a client on port PORT" (an rb_* server says so
# once it listens) is looked for each time, the kernel's socket table only
# every fourth (it lists every socket of the guest, those in TIME_WAIT too:
# several ms of CPU each under emulation late in a run), and each time
# without FILE.
wait_listen() {
	local ms=10 waited=0 n=0
	while ((waited < 10000)); do
		[ -n "${2:-}" ] && rb_said "$2" "waiting for a client on port $1" && return 0
		[ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null && break
		{ [ -z "${2:-}" ] || ((n++ % 4 == 0)); } && rb_listening "$1" && return 0
		rb_nap_ms "$ms"
		waited=$((waited + ms))
		((ms < 100)) && ms=$((ms * 2 > 100 ? 100 : ms * 2))
	done
	rb_listening "$1"
}

# rb_said FILE TEXT: true when a line of FILE holds TEXT (rb_has -F).
rb_said() { rb_has -F "$1" "$2"; }

# rb_has [-F] FILE ERE [SKIP]: true when a line of FILE (after its first
# SKIP) matches the extended regular expression ERE (bash's =~, POSIX's ERE
# as grep -E has it; with -F, holds ERE as plain text; a last line without
# its newline too).  rb_count VAR FILE
# ERE: the number of such lines, into VAR.  Both read FILE in the shell:
# the wait loops look every 20-100 ms, and a grep process a look cost up to
# a vCPU's whole time under emulation, taken from the benchmark they wait on.
rb_has() {
	local line n=0 fixed=""
	[ "$1" = -F ] && fixed=1 && shift
	[ -r "$1" ] || return 1
	while IFS= read -r line || [ -n "$line" ]; do
		((n++ < ${3:-0})) && continue
		if [ -n "$fixed" ]; then [[ $line == *"$2"* ]]; else [[ $line =~ $2 ]]; fi && return 0
	done <"$1"
	return 1
}

rb_count() {	# (its locals named apart: VAR may be the caller's n)
	local _rbc_line _rbc_n=0
	if [ -r "$2" ]; then
		while IFS= read -r _rbc_line || [ -n "$_rbc_line" ]; do
			[[ $_rbc_line =~ $3 ]] && _rbc_n=$((_rbc_n + 1))
		done <"$2"
	fi
	printf -v "$1" '%d' "$_rbc_n"
}

# rb_pcount VAR NAME: the number of processes whose name (comm) is NAME,
# into VAR (as pgrep -c -x NAME, read from /proc by the shell).
rb_pcount() {
	local _rbp_f _rbp_c _rbp_n=0
	for _rbp_f in /proc/[0-9]*/comm; do
		read -r _rbp_c 2>/dev/null <"$_rbp_f" && [ "$_rbp_c" = "$2" ] && _rbp_n=$((_rbp_n + 1))
	done
	printf -v "$1" '%d' "$_rbp_n"
}

# rb_case_dir NAME: RB_CASE_DIR for the case NAME (not made): $RB_TMP/ and
# NAME with each character but letters, digits, "_", "." and "-" made "_",
# and a "_" at the end (as `echo NAME | tr -c ...` did, without its two
# process starts).
rb_case_dir() {
	local n=${1//[^A-Za-z0-9_.-]/_}
	RB_CASE_DIR=$RB_TMP/${n}_
}

rb_pair() {
	local name=$1 server=$2 client=$3 spid src crc
	rb_case_dir "$name"
	[ ! -e "$RB_CASE_DIR" ] || rm -rf "$RB_CASE_DIR"
	mkdir -p "$RB_CASE_DIR"
	timeout -k 5 "$RB_PAIR_TIMEOUT" bash -c "$server" \
		>"$RB_CASE_DIR/server.out" 2>"$RB_CASE_DIR/server.err" </dev/null &
	spid=$!
	if [ -n "$RB_PAIR_PORT" ]; then
		wait_listen "$RB_PAIR_PORT" "$RB_CASE_DIR/server.err" "$spid" || echo "rb_pair: nothing listens on $RB_PAIR_PORT (10 s passed, or the server ended)" >>"$RB_CASE_DIR/client.err"
	else
		sleep 1
	fi
	timeout -k 5 "$RB_PAIR_TIMEOUT" bash -c "$client" \
		>"$RB_CASE_DIR/client.out" 2>>"$RB_CASE_DIR/client.err" </dev/null
	crc=$?
	wait "$spid"
	src=$?
	echo "$src" >"$RB_CASE_DIR/server.rc"
	echo "$crc" >"$RB_CASE_DIR/client.rc"
	[ "$src" = 0 ] && [ "$crc" = 0 ]
}

csv_col() {
	awk -F, -v col="$2" '
		/^[ \t]*#/ || /^[ \t]*$/ { next }
		!hdr { hdr = 1
			if (col ~ /^[0-9]+$/) { k = col; next }
			for (i = 1; i <= NF; i++) if ($i == col) k = i
			if (!k) { print "csv_col: no column " col > "/dev/stderr"; exit 1 }
			next }
		{ print $k }' "$1"
}

json_get() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
try:
    d = json.loads(text)
except ValueError:
    d = [json.loads(l) for l in text.splitlines() if l.strip()]
v = eval(sys.argv[2], {"d": d})
print(json.dumps(v) if isinstance(v, (dict, list)) else v)
EOF
}

num_gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

# ---- the fast run and the full (nightly) one ----
#
#   rb_full                   true in the full run (RB_FULL=1, .ci/run --full):
#                             the long trials (many peer-loss trials, every
#                             benchmark under valgrind, ...) run in full;
#                             otherwise a short version of each.
#   rb_fast_full FAST FULL    prints FAST, or FULL in the full run.

rb_full() { [ "${RB_FULL:-0}" = 1 ]; }

rb_fast_full() { if rb_full; then echo "$2"; else echo "$1"; fi; }

# The rest, by subject, in tests/integration/lib/: run.sh (rb_* programs as
# a case: rb_bench, rb_csv, rb_start, rb_failed, usage_case...), check.sh
# (rb_check, rb_meta_lines), jobs.sh (rb_job, rb_mpi_signal, rb_slurm_up).
# Beside this file, wherever it is sourced from (no process started).
case ${BASH_SOURCE[0]} in
*/*) RB_LIB_DIR=${BASH_SOURCE[0]%/*}/lib ;;
*) RB_LIB_DIR=lib ;;
esac
# shellcheck source=tests/integration/lib/run.sh
. "$RB_LIB_DIR/run.sh"
# shellcheck source=tests/integration/lib/check.sh
. "$RB_LIB_DIR/check.sh"
# shellcheck source=tests/integration/lib/jobs.sh
. "$RB_LIB_DIR/jobs.sh"

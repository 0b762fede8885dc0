# shellcheck shell=bash
# tests/integration/lib.sh: what an integration case file (t_NN_name.sh) uses.
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

# RB_TIMES=1: each TAP line follows a "# at T" line, T the seconds since
# the epoch, so that the cost of each case is the gap before its line.
tap_at() { [ -z "${RB_TIMES:-}" ] || echo "# at $EPOCHREALTIME"; }

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

# rb_said FILE TEXT: true when a line of FILE holds TEXT (read by the shell).
rb_said() {
	local line
	[ -r "$1" ] || return 1
	while IFS= read -r line; do
		[[ $line == *"$2"* ]] && return 0
	done <"$1"
	return 1
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

# ---- Running rb_* programs and checking what they printed ----
#
#   rb_case NAME              a fresh $RB_CASE_DIR for a case that starts its
#                             own processes (rb_start/rb_wait), so tap_ok shows
#                             its files as it does rb_pair's.
#   rb_bench NAME PROG 'ARGS' ['CLIENT_ARGS' ['SERVER_ARGS']]
#                             rb_pair of PROG on $RB_DEV: the server runs
#                             "PROG -d $RB_DEV ARGS SERVER_ARGS", the client
#                             "PROG -d $RB_DEV ARGS CLIENT_ARGS $RB_IP".  The
#                             words are read by bash -c, where $RB_CASE_DIR is
#                             the case's folder: '--raw=$RB_CASE_DIR/raw.csv'.
#                             RB_TIMES=1: says how long each pair took.
#   rb_csv NAME PROG 'ARGS' ['CLIENT_ARGS' ['SERVER_ARGS']]
#                             rb_bench, each side also writing its results to
#                             $RB_CASE_DIR/client.csv and server.csv.
#   rb_start SIDE 'CMD'       runs CMD (bash -c, under timeout) in the
#                             background: $RB_CASE_DIR/SIDE.out, SIDE.err.
#   rb_wait SIDE...           waits for each (once: SIDE.rc keeps its exit
#                             status); returns 0 when all exited 0.
#   rb_cmd PROG               the command line start "$RB_BIN/PROG" -d "$RB_DEV"
#                             (and -p $RB_LANE_PORT in run-all.sh's second lane).
#   rb_check FILE EXPR... [-- FILE EXPR...]...
#                             true when each Python expression EXPR holds over
#                             the results file FILE before it (CSV, CSV
#                             histogram or raw samples, or JSON).  Otherwise
#                             prints the first that does not, why, and the
#                             rows, as "# " lines.  (tests/integration/
#                             rb_check.py: through run-all.sh's check server,
#                             else a python3 per call.)
#                             In EXPR: rows (list of dicts; numbers are int or
#                             float, an empty field None), r (the only row, or
#                             None), meta (dict), status, header (CSV columns),
#                             lines (CSV: the lines that are not comments),
#                             comments (CSV: how many "#" lines: 0 now),
#                             side (CSV: its NAME.meta.json sidecar, or None;
#                             meta and status come from it),
#                             last (CSV: the last line), doc (JSON document),
#                             E (the environment), SWEEP (2..8388608), and
#                             the checks bw(r, SIZE, N[, recv=True]),
#                             lat(r, SIZE, N) (N None: any count > 0),
#                             window(r, meta, LO, HI) (-D: LO <= window_s <=
#                             HI, plus a latency row's longest round trip),
#                             raw(r, PATH) (the row's count, min, max, mean,
#                             stdev and percentiles recomputed from the --raw
#                             file PATH, nearest rank) and hist(PATH, N) (a -H
#                             file: buckets in order, N samples, cumulative
#                             fraction ending at 1) and
#                             expect(COND, 'why'), which raise with the reason.
#   rb_same_rows A B          the two result CSVs hold the same rows.
#   rb_job NAME 'CMD'         CMD (bash -c, e.g. an MPI job) under timeout
#                             $RB_PAIR_TIMEOUT in a fresh case folder:
#                             job.out, job.err, job.rc; its seconds in
#                             RB_JOB_TOOK.  Returns 0 when it exited 0, else
#                             says how it ended and the head of its stderr.
#   rb_mpi_signal NAME SIG DELAY 'CMD'
#                             CMD (bash -c: a job of rb_mpi ranks) in the
#                             background under `timeout 120` (job.out,
#                             job.err); DELAY s after its links move data
#                             (the device's sent_pkts grew by 1000; without
#                             that counter, once its third rb_mpi process
#                             appears), signal SIG to that third rank, then
#                             wait for the job.  Sets RB_VICTIM (the pid; ""
#                             if none appeared), RB_JOB_RC, RB_JOB_TOOK (s from
#                             the signal to the end).  Kills a victim left over.
#   rb_slurm_up ARGS...       scripts/testbed/slurm-up ARGS (a Slurm cluster
#                             here), then exports SLURM_CONF and says what is
#                             up; else prints why and returns 1.
#   rb_mpi_stopped_case NAME 'CMD' WHAT
#                             one TAP case: CMD, rb_mpi ranks run with
#                             --timeout 5 --step-timeout 8, gets a rank
#                             stopped (SIGSTOP) mid-run; it must end non-zero
#                             within 40 s, saying why on stderr.
#   rb_file NAME              $RB_CASE_DIR/NAME
#   usage_case 'ERE' PROG ARGS...
#                             PROG ARGS (no device needed) exits 2 at once
#                             with stderr matching ERE; else says how not.
#   rb_failed CODE 'ERE' [SIDES]
#                             both sides (or SIDES, e.g. "client") exited
#                             CODE and each one's stderr matches ERE; else
#                             says which did not, as a "# " line.

rb_case() {
	rb_case_dir "$1"
	export RB_CASE_DIR
	[ ! -e "$RB_CASE_DIR" ] || rm -rf "$RB_CASE_DIR"
	mkdir -p "$RB_CASE_DIR"
}

rb_cmd() { echo "\"\$RB_BIN/$1\" -d \"\$RB_DEV\"${RB_LANE_PORT:+ -p $RB_LANE_PORT}"; }

rb_file() { echo "$RB_CASE_DIR/$1"; }

rb_bench() {
	local name=$1 prog=$2 args=$3 cargs=${4:-} sargs=${5:-} t0=$SECONDS st
	export RB_CASE_DIR
	rb_pair "$name" "$(rb_cmd "$prog") $args $sargs" "$(rb_cmd "$prog") $args $cargs \"\$RB_IP\""
	st=$?
	[ -z "${RB_TIMES:-}" ] || tap_diag "$name: $((SECONDS - t0)) s"
	return "$st"
}

rb_csv() {
	rb_bench "$1" "$2" "$3" "${4:-} --csv=\$RB_CASE_DIR/client.csv" \
		"${5:-} --csv=\$RB_CASE_DIR/server.csv"
}

rb_start() {
	timeout -k 5 "$RB_PAIR_TIMEOUT" bash -c "$2" \
		>"$RB_CASE_DIR/$1.out" 2>"$RB_CASE_DIR/$1.err" </dev/null &
	echo $! >"$RB_CASE_DIR/$1.pid"
}

rb_wait() {
	local side rc st=0
	for side in "$@"; do
		if [ ! -f "$RB_CASE_DIR/$side.rc" ]; then
			wait "$(cat "$RB_CASE_DIR/$side.pid")"
			echo "$?" >"$RB_CASE_DIR/$side.rc"
		fi
		rc=$(cat "$RB_CASE_DIR/$side.rc")
		[ "$rc" = 0 ] || st=$rc
	done
	return "$st"
}

# (no process substitution: the test bed's guest has no /dev/fd)
rb_same_rows() {
	grep -v '^#' "$1" >"$1.rows"
	grep -v '^#' "$2" >"$2.rows"
	cmp -s "$1.rows" "$2.rows" && return 0
	tap_diag "rows differ between $(basename "$1") and $(basename "$2"):"
	tap_diag "$(diff "$1.rows" "$2.rows")"
	return 1
}

rb_failed() {
	local code=$1 ere=$2 side rc st=0
	for side in ${3:-server client}; do
		rc=$(cat "$RB_CASE_DIR/$side.rc" 2>/dev/null)
		if [ "$rc" != "$code" ]; then
			tap_diag "$side exited ${rc:-?}, expected $code"
			st=1
		elif ! grep -Eq -- "$ere" "$RB_CASE_DIR/$side.err"; then
			tap_diag "$side's stderr does not match /$ere/"
			st=1
		fi
	done
	return "$st"
}

usage_case() {
	local ere=$1 prog=$2 err rc
	shift 2
	err=$(timeout 20 "$RB_BIN/$prog" "$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 2 ] && echo "$err" | grep -Eq -- "$ere" && return 0
	tap_diag "$prog $* exited $rc: $err"
	return 1
}

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

# rb_check_ask ARG...: the check through the server; its status, its
# output printed.  Status 125: no answer within RB_CHECK_WAIT_S (default
# 120) seconds.
rb_check_ask() {
	local req st line i ms
	RB_CHECK_N=$((${RB_CHECK_N:-0} + 1))
	req=$RB_TMP/check.$BASHPID.$RB_CHECK_N
	printf '%s\0' "$PWD" "$@" >"$req" || return 125
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
		while IFS= read -r line; do echo "$line"; done
	} <"$req.done"
	return "$st"
}

rb_check() {
	local st
	# E (the environment) is this shell's: such checks in a python3 of their own
	if [ -n "${RB_CHECK_FIFO:-}" ] && [[ "$*" != *E\[* ]]; then
		rb_check_ask "$@"
		st=$?
		[ "$st" = 125 ] || return "$st"
		tap_diag "rb_check: no answer from the check server (pid $RB_CHECK_PID) in ${RB_CHECK_WAIT_S:-120} s: checked in a python3 of its own"
	fi
	"$RB_PY" -I -S "$top_srcdir/tests/integration/rb_check.py" "$@"
}

rb_job() {
	local t0=$SECONDS rc
	rb_case "$1"
	timeout -k 5 "$RB_PAIR_TIMEOUT" bash -c "$2" \
		>"$RB_CASE_DIR/job.out" 2>"$RB_CASE_DIR/job.err" </dev/null
	rc=$?
	echo "$rc" >"$RB_CASE_DIR/job.rc"
	RB_JOB_TOOK=$((SECONDS - t0))
	[ "$rc" = 0 ] && return 0
	tap_diag "$1: exited $rc after $RB_JOB_TOOK s"
	grep -v '^ *$' "$RB_CASE_DIR/job.err" | head -n 30 | sed 's/^/#   /'
	return 1
}

# rb_hw_counter NAME: a port counter of $RB_DEV (hw_counters/NAME, or
# counters/NAME), empty when the device lacks it.
rb_hw_counter() {
	local p=/sys/class/infiniband/$RB_DEV/ports/1 f
	for f in "$p/hw_counters/$1" "$p/counters/$1"; do
		[ -r "$f" ] && { cat "$f"; return; }
	done
}

rb_mpi_signal() {
	local pid t0 c0
	rb_case "$1"
	timeout -k 5 120 bash -c "$4" >"$RB_CASE_DIR/job.out" 2>"$RB_CASE_DIR/job.err" </dev/null &
	pid=$!
	RB_VICTIM="" c0=$(rb_hw_counter sent_pkts)
	for _ in $(seq 100); do
		rb_nap 0.2
		RB_VICTIM=$(pgrep -x rb_mpi | sed -n 3p)
		[ -n "$RB_VICTIM" ] && break
	done
	# mid-run: once the links move data (the device's sent_pkts, where it
	# has one: a loaded guest took over 4 s to get from the ranks' start
	# through MPI_Init, and a rank signalled there ends or hangs the job
	# before rb_mpi's own deadlines apply), at most 60 s
	for _ in $(seq 300); do
		[ -n "$c0" ] && [ -n "$RB_VICTIM" ] || break
		(($(rb_hw_counter sent_pkts) > c0 + 1000)) && break
		rb_nap 0.2
	done
	sleep "$3"
	t0=$SECONDS
	if [ -n "$RB_VICTIM" ] && ! kill -"$2" "$RB_VICTIM" 2>/dev/null; then
		tap_diag "$1: rank $RB_VICTIM had ended before SIG$2: the job was over, too short to be signalled mid-run"
	fi
	wait "$pid"
	RB_JOB_RC=$?
	RB_JOB_TOOK=$((SECONDS - t0))
	if [ -n "$RB_VICTIM" ] && kill -KILL "$RB_VICTIM" 2>/dev/null; then
		tap_diag "$1: the signalled rank (pid $RB_VICTIM) outlived the job"
	fi
	return 0
}

# A rank that hangs rather than dies: the launcher sees nothing wrong; the
# ranks waiting on it notice within --timeout (in a link) or --step-timeout
# (between steps), say so and end the job (MPI_Abort).  5 s or 8 s plus the
# abort: 40 s is far beyond, and the `timeout 120` around it cannot have fired.
# The stop comes 3 s after the links move data, so CMD must still be running
# then on a fast guest or device too: -D 4 for 6 rounds (with 4 vCPUs, a -D 1
# job had ended before the signal).
rb_mpi_stopped_case() {
	local err st=1
	rb_mpi_signal "$1" STOP 3 "$2 --timeout 5 --step-timeout 8"
	err=$RB_CASE_DIR/job.err
	tap_diag "rank stopped: pid ${RB_VICTIM:-none}, the job exited $RB_JOB_RC after $RB_JOB_TOOK s; $(grep -m1 -E 'within|stalled|timed out' "$err")"
	[ -n "$RB_VICTIM" ] && [ "$RB_JOB_RC" != 0 ] && [ "$RB_JOB_RC" != 124 ] && [ "$RB_JOB_TOOK" -le 40 ] &&
		grep -Eq 'stalled|step-timeout|--timeout|timed out' "$err" && grep -q 'ending the MPI job' "$err" &&
		st=0
	[ "$st" = 0 ] || tail -n 15 "$err" | sed 's/^/#   /'
	tap_ok "$st" "$3: a rank stopped (SIGSTOP) mid-run ends the job with an error within the timeouts (5 s link, 8 s step)"
}

rb_slurm_up() {
	local t0=$SECONDS up
	rb_case "slurm up"
	if ! up=$("$top_srcdir/scripts/testbed/slurm-up" "$@" 2>"$RB_CASE_DIR/err"); then
		sed 's/^/# /' "$RB_CASE_DIR/err"
		return 1
	fi
	eval "$up"
	tap_diag "slurm up in $((SECONDS - t0)) s: $(cat "$RB_CASE_DIR/err"); $(sinfo -h -o '%N %t' | paste -sd' '); srun --mpi=list: $(srun --mpi=list 2>&1 | sed -n 's/^[[:space:]]*//p' | sed 1d | paste -sd' ')"
}

# ---- the fast run and the full (nightly) one ----
#
#   rb_full                   true in the full run (RB_FULL=1, .ci/run --full):
#                             the long trials (many peer-loss trials, every
#                             benchmark under valgrind, ...) run in full;
#                             otherwise a short version of each.
#   rb_fast_full FAST FULL    prints FAST, or FULL in the full run.

rb_full() { [ "${RB_FULL:-0}" = 1 ]; }

rb_fast_full() { if rb_full; then echo "$2"; else echo "$1"; fi; }

# rb_meta_lines FILE.csv: its metadata as the "# KEY=VALUE" lines of the
# earlier CSV format, from the sidecar FILE.meta.json (or FILE's own "#"
# lines, an earlier file), for the case files that grep them.
rb_meta_lines() {
	rb_check --meta-lines "$1" 2>/dev/null
}

# shellcheck shell=bash
# tests/integration/lib/run.sh, sourced by tests/integration/lib.sh (read
# its top first): rb_* programs run as a case and their output checked
# (the functions below the list; rb_check in lib/check.sh, rb_job and the
# MPI and Slurm ones in lib/jobs.sh).

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

# (rb_wait and rb_failed read their files with the shell's read and
# rb_has: a cat or grep process is 20-50 ms of an emulated guest's CPU, for
# each side of most cases)
rb_wait() {
	local side rc pid st=0
	for side in "$@"; do
		if [ ! -f "$RB_CASE_DIR/$side.rc" ]; then
			read -r pid <"$RB_CASE_DIR/$side.pid"
			wait "$pid"
			echo "$?" >"$RB_CASE_DIR/$side.rc"
		fi
		rc="" && read -r rc <"$RB_CASE_DIR/$side.rc"
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
		rc="" && read -r rc 2>/dev/null <"$RB_CASE_DIR/$side.rc"
		if [ "$rc" != "$code" ]; then
			tap_diag "$side exited ${rc:-?}, expected $code"
			st=1
		elif ! rb_has "$RB_CASE_DIR/$side.err" "$ere"; then
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

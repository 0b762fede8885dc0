# needs: one-guest quiet valgrind
# valgrind memcheck: one server/client pair of each benchmark, and
# rb_devices, on the device; the client under valgrind, and the server too
# where it runs a loop of its own (vg_both).  Each side must exit 0, and
# valgrind report no
# error and no definite leak (definite leaks count as errors here:
# --errors-for-leak-kinds=definite).  Sourced by run-all.sh (see lib.sh).
#
# Under the test bed's emulation valgrind is slow (a pair takes 15-40 s), so
# the runs are small and RB_VG_JOBS pairs (default 3) run side by side, each
# on its own -p.  The fast run takes the -j 2 -b pair of rb_send_bw below
# (both directions, two threads, the client under valgrind: setup, the
# exchange's client half, the send and receive loops, the
# threads' gate and teardown) and rb_devices' text; the full one (RB_FULL=1)
# all eight benchmarks, a second -j 2 pair and rb_devices --json as well
# (until 2026-12-03 the fast run had rb_write_lat, rb_read_bw and
# rb_atomic_lat too: 343 s of the fast run's longest boot, rxe-quiet, for
# four valgrind processes more).  Every benchmark's loops run under
# ASan+UBSan (LeakSanitizer included) in the fast run (bench/*.sh).  Knobs:
# RB_VG_PROGS (default as said), RB_VG_JOBS, RB_VG_ARGS (more options for
# both sides, e.g. --no-numa or --cpu=LIST), RB_VG_THREADS (default yes: a
# -j 2 pair too, two in the full run).  The valgrind logs stay in each
# case's folder ($RB_TMP, removed at the end; a failure shows the reports).
# Suppressions:
# tests/integration/valgrind.supp, each entry with its reason.
# Not for a sanitizer build (valgrind and ASan exclude each other): skipped.

vg_progs=${RB_VG_PROGS:-$(rb_fast_full "" \
	"$(sed -n 's/^BENCH(\([a-z0-9_]*\))$/rb_\1/p' "$top_srcdir/bench/list.h" | paste -sd' ')")}
vg_jobs=${RB_VG_JOBS:-3}
vg_port=19700
# Deadlines (s) for each valgrind process and for a server to listen:
# generous, for a busy host (at load 40 a pair did not listen within 240 s).
vg_limit=${RB_VG_LIMIT:-600}
vg=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite
	--errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=30
	--suppressions="$top_srcdir/tests/integration/valgrind.supp")

# vg_both 'PROG [ARGS]': true when both sides run a loop of their own under
# valgrind; else only the client does, its server (which waits while the
# client reads, writes or does atomics on its memory, or answers its
# ping-pong with the same loop) running the plain build: every side's code,
# setup, server and client halves of the exchange, each loop and teardown
# still runs under valgrind in one pair or another (the full run).  The
# fast run's -j 2 -b pair has its client under valgrind (setup, the
# exchange's client half, both loops on two threads, the gate, teardown),
# its server the plain build: both sides took 58 s of the fast run's
# longest boot, the client alone about half (2026-12-06).
vg_both() {
	case $1 in
	rb_send_bw | rb_send_lat) return 0 ;;
	"rb_send_bw -j 2 -b") rb_full ;;
	*) return 1 ;;
	esac
}

# The smallest run of each: a few messages of a small size.
vg_args() {
	case $1 in
	rb_atomic_bw) echo "-n 50" ;;
	*_lat) echo "-n 50 --warmup 5" ;;
	*) echo "-s 4096 -n 50" ;;
	esac
}

# vg_report SIDE: "SIDE: exit RC, N errors, B bytes definitely lost"; false
# unless it exited 0 and its log says 0 errors (a missing log is a failure).
vg_report() {
	local f=$RB_CASE_DIR/$1.vg rc errs lost
	rc=$(cat "$RB_CASE_DIR/$1.rc" 2>/dev/null)
	errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$f" 2>/dev/null | tail -n1)
	lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$f" 2>/dev/null | tail -n1)
	echo -n "$1: exit ${rc:-?}, ${errs:-no log?} errors, ${lost:-0} bytes definitely lost"
	[ "$rc" = 0 ] && [ "$errs" = 0 ] && [ "${lost:-0}" = 0 ]
}

# vg_show SIDE...: the reports of each side's log, as "# " lines.
vg_show() {
	local side
	for side in "$@"; do
		tap_diag "--- $side.vg"
		grep -E '^==[0-9]+== ( +(at|by) |[A-Z].*(Invalid|uninitialised|Conditional|definitely lost in|Syscall|Mismatched|Source and destination))' \
			"$RB_CASE_DIR/$side.vg" 2>/dev/null | head -n 40 | sed 's/^/#   /'
	done
}

# vg_start 'PROG [ARGS]' PORT: the pair of PROG (with ARGS) in the case
# folder of that name.
vg_start() {
	local prog=${1%% *} more= port=$2 cmd args
	[ "$prog" = "$1" ] || more=${1#* }
	rb_case "valgrind $1"
	args="$(rb_cmd "$prog") -x \"\$RB_GID_INDEX\" -p $port --timeout 120 $(vg_args "$prog") $more ${RB_VG_ARGS:-}"
	cmd="exec ${vg[*]} --log-file=\$RB_CASE_DIR/SIDE.vg $args"
	if vg_both "$1"; then
		RB_PAIR_TIMEOUT=$vg_limit rb_start server "${cmd/SIDE/server}"
	else
		RB_PAIR_TIMEOUT=$vg_limit rb_start server "exec $args"
	fi
	for _ in $(seq "$vg_limit"); do		# valgrind starts slowly: vg_limit / 2 s at least
		rb_listening "$port" && break
		if ! kill -0 "$(cat "$RB_CASE_DIR/server.pid")" 2>/dev/null; then
			echo "the server ended before it listened: client not started" >"$RB_CASE_DIR/client.err"
			echo 125 >"$RB_CASE_DIR/client.rc"
			return
		fi
		rb_nap 0.5
	done
	RB_PAIR_TIMEOUT=$vg_limit rb_start client "${cmd/SIDE/client} \"\$RB_IP\""
}

# vg_check PROG T0: the pair's verdict, with the seconds since T0 (its
# batch's start) once both sides ended.
vg_check() {
	local s c st=0
	rb_case_dir "valgrind $1"
	rb_wait server client
	if vg_both "$1"; then
		s=$(vg_report server) || st=1
	else
		s="server (not under valgrind): exit $(cat "$RB_CASE_DIR/server.rc" 2>/dev/null)"
		[ "$(cat "$RB_CASE_DIR/server.rc" 2>/dev/null)" = 0 ] || st=1
	fi
	c=$(vg_report client) || st=1
	[ "$st" = 0 ] || vg_show server client
	tap_ok "$st" "$1 under valgrind memcheck: $s; $c ($((SECONDS - $2)) s)"
}

# -j 2: two measuring threads a side (src/driver/threads.c: the start gate, the
# frames carried for the threads, each thread's teardown), both directions.
# RB_VG_THREADS=no leaves them out.  They go first, the longest.  The fast
# run has the send/receive pair only (both its sides under valgrind: every
# part of threads.c on both roles); the full run the write pair too.
vg_pairs=()
if [ "${RB_VG_THREADS:-yes}" != no ]; then
	vg_pairs=("rb_send_bw -j 2 -b")
	rb_full && vg_pairs+=("rb_write_bw -j 2")
fi
# shellcheck disable=SC2206 # a list of words
vg_pairs+=($vg_progs)

# The cases below (tap_plan: lib.sh): each pair and rb_devices; one when
# valgrind cannot run here.
vg_plan=$((${#vg_pairs[@]} + 1))
command -v valgrind >/dev/null || vg_plan=1
grep -qa __asan_init "$RB_BIN/rb_send_bw" 2>/dev/null && vg_plan=1
tap_plan vg_plan

if ! command -v valgrind >/dev/null; then
	if [ "${CI:-}" = true ]; then
		tap_ok 1 "valgrind memcheck: valgrind is not installed (Debian package valgrind)"
	else
		tap_skip "valgrind memcheck" "no valgrind (apt-get install valgrind)"
	fi
	return 0
fi
if grep -qa __asan_init "$RB_BIN/rb_send_bw" 2>/dev/null; then
	tap_skip "valgrind memcheck" "$RB_BIN holds a sanitizer build: valgrind needs a plain one"
	return 0
fi

# rb_devices (text, and JSON in the full run), started first: it runs beside
# the first pairs.
rb_case "valgrind rb_devices"
vg_devdir=$RB_CASE_DIR
vg_fmts=$(rb_fast_full text "text json")
for fmt in $vg_fmts; do
	args=""
	[ "$fmt" = json ] && args=--json
	RB_PAIR_TIMEOUT=$vg_limit rb_start "$fmt" \
		"exec ${vg[*]} --log-file=\$RB_CASE_DIR/$fmt.vg \"\$RB_BIN/rb_devices\" $args"
done

# The pairs, vg_jobs at a time.
set -- "${vg_pairs[@]}"
while (($#)); do
	batch=()
	while (($#)) && ((${#batch[@]} < vg_jobs)); do
		batch+=("$1")
		shift
	done
	t0=$SECONDS
	for i in "${!batch[@]}"; do
		vg_start "${batch[$i]}" "$((vg_port + i))"
	done
	for prog in "${batch[@]}"; do
		vg_check "$prog" "$t0"
	done
done

RB_CASE_DIR=$vg_devdir
# shellcheck disable=SC2086 # a list of words
rb_wait $vg_fmts
st=0 s=""
for fmt in $vg_fmts; do
	s+="$(vg_report "$fmt"); " || st=1
done
grep -q "$RB_DEV" "$RB_CASE_DIR/text.out" || st=1
! rb_full || grep -q "\"$RB_DEV\"" "$RB_CASE_DIR/json.out" || st=1
# shellcheck disable=SC2086 # a list of words
[ "$st" = 0 ] || vg_show $vg_fmts
tap_ok "$st" "rb_devices under valgrind memcheck, $(rb_fast_full text 'text and --json') list $RB_DEV: ${s%; }"

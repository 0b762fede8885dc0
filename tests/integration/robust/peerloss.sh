# needs: one-guest quiet
# Peer loss, stalls and SIGINT.  Sourced by run-all.sh (see lib.sh).
#
# Trials: a server and a client of one benchmark; one of them (the victim,
# chosen at random) gets SIGKILL at a random point: early (connecting,
# HELLO, device setup, QP exchange, barrier), mid-run, or just after it
# printed its row (the RESULT exchange and teardown).  Some trials SIGSTOP
# the victim instead: a peer that is there but silent.  The other side (the
# survivor) must then exit within --timeout + RB_PEERLOSS_SLACK s (default
# 10: teardown alone takes seconds under emulation on a loaded host), with status 1 and an
# error on stderr (or 0 with its row, when it had finished), and no crash
# (status > 128) or sanitizer report.  A server whose client died before
# connecting waits for the next one by design: it must end on SIGINT.
#
# The victim and the point go through every combination in turn (trial k of
# the run: point k mod 10, the victim alternating; the pauses and -e stay
# random): the fast run's 3 trials per benchmark reach every point once, the
# full run's (RB_FULL=1) 20 every point and victim 4 times.
#
# RB_PEERLOSS_JOBS benchmarks (default 2) run side by side, each on its own
# -p.  Other knobs: RB_PEERLOSS_TRIALS (per benchmark, default 3, 20 in the
# full run), RB_PEERLOSS_THREAD_TRIALS (the -j 2 ones below: 3, 12),
# RB_PEERLOSS_TIMEOUT (--timeout, default 3), RB_PEERLOSS_PROGS (default the
# four main ones), RB_PEERLOSS_SEED (replay), RB_PEERLOSS_KEEP (a folder to
# copy each trial's files to).

pl_trials=${RB_PEERLOSS_TRIALS:-$(rb_fast_full 3 20)}
pl_timeout=${RB_PEERLOSS_TIMEOUT:-3}
pl_slack=${RB_PEERLOSS_SLACK:-10}
pl_limit=$((pl_timeout + pl_slack))
pl_progs=${RB_PEERLOSS_PROGS:-rb_send_bw rb_send_lat rb_write_bw rb_read_lat}
pl_jobs=${RB_PEERLOSS_JOBS:-2}
pl_seed=${RB_PEERLOSS_SEED:-$((RANDOM * 32768 + RANDOM))}
pl_sanitizer='Sanitizer|runtime error:'

# The cases below (tap_plan: lib.sh): a verdict per benchmark, two for the
# -j 2 trials, five SIGINT cases.
pl_list=($pl_progs)
tap_plan "${#pl_list[@]} + 2 + 5"

# pl_launch DIR SIDE CMD...: CMD in the background (bash waits on it);
# DIR/SIDE.pid is its pid, DIR/SIDE.rc "STATUS END_NS" once it ended.  CMD
# runs niced: its busy polling must not starve this script's watching (the
# guest has 2 CPUs), or kills land late.
pl_launch() {
	local d=$1 side=$2
	shift 2
	bash -c 'd=$1 side=$2; shift 2
		nice -n 10 "$@" >"$d/$side.out" 2>"$d/$side.err" </dev/null &
		echo $! >"$d/$side.pid"
		wait $!
		echo "$? $(date +%s%N)" >"$d/$side.rc"' _ "$d" "$side" "$@" 2>/dev/null &
	until [ -s "$d/$side.pid" ]; do rb_nap 0.01; done
}

pl_ended() { [ -s "$1/$2.rc" ]; }

# pl_wait_end DIR SIDE SECONDS: true once SIDE ended (within SECONDS).
pl_wait_end() {
	local end=$((SECONDS + $3))
	while [ "$SECONDS" -le "$end" ]; do
		pl_ended "$1" "$2" && return 0
		rb_nap 0.05
	done
	pl_ended "$1" "$2"
}

# pl_wait_for DIR VICTIM FILE ERE: until DIR/FILE has a line matching ERE
# (30 s at most); false when the victim ended first.
pl_wait_for() {
	local end=$((SECONDS + 30))
	while [ "$SECONDS" -le "$end" ]; do
		rb_has "$1/$3" "$4" && return 0
		pl_ended "$1" "$2" && return 1
		rb_nap 0.02
	done
	return 1
}

# pl_await DIR SURVIVOR PORT: "ended" once the survivor ended; "waiting" when
# it is a server that never had a client (no "connected" line, no TCP
# connection on its port for 2 s): it then waits by design; "hang" when it
# still runs after $pl_limit s.
pl_await() {
	local d=$1 side=$2 port=$3 end=$((SECONDS + pl_limit)) quiet=""
	while [ "$SECONDS" -le "$end" ]; do
		pl_ended "$d" "$side" && { echo ended; return; }
		if [ "$side" = server ] && ! grep -q 'connected' "$d/server.err" &&
			[ -z "$(ss -Htn state established state close-wait state syn-recv "sport = :$port" 2>/dev/null)" ]; then
			: "${quiet:=$SECONDS}"
			[ $((SECONDS - quiet)) -ge 2 ] && { echo waiting; return; }
		else
			quiet=""
		fi
		rb_nap 0.1
	done
	pl_ended "$d" "$side" && echo ended || echo hang
}

pl_rand() { awk -v s="$1" -v lo="$2" -v hi="$3" 'BEGIN { srand(s); printf "%.3f", lo + (hi - lo) * rand() }'; }

# The step the survivor's error messages name.
pl_phase() {
	local e
	e=$(grep 'error:' "$1" 2>/dev/null)
	case $e in
	'') echo "none" ;;
	*connecting\ to*) echo "connect" ;;
	*test\ parameters*) echo "hello" ;;
	*QP\ attributes*) echo "qp-exchange" ;;
	*starting\ the\ measurement*) echo "barrier" ;;
	*nothing\ completed* | *completion\ error* | *the\ peer\ is\ gone* | *channel\ to\ the\ peer*) echo "run" ;;
	*finishing\ size*) echo "done" ;;
	*results\ of\ size*) echo "result" ;;
	*waiting\ for\ a\ client*) echo "no-client" ;;
	*ibv_* | *rdma_cm* | *device*) echo "setup" ;;
	*) echo "other" ;;
	esac
}

# pl_trial PROG PORT ARGS N SEED: one trial; appends a line to $pl_dir/PROG.res:
# "N victim point phase survivor_rc seconds trial_seconds|verdict|error line".
pl_trial() {
	local prog=$1 port=$2 args=$3 n=$4 seed=$5 d victim survivor point sig t0 t1 secs rc verdict
	local start=$SECONDS
	d=$pl_dir/$prog/$n
	mkdir -p "$d"
	victim=client survivor=server
	[ $((seed % 2)) = 0 ] && victim=server survivor=client
	local points=(connect hello setup exchange barrier run run late stop-exchange stop-run)
	point=${points[$(((seed / 2) % 10))]}
	# half the trials sleep on a completion channel (-e), where supported
	[ $(((seed / 20) % 2)) = 1 ] && "$RB_BIN/$prog" --help | grep -q -- --events && args="$args -e"
	local cmd=("$RB_BIN/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" -p "$port" --timeout "$pl_timeout" --verbose $args)
	pl_launch "$d" server "${cmd[@]}"
	wait_listen "$port" || echo "peerloss: nothing listens on $port" >>"$d/server.err"
	pl_launch "$d" client "${cmd[@]}" "$RB_IP"
	echo "$EPOCHREALTIME started" >"$d/trace"
	# the moment: a line the victim (or the server) printed, then maybe a pause
	case $point in
	connect) sleep "$(pl_rand "$seed" 0 0.05)" ;;
	hello) pl_wait_for "$d" "$victim" server.err 'client .* connected' ;;
	setup) pl_wait_for "$d" "$victim" "$victim.err" ': device ' ;;
	exchange | stop-exchange) pl_wait_for "$d" "$victim" "$victim.err" ': placement: ' ;;
	barrier) pl_wait_for "$d" "$victim" "$victim.out" '^ Command ' ;;
	run | stop-run) pl_wait_for "$d" "$victim" "$victim.out" '^ Command ' &&
		sleep "$(pl_rand "$seed" 0.1 0.7)" ;;
	late) pl_wait_for "$d" "$victim" "$victim.out" '^ +[0-9]+ +[0-9]+ ' ;;
	esac
	sig=KILL
	case $point in stop-*) sig=STOP ;; esac
	if pl_ended "$d" "$victim" || ! kill -s "$sig" "$(cat "$d/$victim.pid")" 2>/dev/null; then
		point=$point-missed
	fi
	echo "$EPOCHREALTIME SIG$sig to the $victim ($point)" >>"$d/trace"
	t0=$(date +%s%N)
	case $(pl_await "$d" "$survivor" "$port") in
	ended)
		read -r rc t1 <"$d/$survivor.rc"
		verdict=ok ;;
	waiting)
		# no client ever reached it: it waits for one by design
		kill -INT "$(cat "$d/server.pid")"
		pl_wait_end "$d" server 5
		read -r rc t1 <"$d/server.rc" 2>/dev/null
		verdict=ok point=$point-waiting
		[ "${rc:-x}" = 1 ] || verdict="the server waiting for a client did not exit 1 on SIGINT (${rc:-still running})" ;;
	*)
		kill -KILL "$(cat "$d/$survivor.pid")" 2>/dev/null
		verdict="hang: the $survivor still runs ${pl_limit} s after the $victim got SIG$sig"
		rc=hang t1=$(date +%s%N) ;;
	esac
	[ "$sig" = STOP ] && kill -KILL "$(cat "$d/$victim.pid")" 2>/dev/null
	secs=$(awk -v a="$t0" -v b="${t1:-$t0}" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	if [ "$verdict" = ok ]; then
		if [ "$rc" -gt 128 ]; then
			verdict="the $survivor crashed: status $rc"
		elif grep -Eq "$pl_sanitizer" "$d/$survivor.err"; then
			verdict="sanitizer report from the $survivor"
		elif [ "$rc" = 0 ] && [ "${point%-missed}" = "$point" ] &&
			! grep -Eq '^ +[0-9]+ +[0-9]+ ' "$d/$survivor.out"; then
			verdict="the $survivor exited 0 without its row"
		elif [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
			verdict="the $survivor exited $rc (want 1, or 0 when it had finished)"
		elif [ "$rc" = 1 ] && ! grep -q 'error:' "$d/$survivor.err"; then
			verdict="the $survivor exited 1 without an error message"
		fi
	fi
	# the victim, when it ran to its end by itself, must have been fine too
	if [ "${point%-missed}" != "$point" ] && [ "$verdict" = ok ] && [ "$(cut -d' ' -f1 "$d/$victim.rc")" -gt 128 ]; then
		verdict="the $victim crashed: status $(cut -d' ' -f1 "$d/$victim.rc")"
	fi
	wait
	echo "$n $victim $point $(pl_phase "$d/$survivor.err") $rc $secs $((SECONDS - start))|$verdict|$(grep -m1 'error:' "$d/$survivor.err")" >>"$pl_dir/$prog.res"
}

# pl_worker PROG PORT ARGS K [POINTS]: the trials of one benchmark (the K-th,
# from 0), in a row.  A trial's seed: random, but for its last digits, which
# give the victim (seed mod 2) and the point ((seed / 2) mod 10, an index
# into pl_trial's points): trial k of the run (k counted across the
# benchmarks) takes the (k mod P)-th of the P indices in POINTS (default all
# ten, in order), and each point's victim alternates from one round of P to
# the next.
pl_worker() {
	local n k s p points
	read -ra points <<<"${5:-0 1 2 3 4 5 6 7 8 9}"
	p=${#points[@]}
	for n in $(seq "$pl_trials"); do
		k=$(($4 * pl_trials + n - 1))
		s=$(((pl_seed + n * 7919 + ${#1} * 104729 + $2) % 1000003))
		s=$((s / 20 * 20 + points[k % p] * 2 + (k + k / p) % 2))
		pl_trial "$1" "$2" "$3" "$n" "$s"
	done
}

pl_args() {
	case $1 in
	*_lat | rb_atomic_bw) echo "-D 1" ;;
	*) echo "-s 4096 -D 1" ;;
	esac
}

pl_dir=$RB_TMP/peerloss
mkdir -p "$pl_dir"
tap_diag "peer loss: $pl_trials trials per benchmark, --timeout $pl_timeout, seed $pl_seed (RB_PEERLOSS_SEED replays)"
pl_port=19300
pl_t0=$SECONDS
pl_n=0
for prog in $pl_progs; do
	pl_worker "$prog" "$pl_port" "$(pl_args "$prog")" "$pl_n" &
	pl_port=$((pl_port + 1))
	pl_n=$((pl_n + 1))
	[ $((pl_n % pl_jobs)) = 0 ] && wait
done
wait
tap_diag "peer loss: $(($(echo $pl_progs | wc -w) * pl_trials)) trials in $((SECONDS - pl_t0)) s, $pl_jobs benchmarks at a time"

# pl_verdict PROG TRIALS LABEL: the trials of PROG (in $pl_dir) as one TAP line.
pl_verdict() {
	local prog=$1 trials=$2 label=$3 res bad st
	res=$pl_dir/$prog.res
	bad=$(awk -F'|' '$2 != "ok"' "$res" 2>/dev/null)
	st=0
	[ -n "$bad" ] && st=1
	[ "$(wc -l <"$res" 2>/dev/null)" = "$trials" ] || st=1
	RB_CASE_DIR=""
	tap_diag "$label: victim/point: $(awk '{ print $2 "/" $3 }' "$res" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }')"
	tap_diag "$label: survivor's phase: $(awk '{ print $4 }' "$res" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }')exit: $(awk '{ print $5 }' "$res" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }')slowest exit $(sort -k6 -g "$res" | tail -n1 | cut -d' ' -f6) s, trials $(awk '{ t += $7 } END { print t }' FS='[ |]' "$res") s"
	[ -n "${RB_PEERLOSS_KEEP:-}" ] && mkdir -p "$RB_PEERLOSS_KEEP" && cp -r "$pl_dir/." "$RB_PEERLOSS_KEEP/"
	if [ -n "$bad" ]; then
		echo "$bad" | while read -r n _; do
			tap_diag "trial $n: $(grep "^$n " "$res")"
			for f in server.err client.err; do
				echo "#   --- $f"
				tail -n 8 "$pl_dir/$prog/$n/$f" | sed 's/^/#     /'
			done
		done
	fi
	tap_ok "$st" "$label: $trials trials, SIGKILL/SIGSTOP of a random side at a random point: the other exits 0/1 within --timeout $pl_timeout + $pl_slack s, no hang, no crash"
}

for prog in $pl_progs; do
	pl_verdict "$prog" "$pl_trials" "$prog"
done

# -j 2: the same trials with two measuring threads a side (a few: each
# thread must notice, and the run end whole).  Their own folder, so that
# the figures above stay per benchmark.  Only the points from the QP
# exchange on, where the threads live (connecting, HELLO and the device
# are the single-thread code above): exchange, barrier, run, late,
# stop-exchange, stop-run.  The fast run's 6 trials take each once, with
# the rb_write_bw server SIGSTOPped at its QP exchange among them: when
# the stop lands after the barrier, its client's threads run, send DONE
# and wait for the server's (they once waited for ever, on a blocking
# socketpair: tests/unit/test_oob has the deterministic check); the full
# run's 12 per benchmark take each point with either victim.
pl_j_points="3 4 5 7 8 9"
pl_j_trials=${RB_PEERLOSS_THREAD_TRIALS:-$(rb_fast_full 3 12)}
pl_dir=$RB_TMP/peerloss-threads
mkdir -p "$pl_dir"
pl_j_port=19340
pl_jn=0
for prog in rb_send_bw rb_write_bw; do
	(pl_trials=$pl_j_trials; pl_worker "$prog" "$pl_j_port" "$(pl_args "$prog") -j 2" "$pl_jn" "$pl_j_points") &
	pl_j_port=$((pl_j_port + 1))
	pl_jn=$((pl_jn + 1))
done
wait
for prog in rb_send_bw rb_write_bw; do
	pl_verdict "$prog" "$pl_j_trials" "$prog -j 2"
done

# ---- SIGINT: stop cleanly, print what was measured, marked partial, exit 1 ----

# pl_sigint NAME PROG ARGS SIDE FORMAT_ARGS CHECK: SIGINT to SIDE well into a
# 30 s run (1 s after the other side printed its header).  SIDE must exit 1
# and its output pass CHECK (in its folder $RB_CASE_DIR); the other side
# exit 0 or 1; both within 15 s; no sanitizer report.
pl_sigint() {
	local name=$1 prog=$2 args=$3 side=$4 fmt=$5 check=$6 t0 took other=server rc
	[ "$side" = server ] && other=client
	rb_case "$name"
	local cmd=("$RB_BIN/$prog" -d "$RB_DEV" -p 19399 --timeout "$pl_timeout" $args)
	local fs=() fc=()
	fmt=${fmt//@DIR@/$RB_CASE_DIR}
	if [ "$side" = server ]; then fs=($fmt); else fc=($fmt); fi
	pl_launch "$RB_CASE_DIR" server "${cmd[@]}" "${fs[@]}"
	wait_listen 19399
	pl_launch "$RB_CASE_DIR" client "${cmd[@]}" "${fc[@]}" "$RB_IP"
	pl_wait_for "$RB_CASE_DIR" "$side" "$other.out" '^ Command ' && sleep 1
	t0=$(date +%s%N)
	kill -INT "$(cat "$RB_CASE_DIR/$side.pid")"
	pl_wait_end "$RB_CASE_DIR" server 20 && pl_wait_end "$RB_CASE_DIR" client 20
	took=$((($(date +%s%N) - t0) / 1000000))
	for f in server client; do
		pl_ended "$RB_CASE_DIR" "$f" || kill -KILL "$(cat "$RB_CASE_DIR/$f.pid")" 2>/dev/null
	done
	wait
	rc=$(cut -d' ' -f1 "$RB_CASE_DIR/$side.rc")
	tap_diag "$name: $side exit $rc, $other exit $(cut -d' ' -f1 "$RB_CASE_DIR/$other.rc"), both within $took ms of SIGINT"
	[ "$took" -le 15000 ] && [ "$rc" = 1 ] &&
		case $(cut -d' ' -f1 "$RB_CASE_DIR/$other.rc") in 0 | 1) ;; *) false ;; esac &&
		! grep -Eq "$pl_sanitizer" "$RB_CASE_DIR/server.err" "$RB_CASE_DIR/client.err" &&
		eval "$check"
}

# (-j 2 busy-polls both vCPUs of the guest: rxe's own work and the
# passive server wait their turn, so the server's deadline for a silent
# client is 10 s here, not 3)
pl_sigint "sigint client threads json" rb_write_bw "-s 4096 -D 30 -j 2 --timeout 10" client '--json=@DIR@/client.json' \
	'rb_check "$(rb_file client.json)" "doc[\"status\"] == \"partial\"" "len(rows) == 1" "[t[\"thread\"] for t in rows[0][\"threads\"]] == [\"0\", \"1\"]" "all(t[\"iterations\"] > 0 for t in rows[0][\"threads\"])" "rows[0][\"iterations\"] == sum(t[\"iterations\"] for t in rows[0][\"threads\"])"'
tap_ok $? "SIGINT to a rb_write_bw -j 2 client mid-run: exit 1, JSON \"partial\" with both threads' figures, the total their sum"

pl_sigint "sigint client csv" rb_send_bw "-s 4096 -D 30" client '--csv=@DIR@/client.csv' \
	'rb_check "$(rb_file client.csv)" "status == \"partial\"" "r[\"iterations\"] > 0" "side[\"status\"] == \"partial\"" "comments == 0"'
tap_ok $? "SIGINT to a rb_send_bw client mid-run: exit 1, its CSV row, status partial in client.meta.json"

pl_sigint "sigint server json" rb_write_lat "-D 30" server '--json=@DIR@/server.json' \
	'rb_check "$(rb_file server.json)" "doc[\"status\"] == \"partial\"" "len(doc[\"results\"]) == 1"'
tap_ok $? "SIGINT to a rb_write_lat server mid-run: exit 1, JSON \"status\": \"partial\" with its result"

pl_sigint "sigint client human" rb_read_lat "-D 30" client '' \
	'grep -q "^Status: partial" "$(rb_file client.out)" && grep -Eq "^ +2 +[0-9]+ " "$(rb_file client.out)"'
tap_ok $? "SIGINT to a rb_read_lat client mid-run: exit 1, its row and 'Status: partial'"

pl_sigint "sigint server human" rb_send_bw "-s 4096 -D 30" server '' \
	'grep -q "^Status: partial" "$(rb_file server.out)" && grep -Eq "^ +4096 +[0-9]+ " "$(rb_file server.out)"'
tap_ok $? "SIGINT to a rb_send_bw server mid-run: exit 1, its row and 'Status: partial'"

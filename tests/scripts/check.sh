# shellcheck shell=bash
# tests/scripts/check.sh, sourced by tests/scripts.sh (its helpers: ok,
# skip, run, script; $tmp, $data): rb_check and the wait helpers of
# tests/integration/lib.sh, and tests/integration/lib/prometheus.sh on the
# host (in subshells: their counts come back through $tmp/counts).

# ---- rb_check (tests/integration/lib.sh): through run-all.sh's check
# server and in a python3 of its own, the same status and output ----
chk_case() { # NAME ARGS...: both ways; equal status and output
	local name=$1 a b sa sb
	shift
	a=$(cd "$tmp" && RB_CHECK_FIFO="" rb_check "$@")
	sa=$?
	b=$(cd "$tmp" && rb_check "$@")
	sb=$?
	[ "$sa" = "$sb" ] && [ "$a" = "$b" ] && [ "$sa" = "$chk_want" ]
	ok $? "rb_check, $name: status $sb ($sa in a python3 of its own, $chk_want wanted), the same output"
	[ "$a" = "$b" ] || { echo "# own: $a"; echo "# served: $b"; }
}
(
	RB_TMP=$tmp/it
	mkdir -p "$RB_TMP"
	tap_diag() { echo "# $*"; }
	# shellcheck source=tests/integration/lib.sh
	. "$top_srcdir/tests/integration/lib.sh"
	rb_check_serve
	f=$data/rb_write_bw-4096.csv
	chk_want=0 chk_case "a bandwidth row" "$f" 'bw(r, 4096, 200)' "status == 'complete'"
	chk_want=1 chk_case "a check that fails" "$f" 'bw(r, 4096, 201)'
	chk_want=1 chk_case "the second group fails" "$f" 'r is not None' -- "$f" 'len(rows) == 2'
	chk_want=1 chk_case "a missing file" "$tmp/none.csv" 'True'
	chk_want=1 chk_case "a bad expression" "$f" 'rows[7]'
	chk_want=0 chk_case "--meta-lines (rb_meta_lines)" --meta-lines "$f"
	rb_meta_lines "$f" | grep -qx '# test=rb_write_bw'
	ok $? "rb_meta_lines: the sidecar's metadata as '# KEY=VALUE' lines"
	cp "$f" "$tmp/rel.csv"
	chk_want=0 chk_case "a path relative to the working folder" rel.csv 'len(rows) == 1'
	n0=$(ls "$RB_TMP"/check.*.done 2>/dev/null | wc -l)
	# E[...]: the caller's environment, through the server too (the
	# variables the checks name sent along): set for the call, exported
	# after the server started (its own environment says otherwise), and
	# a shell variable not exported (not in E: a KeyError both ways)
	chk_want=0 RB_X=7 chk_case "E[...] (this shell's environment)" "$f" 'E["RB_X"] == "7"'
	export RB_CHK_LATE=after
	chk_want=0 chk_case "E[...] of a variable exported after the server started" "$f" \
		"E['RB_CHK_LATE'] == 'after' and 'HOME' in E"
	export -n RB_CHK_LATE
	chk_want=1 chk_case "E[...] of a shell variable not exported" "$f" 'E["RB_CHK_LATE"] == "after"'
	[ "$(ls "$RB_TMP"/check.*.done | wc -l)" = $((n0 + 3)) ] && [ "$n0" -ge 8 ]
	ok $? "rb_check: $((n0 + 3)) checks answered by the server, those that read E[...] among them"
	# rb_py: a program on stdin, served or in a python3 of its own: the
	# same stdout, stderr and status
	py_prog='import sys
print("argv", sys.argv[1:]); print("to stderr", file=sys.stderr)
sys.exit(int(sys.argv[1]))'
	pa=$(cd "$tmp" && RB_CHECK_FIFO="" rb_py 3 "a b" <<<"$py_prog" 2>"$tmp/pa.err")
	sa=$?
	pb=$(cd "$tmp" && rb_py 3 "a b" <<<"$py_prog" 2>"$tmp/pb.err")
	sb=$?
	[ "$sa" = 3 ] && [ "$sb" = 3 ] && [ "$pa" = "$pb" ] && [ "$pb" = "argv ['3', 'a b']" ] &&
		cmp -s "$tmp/pa.err" "$tmp/pb.err" && [ "$(cat "$tmp/pb.err")" = "to stderr" ] &&
		[ "$(ls "$RB_TMP"/check.*.done | wc -l)" = $((n0 + 4)) ]
	ok $? "rb_py: the program run by the server as by a python3 of its own (status $sb and $sa, stdout, stderr)"
	# rb_listening and rb_nap: no process started
	"$RB_PY" -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(30)' >"$tmp/port" &
	lpid=$!
	for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
	port=$(cat "$tmp/port")
	rb_listening "$port" && ! rb_listening $((port ^ 1))
	ok $? "rb_listening: a listener on $port seen, none on $((port ^ 1))"
	kill "$lpid"
	echo "rb_x: waiting for a client on port 1" >"$tmp/said"
	t0=$SECONDS
	wait_listen 1 "$tmp/said" && ((SECONDS - t0 < 2))
	ok $? "wait_listen PORT FILE: the server's 'waiting for a client on port PORT' is enough"
	true &
	wait $!
	t0=$SECONDS
	! wait_listen 1 "$tmp/none" $! && ((SECONDS - t0 < 2))
	ok $? "wait_listen PORT FILE PID: the server gone, no 10 s wait ($((SECONDS - t0)) s)"
	rb_case_dir "send_bw -R RC/x:y"
	[ "$RB_CASE_DIR" = "$RB_TMP/$(echo "send_bw -R RC/x:y" | tr -c "A-Za-z0-9_.-" _)" ]
	ok $? "rb_case_dir: the case's name, each other character made _, and a _ ($RB_CASE_DIR)"
	t0=$EPOCHREALTIME
	rb_nap 0.3
	dt=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
	[ -n "$RB_NAP_FD" ] && awk -v d="$dt" 'BEGIN { exit !(d >= 0.29 && d < 5) }'
	ok $? "rb_nap 0.3: $dt s, a read that times out (fd $RB_NAP_FD)"
	kill "$RB_CHECK_PID"
	wait "$RB_CHECK_PID" 2>/dev/null
	t0=$SECONDS
	out=$(RB_CHECK_WAIT_S=1 rb_check "$f" 'bw(r, 4096, 200)')
	st=$?
	[ "$st" = 0 ] && [[ $out == *"no answer from the check server"* ]] && ((SECONDS - t0 < 10))
	ok $? "rb_check, the server gone: answered in a python3 of its own after RB_CHECK_WAIT_S, saying so (status $st, $((SECONDS - t0)) s)"
	rb_check_stop
	echo "$n $failed" >"$tmp/counts"
)
read -r n failed <"$tmp/counts"

# ---- tests/integration/lib/prometheus.sh: Debian's prometheus on the host
# (rb-testbed --install), a static exporter (python3's http.server) ----
(
	RB_TMP=$tmp/prom
	mkdir -p "$RB_TMP/exp"
	# shellcheck source=tests/integration/lib/prometheus.sh
	. "$top_srcdir/tests/integration/lib/prometheus.sh"
	names=("prom_start, prom_wait: the exporter's metric, its value and labels"
		"prom_query: an expression prometheus refuses is status 1, its error said"
		"prom_start on a port in use: status 1 at once, saying so"
		"prom_start, prometheus exits (a configuration it refuses): status 1, its log's tail shown")
	if ! command -v prometheus >/dev/null; then
		for c in "${names[@]}"; do skip "$c" "no prometheus (Debian: prometheus; rb-testbed --install)"; done
		echo "$n $failed" >"$tmp/counts"
		exit 0
	fi
	value=$((1000 + RANDOM)) eport=$((20000 + RANDOM % 20000))
	export PROM_PORT=$((eport + 1)) PROM_WAIT_S=60
	printf 'rb_prom_check{a="x"} %s\n' "$value" >"$RB_TMP/exp/metrics"
	(cd "$RB_TMP/exp" && exec python3 -m http.server "$eport" --bind 127.0.0.1) >/dev/null 2>&1 &
	epid=$!
	prom_start "$RB_TMP/p1" "127.0.0.1:$eport" 2>"$tmp/err" && got=$(prom_wait rb_prom_check 30 2>>"$tmp/err")
	[ "$got" = "rb_prom_check{a=\"x\",instance=\"127.0.0.1:$eport\",job=\"rb\"} $value" ] &&
		[ "$(prom_query "scalar(rb_prom_check * 2)")" = "$((value * 2))" ] &&
		grep -q "scrape_interval: 1s" "$RB_TMP/p1/prometheus.yml"
	ok $? "${names[0]} ($got)"
	out=$(prom_query 'rb_prom_check{' 2>&1)
	st=$?
	[ "$st" = 1 ] && [[ $out == *"bad_data"* ]]
	ok $? "${names[1]} ($out)"
	out=$( (PROM_PID="" PROM_WAIT_S=10; prom_start "$RB_TMP/p2" "127.0.0.1:$eport"; st=$?; prom_stop; exit $st) 2>&1)
	st=$?
	[ "$st" = 1 ] && [[ $out == *"127.0.0.1:$PROM_PORT is in use already"* ]] && [ ! -e "$RB_TMP/p2" ]
	ok $? "${names[2]} (status $st)"
	prom_stop
	out=$(prom_start "$RB_TMP/p3" "127.0.0.1:$eport'" 2>&1)
	st=$?
	[ "$st" = 1 ] && [[ $out == *"exited before it was ready"* && $out == *"log"*"its tail"*"prometheus.yml"* ]]
	ok $? "${names[3]} (status $st)"
	[ "$st" = 1 ] || echo "$out" | sed 's/^/# /'
	kill "$epid"
	wait "$epid" 2>/dev/null
	echo "$n $failed" >"$tmp/counts"
)
read -r n failed <"$tmp/counts"

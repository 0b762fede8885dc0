# shellcheck shell=bash
# tests/scripts/check.sh, sourced by tests/scripts.sh (its helpers: ok,
# skip, run, script; $tmp, $data): rb_check and the wait helpers of
# tests/integration/lib.sh (in a subshell: its counts come back through
# $tmp/counts).

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
	chk_want=0 RB_X=7 chk_case "E[...] (this shell's environment)" "$f" 'E["RB_X"] == "7"'
	[ "$(ls "$RB_TMP"/check.*.done | wc -l)" = "$n0" ] && [ "$n0" -ge 8 ]
	ok $? "rb_check: $n0 checks answered by the server, none that read E[...]"
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

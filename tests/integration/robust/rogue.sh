# needs: one-guest quiet
# Bad input at run time: rogue OOB clients, device and network options that
# cannot work, resource limits.  Sourced by run-all.sh (see lib.sh).  (An
# unknown -d is in feature/options.sh; option parsing in the unit tests and
# tests/fuzz_args.sh.)

rg_port=19400
rg_timeout=2

# ---- rogue clients against a --persistent server ----
#
# tests/integration/rogue.py CASE HOST PORT speaks the wire format (12-byte
# header: u32 magic "RDMB", u16 version 1, u16 type, u32 length; big endian)
# and breaks it one way per case.  After each, the server must have said why
# on stderr (ERE below), be alive and still listening; at the end a real
# client succeeds, and the server exits 0 on SIGTERM with its peak memory
# small (nothing sized by the peer) and no sanitizer report.

rg_cases=(
	"garbage|bad magic 0x47455420"
	"magic|bad magic 0xDEADBEEF"
	"version|protocol version 2, we speak 1"
	"length-4g|frame length 4294967295 exceeds the limit 65536"
	"type|unknown type 99"
	"truncated|timed out waiting for the payload .*10 of 100 bytes"
	"disconnect|closed the connection mid-payload \(10 of 100 bytes\)"
	"silent|timed out waiting for the header"
	"header-half|closed the connection mid-header \(6 of 12 bytes\)"
	"hello-count|HELLO message is malformed"
	"hello-big|HELLO message is malformed"
	"hello-name|HELLO message is malformed"
	"hello-params|parameter 999 that this version does not know"
	"error-frame|reported an error: \?\[2Jgo away"
	"qp-count|malformed QP list"
	"qp-length|malformed QP list"
	"qp-values|QP|MTU|mtu|ibv_modify_qp"
	"ready-then-close|closed the connection|nothing completed|gone"
)

# The cases below (tap_plan: lib.sh): one per rogue, a real client and the
# server's end after them, then 12.
tap_plan "${#rg_cases[@]} + 2 + 12"

rb_case "rogue"
rg_dir=$RB_CASE_DIR
rg_py=$top_srcdir/tests/integration/rogue.py
rg_srv=("$RB_BIN/rb_send_bw" -d "$RB_DEV" -x "$RB_GID_INDEX" -p "$rg_port" --timeout "$rg_timeout" -s 4096 -n 100)
# started directly, not under rb_start's timeout: the cases may take minutes
"${rg_srv[@]}" --persistent >"$rg_dir/server.out" 2>"$rg_dir/server.err" </dev/null &
rg_spid=$!
if ! wait_listen "$rg_port"; then
	tap_ok 1 "rogue: a --persistent rb_send_bw server listens on $rg_port"
else
	for c in "${rg_cases[@]}"; do
		name=${c%%|*} ere=${c#*|}
		before=$(wc -l <"$rg_dir/server.err")
		# rogue.py run by the check server (rb_py: no python3 start each);
		# its socket waits are 20 s each at most
		out=$(rb_py "$name" "$RB_IP" "$rg_port" <"$rg_py" 2>&1)
		# the server finishes with this client, then waits for the next
		for _ in $(seq 50); do
			rb_has "$rg_dir/server.err" "$ere" "$before" && break
			rb_nap 0.1
		done
		new=$(tail -n +"$((before + 1))" "$rg_dir/server.err")
		st=0
		echo "$new" | grep -Eq -- "$ere" || { st=1; tap_diag "no /$ere/ in the server's messages:"; tap_diag "$new"; }
		kill -0 "$rg_spid" 2>/dev/null || { st=1; tap_diag "the server is gone"; }
		wait_listen "$rg_port" || { st=1; tap_diag "the server no longer listens"; }
		if echo "$new" | grep -q $'\x1b'; then st=1; tap_diag "the server printed the peer's escape byte"; fi
		echo "$new" | grep -Eq 'Sanitizer|runtime error:' && st=1
		tap_diag "$name: $out; server: $(echo "$new" | grep -m1 'error:' | cut -c1-160)"
		RB_CASE_DIR=""
		tap_ok "$st" "rogue client ($name): the --persistent server says why and goes on"
		RB_CASE_DIR=$rg_dir
		kill -0 "$rg_spid" 2>/dev/null || break
	done

	rb_start client "exec $(printf '%q ' "${rg_srv[@]}") --csv=$rg_dir/client.csv \"\$RB_IP\""
	rb_wait client && rb_check "$rg_dir/client.csv" 'bw(r, 4096, 100)'
	tap_ok $? "after the rogues, a real client succeeds against the same server"

	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$rg_spid/status")
	kill -TERM "$rg_spid"
	wait "$rg_spid"
	st=$?
	tap_diag "server: exit $st after SIGTERM, peak RSS ${hwm:-?} KiB"
	[ "$st" = 0 ] && [ "${hwm:-999999}" -lt 262144 ] &&
		! grep -Eq 'Sanitizer|runtime error:' "$rg_dir/server.err"
	tap_ok $? "the server exits 0 on SIGTERM (its last client's status), peak RSS < 256 MiB, no sanitizer report"
fi

# ---- devices, ports, addresses ----

RB_CASE_DIR=""			# tap_ok: no pair's files to show
rg_slack=10			# s: starting and ending a sanitizer build under emulation

# rg_fails NAME 'ERE' CODES CMD...: CMD exits with one of CODES (e.g. "1 2")
# within 20 s, its stderr matching ERE.
rg_fails() {
	local name=$1 ere=$2 codes=$3 rc err
	shift 3
	err=$(timeout 20 "$@" 2>&1 >/dev/null)
	rc=$?
	case " $codes " in *" $rc "*) ;; *) tap_diag "$name: exit $rc, want one of $codes: $err"; return 1 ;; esac
	echo "$err" | grep -Eq -- "$ere" && { tap_diag "$name: exit $rc: $(echo "$err" | grep -m1 error)"; return 0; }
	tap_diag "$name: stderr does not match /$ere/: $err"
	return 1
}

rg_prog=("$RB_BIN/rb_send_bw" -d "$RB_DEV" -p "$((rg_port + 1))" --timeout "$rg_timeout")
rg_fails "-i 0" '-i/--ib-port' 2 "${rg_prog[@]}" -i 0
tap_ok $? "-i 0 (server): exit 2 naming -i/--ib-port"
rg_fails "-i 9" "port 9" "1 2" "${rg_prog[@]}" -i 9
tap_ok $? "-i 9 (server): exit 1 or 2 at once, naming port 9"
rg_fails "-x 5" "GID index 5" "1 2" "${rg_prog[@]}" -x 5
tap_ok $? "-x 5, an empty GID entry (server): exit 1 or 2 at once, naming GID index 5"
rg_fails "-x 1023" "GID index 1023" "1 2" "${rg_prog[@]}" -x 1023
tap_ok $? "-x 1023, an empty entry at the table's end (server): exit 1 or 2 at once, naming GID index 1023"
rg_fails "-x 1024" '-x/--gid-index' 2 "${rg_prog[@]}" -x 1024
tap_ok $? "-x 1024, past any table: exit 2 naming -x/--gid-index"

t0=$SECONDS
rg_fails "unreachable" "connecting to 192\.0\.2\.99:$((rg_port + 1)): (timed out|.*unreachable)" 1 \
	"${rg_prog[@]}" 192.0.2.99
st=$?
tap_diag "unreachable server: gave up after $((SECONDS - t0)) s (--timeout $rg_timeout)"
[ "$st" = 0 ] && [ $((SECONDS - t0)) -le $((rg_timeout + rg_slack)) ]
tap_ok $? "client of an unreachable server (192.0.2.99): exit 1 within --timeout + $rg_slack s naming host and port"

rg_fails "refused" "connecting to $RB_IP:$((rg_port + 1)): connection refused" 1 "${rg_prog[@]}" "$RB_IP"
tap_ok $? "client of a port nobody listens on: exit 1, 'connection refused' naming host and port"

python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", int(sys.argv[1]))); s.listen(1); time.sleep(30)' "$((rg_port + 1))" &
rg_holder=$!
wait_listen "$((rg_port + 1))"
rg_fails "port in use" "port $((rg_port + 1)) is already in use.*-p" 1 "${rg_prog[@]}"
tap_ok $? "server on a port in use: exit 1 naming the port and -p"
kill "$rg_holder" 2>/dev/null
wait "$rg_holder" 2>/dev/null

rg_fails "--bind foreign" "192\.0\.2\.99.*not an address of this host" 1 "${rg_prog[@]}" --bind 192.0.2.99
tap_ok $? "--bind 192.0.2.99 (not ours): exit 1 naming the address"

# --bind 127.0.0.1: listens there only; a client on $RB_IP is refused, one
# on 127.0.0.1 is served (the OOB address does not choose the RDMA path).
rb_case "bind"
rb_start server "exec $(printf '%q ' "${rg_prog[@]}") --bind 127.0.0.1 -s 4096 -n 100"
wait_listen "$((rg_port + 1))"
ss -Hltn "sport = :$((rg_port + 1))" | awk '{ print $4 }' >"$RB_CASE_DIR/listen"
rg_fails "--bind refused" "connection refused" 1 "${rg_prog[@]}" -s 4096 -n 100 "$RB_IP"
st=$?
rb_start client "exec $(printf '%q ' "${rg_prog[@]}") -s 4096 -n 100 127.0.0.1"
rb_wait client server && [ "$st" = 0 ] && [ "$(cat "$RB_CASE_DIR/listen")" = "127.0.0.1:$((rg_port + 1))" ]
tap_ok $? "--bind 127.0.0.1: listens on 127.0.0.1 only ($(cat "$RB_CASE_DIR/listen" | paste -sd' ')); a client via 127.0.0.1 succeeds"

# ---- resource limits ----

# RLIMIT_MEMLOCK: root has CAP_IPC_LOCK, which the kernel lets past the
# limit, so the client runs as nobody (setpriv drops every capability).
rb_case "memlock"
rg_uverbs=$(ls /dev/infiniband/uverbs* 2>/dev/null | head -n1)
if ! command -v setpriv >/dev/null; then
	tap_skip "ulimit -l 64 as a non-root user" "no setpriv"
elif [ "$(id -u)" != 0 ]; then
	tap_skip "ulimit -l 64 as a non-root user" "the test needs root to drop privileges"
elif ! setpriv --reuid=nobody --regid=nogroup --clear-groups -- test -r "$rg_uverbs" -a -w "$rg_uverbs" -a -x "$RB_BIN/rb_write_bw"; then
	tap_skip "ulimit -l 64 as a non-root user" "nobody cannot use $rg_uverbs or run $RB_BIN/rb_write_bw"
else
	rg_mem=("$RB_BIN/rb_write_bw" -d "$RB_DEV" -x "$RB_GID_INDEX" -p "$((rg_port + 2))" --timeout "$rg_timeout" -s 1M -n 10)
	rb_start server "exec $(printf '%q ' "${rg_mem[@]}")"
	wait_listen "$((rg_port + 2))"
	rb_start client "ulimit -l 64 && exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- $(printf '%q ' "${rg_mem[@]}") \"\$RB_IP\""
	rb_wait client server
	tap_diag "uverbs: $(stat -c '%A %U' "$rg_uverbs" 2>/dev/null); client: $(grep -m1 error "$RB_CASE_DIR/client.err")"
	rb_failed 1 'locked-memory limit is 64 KiB.*ulimit -l' client && rb_failed 1 '.' server
	tap_ok $? "ulimit -l 64, -s 1M as nobody: exit 1, the message names the 64 KiB limit and ulimit -l"
fi

# Far more than the guest has: refused before any mmap or registration.
rb_bench "too big" rb_send_bw "-s 1G -q 64 -n 10"
rb_failed 1 'does not fit: .*(MemAvailable|available)' && ! grep -q 'register' "$RB_CASE_DIR/server.err"
tap_ok $? "-s 1G -q 64: both exit 1 saying the buffer does not fit the available memory, nothing registered"

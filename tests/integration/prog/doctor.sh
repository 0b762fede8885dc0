# needs: one-guest quiet delay-build
# rb_doctor, the errors explained, --loopback: each fault injected for real.
# Sourced by run-all.sh (see lib.sh).
#
# A healthy test bed passes every doctor check (a warning only where it is
# true: the MTU held below the port's maximum by a 1500 B netdev); rb_doctor
# HOST against rb_doctor --server passes the comparison and every probe step.
# Faults, each named by the doctor (and by the benchmark where one runs):
# the netdev under rxe set down; `ulimit -l 64` for a user without
# CAP_IPC_LOCK; no huge pages with --hugepages; and, through the
# --enable-test-faults build in build-delay/ (RB_DELAY_BIN), a receiver
# that posts no receives (RNR) and a wrong rkey.  --loopback runs every
# benchmark and leaves no process behind, also when it is killed.
# rxe offers only RoCE v2 GIDs (checked below), so one side on v1 and the
# other on v2 cannot be set up here: tests/unit/test_doctor.c compares such
# facts instead.

# The cases below, skips included (tap_plan: lib.sh): 21 and one
# --loopback case per benchmark of bench/list.h.
tap_plan $((21 + $(grep -c '^BENCH(' "$top_srcdir/bench/list.h")))

t25_fault_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}
t25_port=18600

# t25_run NAME CMD: CMD (bash -c, 120 s at most) into a fresh case folder:
# client.out, client.err, client.rc.
t25_run() {
	rb_case "$1"
	timeout -k 5 120 bash -c "$2" >"$RB_CASE_DIR/client.out" 2>"$RB_CASE_DIR/client.err" </dev/null
	echo $? >"$RB_CASE_DIR/client.rc"
}
t25_rc() { cat "$RB_CASE_DIR/client.rc"; }
# The doctor's line of check NAME: "STATUS NAME observed".
t25_line() { grep -E "^(ok|warn|fail) +$1 " "$RB_CASE_DIR/client.out"; }
t25_status() { t25_line "$1" | awk '{ print $1 }'; }

# t25_pair NAME BIN ENV: rb_doctor --server and rb_doctor RB_IP, both from
# BIN with the environment ENV (e.g. RB_TEST_FAULT=no-recv).
t25_pair() {
	rb_case "$1"
	timeout -k 5 330 env $3 "$2/rb_doctor" -d "$RB_DEV" --server -p $t25_port --timeout 10 \
		>"$RB_CASE_DIR/server.out" 2>"$RB_CASE_DIR/server.err" </dev/null &
	local spid=$!
	wait_listen $t25_port
	timeout -k 5 300 env $3 "$2/rb_doctor" -d "$RB_DEV" -p $t25_port --timeout 10 "$RB_IP" \
		>"$RB_CASE_DIR/client.out" 2>"$RB_CASE_DIR/client.err" </dev/null
	echo $? >"$RB_CASE_DIR/client.rc"
	kill -TERM "$spid" 2>/dev/null
	wait "$spid"
	echo $? >"$RB_CASE_DIR/server.rc"
}

# ---- a healthy test bed -------------------------------------------------------

t25_run "doctor: healthy" '"$RB_BIN/rb_doctor" -d "$RB_DEV"'
bad=$(grep -E '^(warn|fail) ' "$RB_CASE_DIR/client.out" | grep -vE '^warn +MTU +active 1024 B .*max 4096 B')
tap_diag "$(grep -E '^(warn|fail)' "$RB_CASE_DIR/client.out")"
[ "$(t25_rc)" = 0 ] && [ -z "$bad" ] && grep -q '^summary: .* 0 fail' "$RB_CASE_DIR/client.out"
tap_ok $? "rb_doctor: a healthy test bed passes (exit 0, no failure, only the MTU warning the 1500 B netdev makes true)"

missing=""
for c in devices "port state" "physical state" "link layer" "GID table" "GID index" MTU \
	"ulimit -l" rdma_cm NUMA "CPU governor"; do
	t25_line "$c" >/dev/null || missing="$missing, $c"
done
[ -z "$missing" ]
tap_ok $? "rb_doctor: every local check reported${missing:+ (missing$missing)}"

t25_line "GID index" | grep -qE "^ok +GID index +$RB_GID_INDEX, as the benchmarks choose: RoCE v2"
tap_ok $? "rb_doctor: the GID index is the test bed's ($RB_GID_INDEX), RoCE v2, with the reason"

t25_line "GID table" | grep -qE ' 0 RoCE v1,'
tap_ok $? "rxe offers RoCE v2 GIDs only (no v1 entry: a v1/v2 mismatch cannot be made here)"

t25_run "doctor: json" '"$RB_BIN/rb_doctor" -d "$RB_DEV" --json'
n=$(json_get "$RB_CASE_DIR/client.out" 'len(d["checks"])' 2>/dev/null)
st=$(json_get "$RB_CASE_DIR/client.out" 'd["status"]' 2>/dev/null)
[ "$(t25_rc)" = 0 ] && [ "${n:-0}" -ge 11 ] && [ "$st" = warn ]
tap_ok $? "rb_doctor --json: one document, $n checks, status $st"

t25_pair "doctor: pair" "$RB_BIN" ""
tap_diag "$(grep -E '^(ok|warn|fail) +(peer|probe)' "$RB_CASE_DIR/client.out")"
[ "$(t25_rc)" = 0 ] && [ "$(grep -cE '^ok +probe ' "$RB_CASE_DIR/client.out")" = 7 ] &&
	[ "$(grep -cE '^ok +peer ' "$RB_CASE_DIR/client.out")" = 6 ]
tap_ok $? "rb_doctor HOST: 6 comparisons and 7 probe steps (RC send/write/read/atomic, UC write, UD send, rdma_cm) ok"

# ---- faults -----------------------------------------------------------------------

# The netdev under rxe down: the port goes DOWN.
nd=$(cat /sys/class/infiniband/"$RB_DEV"/ports/1/gid_attrs/ndevs/"$RB_GID_INDEX" 2>/dev/null)
if [ -n "$nd" ] && ip link set "$nd" down 2>/dev/null; then
	sleep 1
	t25_run "doctor: port down" '"$RB_BIN/rb_doctor" -d "$RB_DEV"'
	tap_diag "$(grep -A1 -E '^fail' "$RB_CASE_DIR/client.out")"
	[ "$(t25_rc)" = 1 ] && t25_status "port state" | grep -qx fail &&
		grep -q "ip link set $nd up" "$RB_CASE_DIR/client.out"
	tap_ok $? "rb_doctor: port down ($nd down): port state fails, says 'ip link set $nd up', exit 1"
	t25_run "write_bw: port down" '"$RB_BIN/rb_write_bw" -d "$RB_DEV" --loopback -n 100 --timeout 3'
	tap_diag "$(grep error "$RB_CASE_DIR/client.err" | head -3)"
	[ "$(t25_rc)" = 1 ] && grep -qiE 'not ACTIVE|DOWN|state' "$RB_CASE_DIR/client.err"
	tap_ok $? "rb_write_bw --loopback with the port down: exit 1 naming the port state"
	ip link set "$nd" up
	for ((i = 0; i < 200; i++)); do
		grep -q ACTIVE /sys/class/infiniband/"$RB_DEV"/ports/1/state && \
			[ -n "$(cat /sys/class/infiniband/"$RB_DEV"/ports/1/gids/"$RB_GID_INDEX" 2>/dev/null | tr -d ':0')" ] && break
		rb_nap 0.1
	done
	ip addr show "$nd" | grep -q "inet $RB_IP/" || ip addr add "$RB_IP/24" dev "$nd" 2>/dev/null
	sleep 1
	t25_run "doctor: port up again" '"$RB_BIN/rb_doctor" -d "$RB_DEV"'
	[ "$(t25_rc)" = 0 ]
	tap_ok $? "rb_doctor: passes again once $nd is up"
else
	t25_why="cannot set the netdev of $RB_DEV down (${nd:-none found})"
	tap_skip "rb_doctor: port down fails the port state" "$t25_why"
	tap_skip "rb_write_bw --loopback with the port down" "$t25_why"
	tap_skip "rb_doctor: passes again once the port is up" "$t25_why"
fi

# ulimit -l 64 for a user without CAP_IPC_LOCK (root's capability lifts the limit).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod a+rw /dev/infiniband/* 2>/dev/null
	t25_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
	t25_run "doctor: ulimit -l 64" "ulimit -l 64; $t25_nobody \"\$RB_BIN/rb_doctor\" -d \"\$RB_DEV\""
	tap_diag "$(t25_line 'ulimit -l')"
	[ "$(t25_rc)" = 1 ] && t25_status "ulimit -l" | grep -qx fail &&
		t25_line "ulimit -l" | grep -q "64 KiB" && grep -q "ulimit -l unlimited" "$RB_CASE_DIR/client.out"
	tap_ok $? "rb_doctor: ulimit -l 64 fails the locked-memory check, names the limit and the fix"
	t25_run "write_bw: ulimit -l 64" "ulimit -l 64; $t25_nobody \"\$RB_BIN/rb_write_bw\" -d \"\$RB_DEV\" --loopback -n 100 --timeout 3"
	tap_diag "$(grep -m2 error "$RB_CASE_DIR/client.err")"
	[ "$(t25_rc)" = 1 ] && grep -q "ulimit -l" "$RB_CASE_DIR/client.err"
	tap_ok $? "rb_write_bw --loopback under ulimit -l 64: exit 1 naming ulimit -l"
else
	tap_skip "rb_doctor: ulimit -l 64" "needs root (to drop to another user) and setpriv"
	tap_skip "rb_write_bw --loopback under ulimit -l 64" "needs root (to drop to another user) and setpriv"
fi

# --hugepages with none reserved, then with some.
if [ -w /proc/sys/vm/nr_hugepages ]; then
	old=$(cat /proc/sys/vm/nr_hugepages)
	echo 0 >/proc/sys/vm/nr_hugepages
	t25_run "doctor: no hugepages" '"$RB_BIN/rb_doctor" -d "$RB_DEV" --hugepages'
	[ "$(t25_rc)" = 1 ] && t25_status hugepages | grep -qx fail && grep -q nr_hugepages "$RB_CASE_DIR/client.out"
	tap_ok $? "rb_doctor --hugepages: none reserved fails, says how to reserve them"
	echo 8 >/proc/sys/vm/nr_hugepages
	t25_run "doctor: hugepages" '"$RB_BIN/rb_doctor" -d "$RB_DEV" --hugepages'
	t25_status hugepages | grep -qx ok
	tap_ok $? "rb_doctor --hugepages: 8 reserved pass ($(t25_line hugepages))"
	echo "$old" >/proc/sys/vm/nr_hugepages
else
	tap_skip "rb_doctor --hugepages: none reserved" "/proc/sys/vm/nr_hugepages is not writable"
	tap_skip "rb_doctor --hugepages: 8 reserved" "/proc/sys/vm/nr_hugepages is not writable"
fi

# A receiver that posts no receives, and a wrong rkey (the faults build).
if [ -x "$t25_fault_bin/rb_doctor" ] && [ -x "$t25_fault_bin/rb_send_bw" ]; then
	t25_run "send_bw: RNR" "RB_TEST_FAULT=no-recv \"$t25_fault_bin/rb_send_bw\" -d \"\$RB_DEV\" --loopback -n 100 --timeout 5"
	tap_diag "$(grep -m1 'completion error' "$RB_CASE_DIR/client.err")"
	[ "$(t25_rc)" = 1 ] && grep -q 'IBV_WC_RNR_RETRY_EXC_ERR (13): likely receiver not ready' "$RB_CASE_DIR/client.err"
	tap_ok $? "rb_send_bw, receiver posting no receives: IBV_WC_RNR_RETRY_EXC_ERR explained, exit 1"
	t25_pair "doctor: RNR" "$t25_fault_bin" RB_TEST_FAULT=no-recv
	tap_diag "$(grep -A1 'probe RC send' "$RB_CASE_DIR/client.out")"
	t25_line "probe RC send" | grep -q '^fail .*IBV_WC_RNR_RETRY_EXC_ERR' &&
		grep -A1 'probe RC send' "$RB_CASE_DIR/client.out" | grep -q -- '-> likely receiver not ready.*check that the peer runs the same benchmark and posts receives'
	tap_ok $? "rb_doctor HOST, server posting no receives: probe RC send fails with RNR and what to check"

	t25_run "write_bw: bad rkey" "RB_TEST_FAULT=bad-rkey \"$t25_fault_bin/rb_write_bw\" -d \"\$RB_DEV\" --loopback -n 100 --timeout 5"
	tap_diag "$(grep -m1 'completion error' "$RB_CASE_DIR/client.err")"
	[ "$(t25_rc)" = 1 ] && grep -qE 'IBV_WC_REM_(ACCESS|INV_REQ)_ERR \([0-9]+\): likely .*rkey' "$RB_CASE_DIR/client.err"
	tap_ok $? "rb_write_bw with a wrong rkey: a remote access error naming the rkey, exit 1"
	t25_pair "doctor: bad rkey" "$t25_fault_bin" RB_TEST_FAULT=bad-rkey
	tap_diag "$(grep -E '^(ok|fail) +probe' "$RB_CASE_DIR/client.out")"
	t25_line "probe RC write" | grep -qE '^fail .*IBV_WC_REM_(ACCESS|INV_REQ)_ERR' &&
		t25_line "probe RC read" | grep -q '^fail' && t25_line "probe RC send" | grep -q '^ok'
	tap_ok $? "rb_doctor HOST with a wrong rkey: write and read fail with the remote access error, send passes"
else
	for c in "rb_send_bw, receiver posting no receives" "rb_doctor HOST, server posting no receives" \
		"rb_write_bw with a wrong rkey" "rb_doctor HOST with a wrong rkey"; do
		tap_skip "$c" "no --enable-test-faults build in $t25_fault_bin"
	done
fi

# ---- --loopback -----------------------------------------------------------------

for b in $(sed -n 's/^BENCH(\([a-z0-9_]*\))$/\1/p' "$top_srcdir/bench/list.h"); do   # every benchmark
	t25_run "loopback $b" "\"\$RB_BIN/rb_$b\" -d \"\$RB_DEV\" --loopback -n 200 --json"
	# "ROWS ITERATIONS STATUS" of the JSON document on stdout
	got=$(rb_py "$RB_CASE_DIR/client.out" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
print(len(r), r[0]["iterations"] if r else "-", d["status"])
PY
)
	left=$(pgrep -c -x "rb_$b")
	[ "$(t25_rc)" = 0 ] && [ "$got" = "1 200 complete" ] && [ "$left" = 0 ]
	tap_ok $? "rb_$b --loopback: one row of 200 iterations on stdout, status complete, no process left ($got; $left left)"
done

t25_run "loopback -R" '"$RB_BIN/rb_read_lat" -d "$RB_DEV" --loopback -R -n 100 --csv'
[ "$(t25_rc)" = 0 ] && [ "$(csv_col "$RB_CASE_DIR/client.out" iterations)" = 100 ]
tap_ok $? "rb_read_lat --loopback -R: through rdma_cm, one row"

t25_run "loopback HOST" '"$RB_BIN/rb_write_bw" --loopback "$RB_IP"'
[ "$(t25_rc)" = 2 ] && grep -q -- '--loopback runs both sides here: give no HOST' "$RB_CASE_DIR/client.err"
tap_ok $? "rb_write_bw --loopback HOST: usage error, exit 2"

# Killed mid-run: SIGTERM ends both sides, SIGKILL of the parent ends the
# server child too (PR_SET_PDEATHSIG); nothing is left.
for sig in TERM KILL; do
	rb_case "loopback kill $sig"
	"$RB_BIN/rb_write_bw" -d "$RB_DEV" --loopback -D 60 >"$RB_CASE_DIR/client.out" 2>"$RB_CASE_DIR/client.err" &
	lpid=$!
	for ((i = 0; i < 100; i++)); do rb_pcount t25_n rb_write_bw; ((t25_n >= 2)) && break; rb_nap 0.1; done
	n_before=$(pgrep -c -x rb_write_bw)
	cpid=$(pgrep -P $lpid -x rb_write_bw)
	sleep 2
	kill -$sig $lpid
	wait $lpid 2>/dev/null
	for ((i = 0; i < 100; i++)); do rb_pcount t25_n rb_write_bw; ((t25_n == 0)) && break; rb_nap 0.1; done
	left=$(pgrep -c -x rb_write_bw)
	[ "$n_before" = 2 ] && [ "$left" = 0 ]
	tap_ok $? "rb_write_bw --loopback -D 60, SIG$sig to the command: 2 processes before, $left left within 10 s"
	[ -z "$cpid" ] || kill -KILL "$cpid" 2>/dev/null
done
true

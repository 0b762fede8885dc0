# --validate on every benchmark that moves data (the atomics check
# themselves and refuse it): healthy runs check every message they can with
# no error (the rows of both sides agree), and the faults build
# (--enable-test-faults, build-delay/ or RB_DELAY_BIN) with
# RB_TEST_FAULT=corrupt, which flips byte size/2 of slot 0 of QP 0 where
# the payload is sent or read from, is caught: exit 1, the error named on
# stderr, the row saying which message and byte.  Sourced by run-all.sh.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 15

t28_fault_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}

# t28_ok NAME PROG ARGS CHECKED: both sides complete, CHECKED messages
# checked (a python expression over r), none wrong.
t28_ok() {
	rb_csv "validate $1" "$2" "--validate $3" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' \
			"int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0' &&
		rb_check "$(rb_file server.csv)" "int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0'
	tap_ok $? "$2 --validate $3: messages checked $4, none wrong, on both sides"
}

t28_ok send_bw rb_send_bw "-n 200 -s 64" "== 200"
t28_ok "send_bw 2 QPs" rb_send_bw "-n 300 -s 4096 -q 2" "== 600"
t28_ok "send_bw UC" rb_send_bw "-c UC -n 200 -s 1000" "== 200"
t28_ok "send_bw UD" rb_send_bw "-c UD -n 200 -s 1024" "> 0"
t28_ok "send_bw short" rb_send_bw "-n 100 -s 5" "== 100"
t28_ok send_lat rb_send_lat "-n 100 -s 256" ">= 200"
t28_ok write_bw rb_write_bw "-n 200 -s 64" "== 64"
t28_ok "write_bw 64K" rb_write_bw "-n 50 -s 65536" "== 1"
t28_ok write_lat rb_write_lat "-n 100 -s 256" "== 2"
t28_ok read_bw rb_read_bw "-n 200 -s 64" "== 200"
t28_ok "read_bw 2 QPs 64K" rb_read_bw "-n 50 -s 65536 -q 2" "== 100"
t28_ok read_lat rb_read_lat "-n 100 -s 256" ">= 100"

# The cost, side by side in one boot: figures only (emulation is noisy),
# no check, so only in the full run (RB_FULL=1): 600 MiB through rxe, a
# minute of the fast run's CPU for nothing it proves.
t28_cost=()
rb_full && t28_cost=("rb_send_bw|-s 65536 -n 2000" "rb_send_bw|-s 64 -n 20000" "rb_write_bw|-s 65536 -n 2000"
	"rb_read_bw|-s 65536 -n 2000")
for c in "${t28_cost[@]}"; do
	prog=${c%%|*} args=${c#*|} line=
	for v in "" --validate; do
		rb_csv "cost $prog $args $v" "$prog" "$args $v" >/dev/null 2>&1
		line="$line ${v:-plain} $(csv_col "$(rb_file client.csv)" bw_avg_mibps | tail -1) MiB/s"
	done
	tap_diag "cost: $prog $args:$line"
done

# t28_fault NAME PROG ARGS: the faults build with RB_TEST_FAULT=corrupt.
# -n 10 at 64 B: only message 0 comes from slot 0 (64 slots).
t28_fault() {
	local b="\"$t28_fault_bin/$2\" -d \"\$RB_DEV\"${RB_LANE_PORT:+ -p $RB_LANE_PORT}"

	rb_pair "validate fault $1" "RB_TEST_FAULT=corrupt $b --validate $3 --csv=\$RB_CASE_DIR/server.csv" \
		"RB_TEST_FAULT=corrupt $b --validate $3 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
	tap_diag "$(grep -m1 -- '--validate' "$RB_CASE_DIR/client.err")"
	[ "$(cat "$RB_CASE_DIR/client.rc")" = 1 ] && [ "$(cat "$RB_CASE_DIR/server.rc")" = 1 ] &&
		grep -q -- '--validate at size 64: 1 of [0-9]* messages checked had a wrong payload; the first: message 0 of QP 0, byte 32' \
			"$RB_CASE_DIR/client.err" &&
		rb_check "$(rb_file client.csv)" 'int(r["validate_errors"]) == 1' \
			'int(float(r["validate_first_msg"])) == 0' 'int(float(r["validate_first_offset"])) == 32'
	tap_ok $? "$2 --validate, one message's byte 32 flipped (RB_TEST_FAULT=corrupt): found, exit 1 on both sides"
}

if [ -x "$t28_fault_bin/rb_read_bw" ]; then
	t28_fault send_bw rb_send_bw "-n 10 -s 64"
	t28_fault write_bw rb_write_bw "-n 10 -s 64"
	t28_fault read_bw rb_read_bw "-n 10 -s 64"
else
	for c in rb_send_bw rb_write_bw rb_read_bw; do
		tap_skip "$c --validate catching a corrupted message" "no faults build in $t28_fault_bin (set RB_DELAY_BIN)"
	done
fi

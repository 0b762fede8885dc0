# needs: one-guest lane delay-build
# --validate on every benchmark that moves data (rb_atomic_bw's, each
# result checked, is in feature/semantics.sh): healthy runs check every message they can with
# no error (the rows of both sides agree, the metadata names the method),
# and the faults build (--enable-test-faults, build-delay/ or RB_DELAY_BIN)
# is caught: exit 1, the error named on stderr, the row saying which
# message and byte.  RB_TEST_FAULT=corrupt flips byte size/2 of message 0
# of QP 0 (slot 0 of a read responder); corrupt-late that of message 5;
# stale posts every WR of QP 0 after the first with length 0 (it moves
# nothing).  At 4 KiB every message uses one slot, so before each message
# carried its sequence number (a payload per slot) a transfer that moved
# nothing after the first was invisible: stale and corrupt-late at 4 KiB
# passed the old checks.  Sourced by run-all.sh.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 26

t28_fault_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}

# t28_ok NAME PROG ARGS CHECKED: both sides complete, CHECKED messages
# checked (a python expression over r), none wrong, the method named.
t28_ok() {
	local method=per-message
	[[ $2 != rb_write_* ]] || method=final-slot-content
	rb_csv "validate $1" "$2" "--validate $3" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' \
			"int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0' \
			"meta['validate_method'] == '$method'" &&
		rb_check "$(rb_file server.csv)" "int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0'
	tap_ok $? "$2 --validate $3: messages checked $4, none wrong, on both sides ($method)"
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
t28_ok "send_bw 4K -t 4" rb_send_bw "-n 300 -s 4096 -t 4" "== 300"
t28_ok "send_bw -b" rb_send_bw "-b -n 200 -s 512" "== 400"
t28_ok "send_bw -l 4" rb_send_bw "-n 200 -s 64 -l 4" "== 200"
t28_ok "write_bw -D" rb_write_bw "-D 1 -s 64" "== 64"
t28_ok "read_bw -t 256" rb_read_bw "-n 600 -s 128 -t 256" "== 600"

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

# t28_fault NAME FAULT PROG ARGS MSG BYTE: the faults build with
# RB_TEST_FAULT=FAULT: both sides exit 1, the first wrong one is message
# MSG of QP 0, byte BYTE.
t28_fault() {
	local b="\"$t28_fault_bin/$3\" -d \"\$RB_DEV\"${RB_LANE_PORT:+ -p $RB_LANE_PORT}" size
	size=$(sed 's/.*-s \([0-9]*\).*/\1/' <<<"$4")

	rb_pair "validate fault $1" "RB_TEST_FAULT=$2 $b --validate $4 --csv=\$RB_CASE_DIR/server.csv" \
		"RB_TEST_FAULT=$2 $b --validate $4 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
	tap_diag "$(grep -m1 -- '--validate' "$RB_CASE_DIR/client.err")"
	[ "$(cat "$RB_CASE_DIR/client.rc")" = 1 ] && [ "$(cat "$RB_CASE_DIR/server.rc")" = 1 ] &&
		grep -q -- "--validate at size $size: [0-9]* of [0-9]* messages checked had a wrong payload; the first: message $5 of QP 0, byte $6" \
			"$RB_CASE_DIR/client.err" &&
		rb_check "$(rb_file client.csv)" 'int(r["validate_errors"]) >= 1' \
			"int(float(r['validate_first_msg'])) == $5" "int(float(r['validate_first_offset'])) == $6"
	tap_ok $? "$3 --validate $4, RB_TEST_FAULT=$2: message $5's byte $6 found wrong, exit 1 on both sides"
}

if [ -x "$t28_fault_bin/rb_read_bw" ]; then
	# -n 10 at 64 B: only message 0 comes from slot 0 (64 slots).
	t28_fault send_bw corrupt rb_send_bw "-n 10 -s 64" 0 32
	t28_fault write_bw corrupt rb_write_bw "-n 10 -s 64" 0 32
	t28_fault read_bw corrupt rb_read_bw "-n 10 -s 64" 0 32
	t28_fault "send_bw late" corrupt-late rb_send_bw "-n 10 -s 4096" 5 2048
	t28_fault "write_bw late" corrupt-late rb_write_bw "-n 10 -s 64" 5 32
	# moved nothing after message 0: the next message (sends, reads), or
	# the last one into slot 0 (writes), is found holding an older one
	t28_fault "send_bw stale" stale rb_send_bw "-n 10 -s 4096" 1 0
	t28_fault "send_bw UD stale" stale rb_send_bw "-c UD -n 10 -s 1024" 1 0
	t28_fault "write_bw stale" stale rb_write_bw "-n 10 -s 4096" 9 0
	t28_fault "read_bw stale" stale rb_read_bw "-n 10 -s 4096" 1 6
else
	for c in "send_bw" "write_bw" "read_bw" "send_bw late" "write_bw late" "send_bw stale" \
		"send_bw UD stale" "write_bw stale" "read_bw stale"; do
		tap_skip "rb_$c --validate catching a corrupted or stale message" "no faults build in $t28_fault_bin (set RB_DELAY_BIN)"
	done
fi

# needs: one-guest lane delay-build
# Immediate data and shared receive queues (#36): --write_with_imm,
# --send_with_imm, --use_srq, --recv_post_list.  Each run is checked
# against something the sender did not write: the receiver's own count of
# receive completions (the server's row against the client's), the
# receiver's check of every immediate (each QP's sequence number: a
# wrong one is exit 1, proven with the faults build's imm-skip), and
# --validate's per-QP check of every payload, which with an SRQ finds each
# message's QP by the completion's qp_num (RC: message c of QP j must be
# QP j's c-th).  The wire's opcodes are prog/wire.sh's.  Short runs:
# emulation takes seconds a pair.  Sourced by run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 14

imm_fault_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}

# imm_ok NAME PROG ARGS CLIENT-CHECK... -- SERVER-CHECK...: a complete pair,
# rb_check's expressions over each side's row and metadata.
imm_ok() {
	local name=$1 prog=$2 args=$3 t0=$SECONDS st
	shift 3
	rb_csv "$name" "$prog" "$args --timeout 10" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' "$@"
	st=$?
	tap_diag "$name: $((SECONDS - t0)) s"
	return "$st"
}

# the receiver's count: the server's iterations (receive completions)
srv_iters() { csv_col "$(rb_file server.csv)" iterations | tail -1; }

imm_ok "write imm" rb_write_bw "--write_with_imm -s 64 -n 300 -q 2 --validate" \
	'bw(r, 64, 600)' "meta['immediate_data'].startswith('yes')" 'int(r["validate_errors"]) == 0' &&
	[ "$(srv_iters)" = 600 ]
tap_ok $? "rb_write_bw --write_with_imm -q 2: the target received and checked 600 immediates (its own count), the slots valid"

imm_ok "write imm rpl" rb_write_bw "--write_with_imm -s 64 -n 256 -l 4 --recv_post_list 16" \
	'bw(r, 64, 256)' "meta['recv_post_list'] == 16" && [ "$(srv_iters)" = 256 ]
tap_ok $? "rb_write_bw --write_with_imm --recv_post_list 16: 256 receives counted by the target"

imm_ok "write_lat imm" rb_write_lat "--write_with_imm -n 100" 'lat(r, 2, 100)' \
	"meta['immediate_data'].startswith('yes')"
tap_ok $? "rb_write_lat --write_with_imm: 100 ping-pongs, each side checking the other's immediates"

imm_ok "send imm" rb_send_bw "--send_with_imm -s 256 -n 300 -q 2" 'bw(r, 256, 600)' && [ "$(srv_iters)" = 600 ]
tap_ok $? "rb_send_bw --send_with_imm -q 2: 600 sent, 600 received with their immediates checked"

imm_ok "send_lat imm" rb_send_lat "--send_with_imm -n 100 --validate" 'lat(r, 2, 100)' \
	'int(r["validated_msgs"]) >= 200' 'int(r["validate_errors"]) == 0'
tap_ok $? "rb_send_lat --send_with_imm --validate: immediates and payloads checked both ways"

imm_ok "srq RC" rb_send_bw "--use_srq -q 4 -s 1024 -n 200 --validate --send_with_imm" 'bw(r, 1024, 800)' \
	"meta['srq'].startswith('yes')" &&
	rb_check "$(rb_file server.csv)" 'int(r["validated_msgs"]) == 800' 'int(r["validate_errors"]) == 0' &&
	[ "$(srv_iters)" = 800 ]
tap_ok $? "rb_send_bw --use_srq -q 4 RC: one queue, 800 received, each QP's 200 in order (--validate, immediates)"

imm_ok "srq UD" rb_send_bw "--use_srq -c UD -q 4 -s 1024 -n 200 --validate --send_with_imm" \
	"meta['srq'].startswith('yes')" &&
	rb_check "$(rb_file server.csv)" 'int(r["validated_msgs"]) == int(r["iterations"]) > 0' \
		'int(r["validate_errors"]) == 0'
tap_ok $? "rb_send_bw --use_srq -c UD -q 4 (perftest's completion errors): no error, every message received checked"

imm_ok "srq rpl" rb_send_bw "--use_srq --recv_post_list 8 -r 64 -q 4 -s 64 -n 256 --send_with_imm" \
	'bw(r, 64, 1024)' "meta['recv_post_list'] == 8" && [ "$(srv_iters)" = 1024 ]
tap_ok $? "rb_send_bw --use_srq --recv_post_list 8 -r 64 -q 4: receives posted 8 a call, 1024 received"

imm_ok "srq -j" rb_send_bw "--use_srq -j 2 -q 2 -s 1024 -n 100" 'bw(r, 1024, 400)' && [ "$(srv_iters)" = 400 ]
tap_ok $? "rb_send_bw --use_srq -j 2 -q 2: a queue per thread, 400 received"

imm_ok "srq -R" rb_send_bw "--use_srq -R -q 2 -s 1024 -n 100 --send_with_imm" 'bw(r, 1024, 200)' &&
	[ "$(srv_iters)" = 200 ]
tap_ok $? "rb_send_bw --use_srq -R -q 2: rdma_cm's QPs on the shared queue, 200 received and checked"

imm_ok "srq lat" rb_send_lat "--use_srq -n 100 --validate" 'lat(r, 2, 100)' 'int(r["validate_errors"]) == 0'
tap_ok $? "rb_send_lat --use_srq --validate: the ping-pong on a shared queue"

# one side with an SRQ, the other without: HELLO names it on both sides
rb_bench "srq one side" rb_send_bw "-n 10" "" "--use_srq"
[ "$(cat "$RB_CASE_DIR/client.rc")" = 1 ] && [ "$(cat "$RB_CASE_DIR/server.rc")" = 1 ] &&
	grep -q 'shared receive queue (--use_srq) differs: client off, server on' "$(rb_file client.err)"
tap_ok $? "--use_srq on the server only: both exit 1, HELLO naming it"

# refusals: exit 2, the option and the benchmark named
"$RB_BIN/rb_write_bw" --use_srq >/dev/null 2>"$RB_TMP/imm_refuse.err"
[ $? = 2 ] && grep -q 'error: --use-srq is not supported by rb_write_bw' "$RB_TMP/imm_refuse.err" &&
	{ "$RB_BIN/rb_send_bw" --use-srq -r 4 --recv_post_list 8 >/dev/null 2>"$RB_TMP/imm_refuse.err"; [ $? = 2 ]; } &&
	grep -q -- '--recv_post_list 8 is larger than -r/--rx-depth 4' "$RB_TMP/imm_refuse.err"
tap_ok $? "SRQ on a write test, a receive post list past the queue: exit 2, named"

# the faults build: QP 0's fourth immediate carries 4, not 3
if [ -x "$imm_fault_bin/rb_send_bw" ]; then
	b="\"$imm_fault_bin/rb_send_bw\" -d \"\$RB_DEV\"${RB_LANE_PORT:+ -p $RB_LANE_PORT} --send_with_imm --use_srq -q 2 -s 64 -n 20"
	rb_pair "imm fault" "RB_TEST_FAULT=imm-skip $b" "RB_TEST_FAULT=imm-skip $b \"\$RB_IP\""
	tap_diag "$(grep -m1 'immediate' "$RB_CASE_DIR/server.err")"
	[ "$(cat "$RB_CASE_DIR/server.rc")" = 1 ] &&
		grep -q 'immediate data on QP 0 (QPN 0x[0-9a-f]*) at size 64: expected sequence 3, got 4' "$RB_CASE_DIR/server.err"
	tap_ok $? "RB_TEST_FAULT=imm-skip: the receiver finds QP 0's sequence broken (expected 3, got 4), exit 1"
else
	tap_skip "the receiver catching a wrong immediate" "no faults build in $imm_fault_bin (set RB_DELAY_BIN)"
fi

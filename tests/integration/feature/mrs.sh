# needs: one-guest lane
# #36's many MRs and payload from a file.  --mr_per_qp: each QP's buffer
# and MR its own (src/verbs/qp_buf.c), the peer writing into and sending to
# each QP's own (--validate: every QP's messages checked against its own
# pattern, so a QP landing in another's buffer shows), -q 1024 completing
# with the MRs counted by the kernel (iproute2's `rdma resource show mr`,
# per process, while the run holds them: 1024 a side, 1 without the
# option), a run that cannot fit refused before any buffer is made.
# --payload_file_path: perftest's DWORD file as every message's payload,
# checked by --validate on the receiver and the write target, a payload
# that differs between the sides refused by HELLO, a bad file a usage
# error naming the option and the path.  Sourced by run-all.sh.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 10

# ---- --mr_per_qp ----

t36m_ok() { # NAME PROG ARGS CHECKED
	rb_csv "mrs $1" "$2" "--mr_per_qp --validate $3" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' "meta['mr_per_qp'] == 'yes'" \
			"int(meta['memory_regions']) == 4" "int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0' &&
		rb_check "$(rb_file server.csv)" "meta['mr_per_qp'] == 'yes'" "int(meta['memory_regions']) == 4" \
			"int(r['validated_msgs']) $4" 'int(r["validate_errors"]) == 0'
	tap_ok $? "$2 --mr_per_qp --validate $3: 4 MRs a side, messages checked $4 (each QP's own pattern), none wrong"
}
t36m_ok write_bw rb_write_bw "-q 4 -n 100 -s 64" "== 256"
t36m_ok send_bw rb_send_bw "-q 4 -n 100 -s 1000" "== 400"
t36m_ok "write_bw -R" rb_write_bw "-q 4 -n 100 -s 64 -R" "== 256"

# t36m_mrs PID: the MRs the kernel holds for process PID now.
t36m_mrs() { rdma resource show mr 2>/dev/null | grep -c " pid $1 "; }

# -q 1024: the largest -q, a buffer and MR per QP on both sides; the
# client's MRs sampled while it runs (the most seen is the count), every
# 50 ms: the client holds all 1024 only between its last registration and
# its teardown (every 250 ms saw 1004 at most, ci19).
t36m_big() { # NAME ARGS: sets t36m_max, the most MRs the client held
	local pid n
	rb_case "mrs $1"
	rb_start server "$(rb_cmd rb_write_bw) $2 --csv=\$RB_CASE_DIR/server.csv"
	wait_listen "${RB_LANE_PORT:-18515}" "$RB_CASE_DIR/server.err"
	rb_start client "$(rb_cmd rb_write_bw) $2 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
	t36m_max=0
	while kill -0 "$(cat "$RB_CASE_DIR/client.pid")" 2>/dev/null; do
		pid=$(pgrep -P "$(cat "$RB_CASE_DIR/client.pid")" | head -1)
		n=0
		[ -z "$pid" ] || n=$(t36m_mrs "$pid")
		((n > t36m_max)) && t36m_max=$n
		rb_nap_ms 50
	done
	rb_wait server client
}
if command -v rdma >/dev/null && rdma resource show mr >/dev/null 2>&1; then
	t36m_big "q1024" "-q 1024 -t 16 -n 20 -s 64 --mr_per_qp"
	t36m_rc=$?
	tap_diag "-q 1024 --mr_per_qp: the client held $t36m_max MRs at most (rdma resource show mr)"
	[ "$t36m_rc" = 0 ] && [ "$t36m_max" = 1024 ] &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' "int(meta['memory_regions']) == 1024" \
			"int(meta['qps']) == 1024" 'float(r["bw_avg_mibps"]) > 0'
	tap_ok $? "rb_write_bw -q 1024 --mr_per_qp: completes; the kernel saw 1024 MRs of the client (got $t36m_max), the metadata says 1024"

	t36m_big "q1024 one MR" "-q 1024 -t 16 -n 20 -s 64"
	t36m_rc=$?
	[ "$t36m_rc" = 0 ] && [ "$t36m_max" = 1 ] &&
		rb_check "$(rb_file client.csv)" "meta['mr_per_qp'] == 'no'" "int(meta['memory_regions']) == 1"
	tap_ok $? "rb_write_bw -q 1024 without it: one MR for all (the kernel saw $t36m_max)"
else
	tap_skip "rb_write_bw -q 1024 --mr_per_qp: MRs counted by the kernel" "no iproute2 rdma tool here"
	tap_skip "rb_write_bw -q 1024: one MR" "no iproute2 rdma tool here"
fi

# A buffer of 2 GiB per QP (-s 1G) for 1024 QPs: refused before any is made.
rb_bench "mrs too big" rb_write_bw "-q 1024 -t 16 -n 5 -s 1G --mr_per_qp"
rb_failed 1 '-q 1024 with --mr_per_qp: a buffer of [0-9]+ KiB per QP does not fit' client
tap_ok $? "rb_write_bw -q 1024 -s 1G --mr_per_qp: exit 1 at once, naming -q and --mr_per_qp"

# ---- --payload_file_path ----

t36p=$RB_TMP/t36-payload.txt t36p_other=$RB_TMP/t36-payload-other.txt
printf '0xaabbccdd,0x11223344,\n0x55667788\n' >"$t36p"  # 12 bytes: dd cc bb aa 44 33 22 11 88 77 66 55
printf '0xaabbccdd,0x11223344,\n0x55667789\n' >"$t36p_other"
: >"$RB_TMP/t36-empty.txt"

t36p_ok() { # PROG ARGS CHECKED
	rb_csv "payload $1 $2" "$1" "--validate --payload_file_path=$t36p $2" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' "int(meta['payload_bytes']) == 12" \
			"meta['payload_file'] == '$t36p'" "int(r['validated_msgs']) $3" 'int(r["validate_errors"]) == 0' &&
		rb_check "$(rb_file server.csv)" "int(r['validated_msgs']) $3" 'int(r["validate_errors"]) == 0'
	tap_ok $? "$1 --payload_file_path (12 bytes) --validate $2: messages checked $3 against the file's payload, none wrong"
}
t36p_ok rb_send_bw "-n 100 -s 100" "== 100"
t36p_ok rb_write_bw "-q 2 -n 100 -s 64 --mr_per_qp" "== 128"

# The payload differs between the sides: HELLO refuses, naming it.
rb_bench "payload differs" rb_send_bw "-n 10 --validate" "--payload_file_path=$t36p" "--payload_file_path=$t36p_other"
rb_failed 1 'payload \(--payload_file_path\) differs: (client|server) hash [0-9a-f]+, (client|server) hash [0-9a-f]+'
tap_ok $? "rb_send_bw --validate with another payload file on each side: both exit 1, HELLO naming the payload"

t36p_usage=0
usage_case "--payload-file-path: '$RB_TMP/t36-none.txt' cannot open: No such file" rb_send_bw --payload_file_path="$RB_TMP/t36-none.txt" || t36p_usage=1
usage_case "--payload-file-path: '$RB_TMP/t36-empty.txt' is empty" rb_write_bw --payload_file_path="$RB_TMP/t36-empty.txt" || t36p_usage=1
printf '0xaabbccdd,0x1122' >"$RB_TMP/t36-bad.txt"
usage_case "DWORD 1 \\('0x1122'\\) is not 0x and 8 hex digits" rb_send_bw --payload_file_path="$RB_TMP/t36-bad.txt" || t36p_usage=1
usage_case 'payload' rb_atomic_bw --payload_file_path="$t36p" || t36p_usage=1
tap_ok "$t36p_usage" "usage: a missing, empty or malformed payload file, and atomics with one: exit 2 naming the option and the path"

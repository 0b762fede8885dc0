# needs: one-guest lane delay-build
# What a figure counts, as perftest counts it.  Sourced by run-all.sh (see
# lib.sh).
#
# Atomics spread over 64 slots a cache line apart (perftest's stride), each
# operation's result still checked (the run fails on a wrong value: shown
# with the noatomic.c shim corrupting operands); --atomic-same-address
# keeps one word.  -b rows carry this side's operations, the peer's (rx)
# and their sum, with sum = tx + rx and each direction's count equal to
# the peer's.  The rb_send_bw receiver's window starts at the first
# arrival: a client that leaves the start barrier late does not lengthen it.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 22

# ---- atomics over slots ----

for op in FETCH_AND_ADD CMP_AND_SWAP; do
	# 1000 operations per QP: about 16 rounds of the 64 slots, so every
	# slot's value is checked after more than one operation on it.
	rb_csv "slots atomic_bw $op" rb_atomic_bw "-A $op -q 2 -n 1000" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 8, 2000)' \
			"meta['atomic_op'] == '$op'" 'meta["atomic_slots"] == 64' \
			'meta["atomic_stride_bytes"] == 64' \
		-- "$(rb_file server.csv)" 'meta["atomic_slots"] == 64'
	tap_ok $? "rb_atomic_bw -A $op -q 2: 2000 operations over 64 slots, results checked, metadata atomic_slots=64"

	rb_csv "slots atomic_lat $op" rb_atomic_lat "-A $op -n 300" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 8, 300)' \
			"meta['atomic_op'] == '$op'" 'meta["atomic_slots"] == 64'
	tap_ok $? "rb_atomic_lat -A $op: 300 samples over 64 slots, every result checked"
done

rb_csv "same-address atomic_bw" rb_atomic_bw "-A CMP_AND_SWAP --atomic-same-address -n 1000" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 8, 1000)' \
		'meta["atomic_slots"] == 1'
tap_ok $? "rb_atomic_bw --atomic-same-address -A CMP_AND_SWAP: 1000 operations on one word, metadata atomic_slots=1"

rb_csv "same-address atomic_lat" rb_atomic_lat "-A FETCH_AND_ADD --atomic-same-address -n 300" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 8, 300)' \
		'meta["atomic_slots"] == 1'
tap_ok $? "rb_atomic_lat --atomic-same-address: 300 samples on one word"

# The checks can fail: the shim (RB_CORRUPT_ATOMICS=1) makes fetch-and-add
# add 2 and compare-and-swap swap in one more than asked, in the client
# only.  The first wrong value is known exactly.
# corrupt_case NAME PROG 'ARGS' 'ERE'
# corrupt_case NAME PROG 'ARGS' 'ERE' [HOW]: HOW is RB_CORRUPT_ATOMICS's
# value (1: every operation; once: the 65th only).
corrupt_case() {
	local name=$1 prog=$2 args=$3 ere=$4 how=${5:-1}
	rb_case "corrupt $name"
	if ! cc -shared -fPIC -o "$RB_CASE_DIR/shim.so" "$top_srcdir/tests/integration/noatomic.c" -ldl \
		2>"$RB_CASE_DIR/cc.err"; then
		tap_skip "$name" "no C compiler for the shim: $(head -c 200 "$RB_CASE_DIR/cc.err")"
		return
	fi
	rb_start server "$(rb_cmd "$prog") $args --timeout 5"
	wait_listen "${RB_PAIR_PORT:-18515}"
	rb_start client "ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0 \
		RB_CORRUPT_ATOMICS=$how LD_PRELOAD=\$RB_CASE_DIR/shim.so $(rb_cmd "$prog") $args --timeout 5 \"\$RB_IP\""
	rb_wait client server
	rb_failed 1 "$ere" client && [ "$(cat "$RB_CASE_DIR/server.rc")" != 0 ]
	tap_ok $? "$name: the client exits 1 naming the operation and the values, the server does not succeed"
}

corrupt_case "rb_atomic_bw -A FETCH_AND_ADD, adding 2" rb_atomic_bw "-A FETCH_AND_ADD -n 1000" \
	'FETCH_AND_ADD at size 8: operation 936 on QP 0 found 28 in its target word \(slot 40 of 64\), not 14'
corrupt_case "rb_atomic_lat -A CMP_AND_SWAP, swapping in one more" rb_atomic_lat "-A CMP_AND_SWAP -n 300" \
	'CMP_AND_SWAP at size 8: operation 64 on QP 0 found 2 in its target word \(slot 0 of 64\), not 1'
corrupt_case "rb_atomic_bw --atomic-same-address, adding 2" rb_atomic_bw \
	"-A FETCH_AND_ADD --atomic-same-address -n 1000" \
	'FETCH_AND_ADD at size 8: operation 999 on QP 0 found 1998 in its target word \(slot 0 of 1\), not 999'

# One operation corrupted (compare-and-swap 64 swaps in 3, not 2): the next
# one on its slot (128) finds 3, not 2, fails to swap, and from 192 on the
# slot is consistent again, so the last result of each slot is right.
# Without --validate rb_atomic_bw checks only those (metadata atomic_check
# last-result-per-slot): the run passes, as it did before --validate took
# atomics.  With --validate each operation in flight has a result word of
# its own, checked at its completion: operation 128 is named.
rb_case "atomic_bw one wrong result, no --validate"
if cc -shared -fPIC -o "$RB_CASE_DIR/shim.so" "$top_srcdir/tests/integration/noatomic.c" -ldl 2>/dev/null; then
	rb_start server "$(rb_cmd rb_atomic_bw) -A CMP_AND_SWAP -n 1000 --timeout 5 --csv=\$RB_CASE_DIR/server.csv"
	wait_listen "${RB_PAIR_PORT:-18515}"
	rb_start client "ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0 \
		RB_CORRUPT_ATOMICS=once LD_PRELOAD=\$RB_CASE_DIR/shim.so $(rb_cmd rb_atomic_bw) -A CMP_AND_SWAP -n 1000 \
		--timeout 5 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
	rb_wait client server
	[ "$(cat "$RB_CASE_DIR/client.rc")" = 0 ] &&
		rb_check "$(rb_file client.csv)" 'meta["atomic_check"] == "last-result-per-slot"'
	tap_ok $? "rb_atomic_bw -A CMP_AND_SWAP, operation 64 corrupted, no --validate: passes, metadata atomic_check=last-result-per-slot"
else
	tap_skip "rb_atomic_bw one wrong result" "no C compiler for the shim"
fi
corrupt_case "rb_atomic_bw --validate, operation 64 corrupted" rb_atomic_bw "-A CMP_AND_SWAP -n 1000 --validate" \
	'CMP_AND_SWAP at size 8: operation 128 on QP 0 found 3 in its target word \(slot 0 of 64\), not 2' once
rb_csv "atomic_bw --validate" rb_atomic_bw "-A FETCH_AND_ADD -q 2 -n 1000 -t 256 --validate" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 8, 2000)' \
		'meta["atomic_check"] == "every-result"' 'meta["validate_method"] == "per-message"' \
		'int(r["validated_msgs"]) == 2000' 'int(r["validate_errors"]) == 0'
tap_ok $? "rb_atomic_bw --validate -q 2 -t 256: each of the 2000 results checked (validated_msgs), metadata atomic_check=every-result"

# ---- -b: tx, rx and sum ----

# bidir_check SIDE PEER SIZE N [EXPR...]: SIDE's -b row (SIDE.csv) against
# PEER's: this side did N operations (tx); rx is the peer's count towards
# it; sum = tx + rx exactly; every rate is its count over its window.
bidir_check() {
	local f p size=$3 n=$4 p_it p_rx
	f=$(rb_file "$1.csv") p=$(rb_file "$2.csv")
	shift 4
	p_it=$(csv_col "$p" iterations) && p_rx=$(csv_col "$p" rx_iterations) || return 1
	rb_check "$f" 'status == "complete"' "bw(r, $size, $n)" 'meta["bidirectional"] == "yes"' \
		"r['rx_iterations'] == $p_it" "r['iterations'] == $p_rx" \
		'r["sum_iterations"] == r["iterations"] + r["rx_iterations"]' \
		'r["rx_window_s"] > 0' \
		'close(r["bw_rx_avg_mibps"], r["rx_iterations"] * r["size_bytes"] / r["rx_window_s"] / 2**20, 1e-5)' \
		'close(r["bw_rx_avg_gbps"], r["bw_rx_avg_mibps"] * 2**20 * 8 / 1e9, 1e-5)' \
		'close(r["msg_rate_rx_mpps"], r["rx_iterations"] / r["rx_window_s"] / 1e6, 1e-5)' \
		'close(r["bw_sum_avg_mibps"], r["bw_avg_mibps"] + r["bw_rx_avg_mibps"], 1e-6)' \
		'close(r["bw_sum_avg_gbps"], r["bw_avg_gbps"] + r["bw_rx_avg_gbps"], 1e-6)' \
		'close(r["msg_rate_sum_mpps"], r["msg_rate_mpps"] + r["msg_rate_rx_mpps"], 1e-6)' "$@"
}

for prog in rb_send_bw rb_write_bw rb_read_bw; do
	rb_csv "bidir $prog" $prog "-s 4096 -q 2 -n 300 -b" && {
		cx=() sx=()
		# one-sided verbs: rx is the peer's own row, its window included
		if [ "$prog" != rb_send_bw ]; then
			cx=("close(r['rx_window_s'], $(csv_col "$(rb_file server.csv)" window_s), 1e-6)")
			sx=("close(r['rx_window_s'], $(csv_col "$(rb_file client.csv)" window_s), 1e-6)")
		fi
		bidir_check client server 4096 600 "${cx[@]}" &&
			bidir_check server client 4096 600 "${sx[@]}"
	}
	tap_ok $? "$prog -b -q 2 -n 300: each side tx 600, rx = the peer's tx, sum = tx + rx, rates = counts / windows"
done

rb_csv "bidir atomic_bw" rb_atomic_bw "-A FETCH_AND_ADD -n 500 -b" &&
	bidir_check client server 8 500 && bidir_check server client 8 500
tap_ok $? "rb_atomic_bw -b -n 500: tx 500, rx 500, sum 1000 on each side"

# -D: the receives are counted in the sends' window.
rb_csv "bidir send_bw -D" rb_send_bw "-s 4096 -D 2 -b" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 4096, r["iterations"])' \
		'r["rx_iterations"] > 0' 'r["rx_window_s"] == r["window_s"]' \
		'r["sum_iterations"] == r["iterations"] + r["rx_iterations"]' \
		'close(r["bw_sum_avg_mibps"], r["bw_avg_mibps"] + r["bw_rx_avg_mibps"], 1e-6)'
tap_ok $? "rb_send_bw -b -D 2: rx counted in the sends' window, sum = tx + rx"

# The human table shows what a -b row counts.
rb_bench "bidir human" rb_write_bw "-s 4096 -n 200 -b" &&
	grep -q 'BW rx average\[MiB/sec\]' "$(rb_file client.out)" &&
	grep -q 'BW sum average\[MiB/sec\]' "$(rb_file client.out)" &&
	grep -q 'MsgRate sum\[Mpps\]' "$(rb_file client.out)"
tap_ok $? "rb_write_bw -b, human table: BW rx average, BW sum average and MsgRate sum columns"

# ---- the send receiver's window starts at the first arrival ----

# The --enable-test-delay build's client waits RB_TEST_START_DELAY_NS after
# the start barrier before its clock starts and it posts: a receiver timed
# from its own loop entry would count that 1.5 s, one timed from the first
# arrival does not.  Windows compared, not speeds.
delay_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}
if grep -qs 'define RB_TEST_DELAY 1' "$delay_bin/config.h" && [ -x "$delay_bin/rb_send_bw" ]; then
	args="-d $RB_DEV -x $RB_GID_INDEX -s 4096 -n 2000${RB_LANE_PORT:+ -p $RB_LANE_PORT}"
	rb_pair "late sender" "$delay_bin/rb_send_bw $args --csv=\$RB_CASE_DIR/server.csv" \
		"t0=\$(date +%s%N); RB_TEST_START_DELAY_NS=1500000000 $delay_bin/rb_send_bw $args \
		--csv=\$RB_CASE_DIR/client.csv $RB_IP; rc=\$?; echo \$(( (\$(date +%s%N) - t0) / 1000000 )) >\$RB_CASE_DIR/client.ms; exit \$rc" &&
		cw=$(csv_col "$(rb_file client.csv)" window_s) &&
		rb_check "$(rb_file server.csv)" 'bw(r, 4096, 2000)' \
			"expect(r['window_s'] < $cw + 0.5, 'server window %s s, client %s s: the late start is in it' % (r['window_s'], $cw))" &&
		[ "$(cat "$(rb_file client.ms)")" -ge 1500 ]
	tap_ok $? "rb_send_bw, client 1.5 s late after the barrier: the server's window (from the first arrival) is within 0.5 s of the client's"
else
	tap_skip "rb_send_bw receiver window from the first arrival" "no --enable-test-delay build in $delay_bin"
fi

# ---- -b: both sides post, so their queue options must agree (HELLO) ----

# A -b -t 128 server and a -b -t 16 client each post with their own depth:
# before HELLO compared -t both ran and exited 0, the figures of two
# different tests side by side.  Without -b only the client posts: its -t
# alone counts, the server's is no mismatch.
rb_bench "bidir -t mismatch" rb_send_bw "-b -n 200 -s 64" '-t 16' '-t 128'
rb_failed 1 'send queue depth \(-t/--tx-depth\) differs: (server 128, client 16|client 16, server 128)'
tap_ok $? "rb_send_bw -b, -t 16 client vs -t 128 server: both exit 1 naming -t"
rb_csv "one-sided -t" rb_send_bw "-n 200 -s 64" '-t 16' '-t 128' &&
	rb_check "$(rb_file client.csv)" 'bw(r, 64, 200)'
tap_ok $? "rb_send_bw without -b, -t 16 client vs -t 128 server: runs (-t is the poster's alone)"

# -m is an offer (HELLO): each end of a QP applies its path MTU, the
# responder's sizing the read responses, so both use the smaller one either
# side gives.  Before, a client-only -m 512 left the server's QP at the
# active MTU (1024 on the test bed): two MTUs on one connection.
rb_csv "one-sided -m" rb_read_bw "-s 4096 -n 200" '-m 512' '' &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 200)' 'meta["mtu_bytes"] == 512' \
	-- "$(rb_file server.csv)" 'meta["mtu_bytes"] == 512'
tap_ok $? "rb_read_bw -m 512 on the client only: both QPs run path MTU 512 (metadata mtu_bytes on both sides)"

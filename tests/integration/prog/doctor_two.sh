# needs: two-guests last
# rb_doctor between two guests (tests/rxe-two.sh, its last file): guest A
# ($RB_PEER) runs rb_doctor --server -p 18600; these cases run in guest B.
# Faults injected for real in guest B: its netdev MTU lowered to 1000 B
# (rxe's active MTU then 512 B against the peer's 1024 B), and UDP 4791 (RoCE
# v2) dropped by an nftables input rule.  The last case writes
# $RB_DOCTOR_SHARED/done so that guest A stops.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 4

# d71 NAME ARGS...: rb_doctor against the peer into a fresh case folder.
# Generous deadlines (--timeout 10; the test bed is slow and shared) except
# where a step is meant to stall (D71_TIMEOUT=3).
d71() {
	local name=$1
	shift
	rb_case "$name"
	timeout -k 5 400 "$RB_BIN/rb_doctor" -d "$RB_DEV" -p 18600 --timeout "${D71_TIMEOUT:-10}" "$@" "$RB_PEER" \
		>"$RB_CASE_DIR/client.out" 2>"$RB_CASE_DIR/client.err" </dev/null
	echo $? >"$RB_CASE_DIR/client.rc"
}
d71_line() { grep -E "^(ok|warn|fail) +$1 " "$RB_CASE_DIR/client.out"; }
d71_rc() { cat "$RB_CASE_DIR/client.rc"; }

# guest A's server may still be starting: the comparison alone, until it answers
for ((i = 0; i < 60; i++)); do
	d71 "doctor two: reach" --no-probe
	d71_line "peer version" >/dev/null && break
	sleep 2
done

d71 "doctor two: healthy"
tap_diag "$(grep -E '^(ok|warn|fail) +(peer|probe)' "$RB_CASE_DIR/client.out")"
[ "$(d71_rc)" = 0 ] && [ "$(grep -cE '^ok +probe ' "$RB_CASE_DIR/client.out")" = 7 ] &&
	d71_line "peer MTU" | grep -q '^ok' && d71_line "peer subnet" | grep -q '^ok'
tap_ok $? "rb_doctor $RB_PEER: two healthy guests pass the comparison and all 7 probe steps"

# Different netdev MTUs.
if ip link set "$RB_NETDEV" mtu 1000; then
	sleep 1
	d71 "doctor two: MTU"
	tap_diag "$(grep -A1 -E '^warn +(peer MTU|MTU)' "$RB_CASE_DIR/client.out")"
	d71_line "peer MTU" | grep -q '^warn .*netdev MTU 1000 here, 1500 there; active MTU 512 here, 1024 there: the benchmarks use 512 B' &&
		grep -q 'set the same netdev MTU on both hosts' "$RB_CASE_DIR/client.out"
	tap_ok $? "rb_doctor $RB_PEER, netdev MTU 1000 here and 1500 there: the MTU difference named with the 512 B that will run"
	ip link set "$RB_NETDEV" mtu 1500
	sleep 1
else
	tap_skip "rb_doctor: different MTUs" "cannot set the MTU of $RB_NETDEV"
fi

# UDP 4791 dropped by nftables: RoCE v2 packets never arrive, TCP does.
if command -v nft >/dev/null && nft add table inet rbtest 2>/dev/null &&
	nft add chain inet rbtest in '{ type filter hook input priority 0; }' &&
	nft add rule inet rbtest in udp dport 4791 drop; then
	D71_TIMEOUT=3 d71 "doctor two: UDP 4791 dropped"
	tap_diag "$(grep -A1 -E '^fail' "$RB_CASE_DIR/client.out")"
	nft delete table inet rbtest
	# Only what comes into this guest is dropped: RC needs the peer's
	# acknowledgements and read responses, UC and UD from here need nothing back.
	[ "$(d71_rc)" = 1 ] && d71_line "peer GID type" | grep -q '^ok' &&
		d71_line "probe RC write" | grep -q '^fail' &&
		grep -A1 -E '^fail +probe RC write' "$RB_CASE_DIR/client.out" | grep -q 'UDP 4791 blocked' &&
		grep -A1 -E '^fail +probe rdma_cm' "$RB_CASE_DIR/client.out" | grep -q 'UDP 4791 blocked' &&
		d71_line "probe UC write" | grep -q '^ok'
	tap_ok $? "rb_doctor $RB_PEER with UDP 4791 dropped coming in: the comparison passes, the RC and rdma_cm steps fail naming UDP 4791, UC (one way) passes"
	d71 "doctor two: UDP 4791 open again" --no-probe
	[ "$(d71_rc)" = 0 ]
	tap_ok $? "rb_doctor $RB_PEER passes once the rule is gone"
else
	nft delete table inet rbtest 2>/dev/null
	tap_skip "rb_doctor: UDP 4791 dropped" "no nftables in the guest (nft, the nf_tables module)"
	tap_skip "rb_doctor: passes once the rule is gone" "no nftables in the guest (nft, the nf_tables module)"
fi

touch "$RB_DOCTOR_SHARED/done"

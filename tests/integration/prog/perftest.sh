# shellcheck shell=bash
# needs: one-guest quiet first
# Smoke cases with Debian's perftest on the rxe device: when these fail, the
# test bed is broken, not the suite.  Sourced by run-all.sh (see lib.sh).

# perftest_row FILE: the result row (the last line whose first field is the
# message size) of a perftest report.
perftest_row() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 { row = $0 } END { print row }' "$1"; }

# perftest_case NAME PROGRAM FIELD ARGS...: run PROGRAM as server and client
# on $RB_DEV, then check that field FIELD of the client's row is non-zero.
# Tried twice: under emulation perftest's clock fit fails about 1 run in 25
# and it then reports 0.00 with exit status 0.
perftest_case() {
	local name=$1 prog=$2 field=$3 args try v st
	shift 3
	args="-d $RB_DEV -x $RB_GID_INDEX $*"
	for try in 1 2; do
		rb_pair "$name" "$prog $args" "$prog $args $RB_IP"
		st=$?
		v=$(perftest_row "$RB_CASE_DIR/client.out" | awk -v f="$field" '{ print $f }')
		[ "$st" = 0 ] && num_gt "${v:-0}" 0 && break
		tap_diag "$name: try $try: status $st, value '${v}'"
		[ "$st" = 0 ] && st=1
	done
	[ "$st" = 0 ] && tap_diag "$name: $(perftest_row "$RB_CASE_DIR/client.out" | tr -s ' ')"
	tap_ok "$st" "$name"
}

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 4

ibv_devinfo -d "$RB_DEV" 2>&1 | grep -q PORT_ACTIVE
tap_ok $? "perftest: $RB_DEV port is ACTIVE (ibv_devinfo)"

# BW rows: #bytes #iterations BW_peak BW_average MsgRate -> field 4
perftest_case "perftest: ib_send_bw reports a non-zero average" ib_send_bw 4 -s 65536 -n 1000
perftest_case "perftest: ib_write_bw reports a non-zero average" ib_write_bw 4 -s 65536 -n 1000
# lat rows: #bytes #iterations t_min t_max t_typical ... -> field 5
perftest_case "perftest: ib_read_lat reports a non-zero typical latency" ib_read_lat 5 -s 2 -n 1000

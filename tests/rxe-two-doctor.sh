#!/bin/bash
# Automake test: rb_doctor between two hosts, the two-guest Soft-RoCE test
# bed (scripts/rb-testbed --two-guests: 192.0.2.1 and 192.0.2.2, each with
# its own rxe0 on eth0, linked by a UDP socket NIC).  Guest A runs
# rb_doctor --server (tests/two/doctor-server.sh); guest B runs the cases
# tests/two/d_*.sh: a healthy pair, different netdev MTUs, UDP 4791
# dropped by nftables.  Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the two-guest rxe test bed (rb_doctor)"
. "${0%/*}/testbed-tap.sh"

testbed_ready
mkdir -p "$top_builddir/.cache" || skip "cannot write $top_builddir/.cache"
RB_DOCTOR_SHARED=$(mktemp -d "$top_builddir/.cache/doctor-two.XXXXXX") || skip "mktemp failed"
export RB_DOCTOR_SHARED
shares+=(--share "$RB_DOCTOR_SHARED")	# writable in both guests: the build is --cached
trap 'rm -rf "$RB_DOCTOR_SHARED"' EXIT
run_tap bash "$testbed" --two-guests --mode vm --timeout "${RB_TESTBED_TIMEOUT:-900}" "${shares[@]}" \
	--server-cmd "bash '$top_srcdir/tests/two/doctor-server.sh' '$RB_DOCTOR_SHARED' '$top_builddir'" \
	-- env RB_TESTS='../two/d_*.sh' RB_DOCTOR_SHARED="$RB_DOCTOR_SHARED" bash "$run_all"

#!/bin/bash
# Automake test: every integration case (tests/integration/t_*.sh) on a real
# rxe device, as TAP.  With an RDMA device on the host (RB_DEV set, or
# /sys/class/infiniband not empty) it runs them directly; otherwise inside ONE
# boot of the Soft-RoCE test bed (scripts/rb-testbed).  Skips and CI rules:
# tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the rxe test bed"
. "${0%/*}/testbed-tap.sh"

if [ -n "${RB_DEV:-}" ] || [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	run_tap bash "$run_all"
fi
testbed_ready
run_tap bash "$testbed" --mode "${RB_TESTBED_MODE:-auto}" --timeout "${RB_TESTBED_TIMEOUT:-3000}" "${shares[@]}" \
	-- bash "$run_all"

#!/bin/bash
# Automake test: the integration cases t_0*-t_2* of tests/integration (perftest's,
# the benchmarks', the options') on a real rxe device, as TAP; tests/rxe-robust.sh
# (t_3*-t_5*) and tests/rxe-mpi.sh (t_6*-t_9*) run the others, each in a boot of
# its own, so that CI can run them side by side (RXE_PART, run-all.sh's
# RB_PART).  With an RDMA device on the host (RB_DEV set, or
# /sys/class/infiniband not empty) it runs them directly; otherwise inside
# ONE boot of the Soft-RoCE test bed (scripts/testbed/rb-testbed).  Skips and CI rules:
# tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
export RB_PART=${RXE_PART:-t_[0-2]*.sh}
WHAT="the rxe test bed ($RB_PART)"
. "${0%/*}/testbed-tap.sh"

if [ -n "${RB_DEV:-}" ] || [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	run_tap bash "$run_all"
fi
testbed_ready
run_tap bash "$testbed" --mode "${RB_TESTBED_MODE:-auto}" --timeout "${RB_TESTBED_TIMEOUT:-3000}" "${shares[@]}" \
	-- bash "$run_all"

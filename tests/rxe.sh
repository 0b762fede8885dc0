#!/bin/bash
# Automake test: the case files of tests/integration that boot "rxe" runs
# (tests/integration/needs.sh: those that need one guest and may share it:
# the benchmarks', and the features' that declare "lane", which run in a
# second lane beside them with RB_LANES=2) on a real rxe device, as TAP;
# tests/rxe-quiet.sh (RXE_BOOT=rxe-quiet: the files that need the guest to
# themselves) and tests/rxe-mpi.sh (rxe-mpi: rb_mpi) run the other one-guest
# files, each in a boot of its own, so that CI can run them side by side
# (run-all.sh's RB_BOOT).  With an RDMA device on the host (RB_DEV set, or
# /sys/class/infiniband not empty) it runs them directly; otherwise inside
# ONE boot of the Soft-RoCE test bed (scripts/testbed/rb-testbed).  Skips and CI rules:
# tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
export RB_BOOT=${RXE_BOOT:-rxe}
WHAT="the rxe test bed (boot $RB_BOOT)"
. "${0%/*}/testbed-tap.sh"

if [ -n "${RB_DEV:-}" ] || [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	run_tap bash "$run_all"
fi
testbed_ready
run_tap bash "$testbed" --mode "${RB_TESTBED_MODE:-auto}" --timeout "${RB_TESTBED_TIMEOUT:-3000}" "${shares[@]}" \
	-- bash "$run_all"

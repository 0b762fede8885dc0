#!/bin/bash
# Automake test: the NUMA placement cases ("# needs: two-nodes":
# tests/integration/feature/numa_*.sh) in ONE boot of the two-node Soft-RoCE
# test bed (scripts/testbed/rb-testbed --numa2 --mode vm: CPU 0 on node 0, CPU 1 on
# node 1, the rxe NIC behind a PCI bridge on node 1), as TAP, through
# tests/integration/run-all.sh (RB_BOOT=rxe-numa).
# Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the two-node rxe test bed"
. "${0%/*}/testbed-tap.sh"

testbed_ready
run_tap bash "$testbed" --numa2 --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1200}" "${shares[@]}" \
	-- env RB_BOOT=rxe-numa bash "$run_all"

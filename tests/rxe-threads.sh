#!/bin/bash
# Automake test: -j/--threads ("# needs: 4-cpus":
# tests/integration/feature/threads.sh) in ONE boot of the Soft-RoCE test
# bed with 4 vCPUs (scripts/testbed/rb-testbed --cpus 4 --mode vm): -j 1, 2 and 4
# side by side, each thread on a CPU of its own, as TAP, through
# tests/integration/run-all.sh (RB_BOOT=rxe-threads).
# Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the 4-vCPU rxe test bed"
. "${0%/*}/testbed-tap.sh"

testbed_ready
run_tap bash "$testbed" --cpus 4 --mode vm --timeout "${RB_TESTBED_TIMEOUT:-2400}" \
	"${shares[@]}" -- env RB_BOOT=rxe-threads bash "$run_all"

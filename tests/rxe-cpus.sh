#!/bin/bash
# Automake test: the files that need 8 vCPUs ("# needs: 8-cpus": parallel
# instances on distinct CPUs, tests/integration/feature/cpus_parallel.sh, and
# the test bed's tick, prog/testbed_tick.sh) in ONE boot of the Soft-RoCE
# test bed with 8 vCPUs (scripts/testbed/rb-testbed --cpus 8 --mode vm): four
# loopback pairs, eight measuring threads, as TAP, through
# tests/integration/run-all.sh (RB_BOOT=rxe-cpus).
# RB_TESTBED_CPUS=4: the same cases with 4 vCPUs, where the threads share.
# With --tick 500 (RB_TESTBED_TICK): under --tcg single (CI) eight vCPUs
# take turns on one host thread, and prog/testbed_tick.sh checks the tick,
# which hands it over every 500 us of a running process.
# Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the 8-vCPU rxe test bed"
. "${0%/*}/testbed-tap.sh"

testbed_ready
run_tap bash "$testbed" --cpus "${RB_TESTBED_CPUS:-8}" --tick "${RB_TESTBED_TICK:-500}" --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1200}" \
	"${shares[@]}" -- env RB_BOOT=rxe-cpus bash "$run_all"

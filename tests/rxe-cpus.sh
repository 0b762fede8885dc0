#!/bin/bash
# Automake test: parallel instances on distinct CPUs (tests/cpus/t_*.sh) in
# ONE boot of the Soft-RoCE test bed with 8 vCPUs (scripts/testbed/rb-testbed
# --cpus 8 --mode vm): four loopback pairs, eight measuring threads, as
# TAP, through tests/integration/run-all.sh (RB_TESTS='../cpus/t_*.sh').
# RB_TESTBED_CPUS=4: the same cases with 4 vCPUs, where the threads share.
# With --tick 500 (RB_TESTBED_TICK): under --tcg single (CI) eight vCPUs
# take turns on one host thread, and t_00_tick checks the test bed's tick,
# which hands it over every 500 us of a running process.
# Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the 8-vCPU rxe test bed"
. "${0%/*}/testbed-tap.sh"

testbed_ready
run_tap bash "$testbed" --cpus "${RB_TESTBED_CPUS:-8}" --tick "${RB_TESTBED_TICK:-500}" --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1200}" \
	"${shares[@]}" -- env RB_TESTS='../cpus/t_*.sh' bash "$run_all"

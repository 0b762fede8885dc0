#!/bin/bash
# Automake test: the cases between two hosts, in ONE boot of the two-guest
# Soft-RoCE test bed (scripts/testbed/rb-testbed --two-guests: rbguest1 192.0.2.1
# and rbguest2 192.0.2.2, each with its own rxe0 on eth0, linked by a UDP
# socket NIC that tcpdump sees; --nics 2: rail 1, rxe1 on a second such NIC
# eth1, 198.51.100.1 and .2).  Guest A runs
# tests/integration/lib/two-servers.sh (the servers of all of them, side by
# side); guest B the files that declare "# needs: two-guests"
# (tests/integration/needs.sh; they may declare "two-nics" too) through
# tests/integration/run-all.sh (RB_BOOT=rxe-two):
#   - prog/wire.sh: rb-wire on the RoCE v2 traffic between the guests
#     (skips without tcpdump);
#   - prog/slurm_two.sh: rb_mpi with one rank in each guest, the two made a
#     Slurm cluster (scripts/testbed/slurm-up; skips without rb_mpi or
#     Slurm);
#   - prog/testbed_nics.sh: the test bed's rail 1 (rxe1 and its GID, RDMA
#     across it, netem on eth1) and prometheus in the guest
#     (tests/integration/lib/prometheus.sh);
#   - prog/doctor_two.sh: rb_doctor between the guests, with faults
#     injected in guest B (it declares "last": its MTU lowered, UDP 4791
#     dropped).
# Each file tells guest A it is done through its own folder, which both
# guests see (RB_WIRE_SHARED, RB_SLURM_SHARED, RB_NICS_SHARED,
# RB_MESH_SHARED, RB_DOCTOR_SHARED); guest A starts no server for a file RB_TESTS leaves
# out (tests/integration/lib/two-need.sh).  Until
# 2026-12-02 these were three boots (rxe-two, rxe-wire, rxe-two-doctor):
# one is two guests' start and set-up, ~20 s of qemu's CPU, fewer twice.
# Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the two-guest rxe test bed"
. "${0%/*}/testbed-tap.sh"

testbed_ready
mkdir -p "$top_builddir/.cache" || skip "cannot write $top_builddir/.cache"
shared=$(mktemp -d "$top_builddir/.cache/two.XXXXXX") || skip "mktemp failed"
trap 'rm -rf "$shared"' EXIT
export RB_WIRE_SHARED=$shared/wire RB_SLURM_SHARED=$shared/slurm RB_DOCTOR_SHARED=$shared/doctor
export RB_NICS_SHARED=$shared/nics RB_MESH_SHARED=$shared/mesh
mkdir -p "$RB_WIRE_SHARED" "$RB_SLURM_SHARED" "$RB_DOCTOR_SHARED" "$RB_NICS_SHARED" "$RB_MESH_SHARED" ||
	skip "cannot write $shared"
shares+=(--share "$shared")	# writable in both guests: the build is --cached
run_tap bash "$testbed" --two-guests --nics 2 --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1800}" "${shares[@]}" \
	--server-cmd "bash '$top_srcdir/tests/integration/lib/two-servers.sh'" \
	-- env RB_BOOT=rxe-two bash "$run_all"

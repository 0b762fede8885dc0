#!/bin/bash
# Automake test: rb_mpi across two hosts, one rank in each: the two-guest
# Soft-RoCE test bed (scripts/rb-testbed --two-guests: rbguest1 192.0.2.1
# and rbguest2 192.0.2.2, each with its own rxe0 on eth0) made a two-node
# Slurm cluster (scripts/testbed/slurm-up; guest A runs tests/two/server.sh,
# the controller), then the cases tests/two/t_*.sh in guest B through
# tests/integration/run-all.sh.  Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the two-guest rxe test bed"
. "${0%/*}/testbed-tap.sh"

# nothing to boot two guests for: MPI is optional at configure time
if [ ! -x "$top_builddir/rb_mpi" ]; then
	echo "1..0 # SKIP rb_mpi not built (./configure --with-mpi)"
	exit 0
fi
command -v slurmd >/dev/null && command -v slurmctld >/dev/null && command -v munged >/dev/null ||
	skip "Slurm not installed (Debian: slurmd slurmctld slurm-client munge)"
testbed_ready
# the munge key and the logs: a fresh folder both guests see
mkdir -p "$top_builddir/.cache" || skip "cannot write $top_builddir/.cache"
RB_SLURM_SHARED=$(mktemp -d "$top_builddir/.cache/slurm-two.XXXXXX") || skip "mktemp failed"
export RB_SLURM_SHARED
shares+=(--share "$RB_SLURM_SHARED")	# writable in both guests: the build is --cached
trap 'rm -rf "$RB_SLURM_SHARED"' EXIT
run_tap bash "$testbed" --two-guests --mode vm --timeout "${RB_TESTBED_TIMEOUT:-600}" "${shares[@]}" \
	--server-cmd "bash '$top_srcdir/tests/two/server.sh'" \
	-- env RB_TESTS='../two/t_*.sh' bash "$run_all"

# shellcheck shell=bash
# What the files of tests/rxe-two.sh need, asked the same way in both guests
# (they share the host's root): tests/integration/lib/two-servers.sh starts a file's servers
# only when the file will run, and the file skips with the same reason.

# two_runs FILE: the case file FILE (its path under tests/integration) is
# among those run-all.sh runs: RB_TESTS unset, or one of its globs matches
# FILE's path or name (run-all.sh's rule).  Guest A starts no server for a
# file RB_TESTS leaves out: that server would wait for a "done" that never
# comes, and outlive guest B.
two_runs() {
	local p
	[ -n "${RB_TESTS:-}" ] || return 0
	set -f
	for p in $RB_TESTS; do
		# shellcheck disable=SC2053 # a glob
		[[ $1 == $p || ${1##*/} == $p ]] && { set +f; return 0; }
	done
	set +f
	return 1
}

# slurm_missing BIN: why rb_mpi under Slurm cannot run here (nothing if it can).
slurm_missing() {
	if [ ! -x "$1/rb_mpi" ]; then
		echo "rb_mpi not built (./configure --with-mpi; Debian: libopenmpi-dev openmpi-bin)"
	elif ! command -v srun >/dev/null || ! command -v slurmd >/dev/null ||
		! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
		echo "Slurm not installed (Debian: slurmd slurmctld slurm-client munge)"
	fi
}

# wire_missing: why rb-wire's captures cannot run here (nothing if they can).
wire_missing() {
	if ! command -v tcpdump >/dev/null; then
		echo "no tcpdump (Debian: tcpdump; scripts/testbed/rb-testbed --install)"
	elif ! command -v python3 >/dev/null; then
		echo "no python3"
	fi
}

# mesh_missing BIN: why rb_mesh between the guests cannot run here (nothing if it can).
mesh_missing() {
	if [ ! -x "$1/rb_mesh" ]; then
		echo "rb_mesh not built"
	elif ! command -v prometheus >/dev/null; then
		echo "no prometheus (Debian: prometheus; scripts/testbed/rb-testbed --install)"
	elif [ -z "${RB_DEV1:-}" ]; then
		echo "one NIC a guest (rb-testbed --nics 2 gives rail 1)"
	fi
}

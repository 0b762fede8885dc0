#!/bin/bash
# Guest A (rbguest1, 192.0.2.1) of tests/rxe-two.sh: the servers of the three
# two-guest case files, side by side, each on its own ports and each until
# guest B says that file is done:
#   - rb-wire's benchmark servers (tests/wire/server.sh; 18700-18703), when
#     tcpdump and python3 are there (without them tests/wire/t_80 skips);
#   - the Slurm controller and first node (tests/two/server.sh; 6817, 6818),
#     when rb_mpi was built and Slurm is installed (else tests/two/t_70
#     skips);
#   - rb_doctor --server (tests/two/doctor-server.sh; 18600).
# Guest B runs the files in that order: the doctor's faults (its MTU
# lowered, UDP 4791 dropped) come last.  Exits 1 when one of them failed,
# naming it.
here=$(cd "$(dirname "$0")" && pwd)
: "${RB_BIN:=${top_builddir:?}}"
names=() pids=()
# role NAME CMD...: one server in the background
role() {
	names+=("$1")
	shift
	"$@" &
	pids+=($!)
}
if command -v tcpdump >/dev/null && command -v python3 >/dev/null; then
	role "rb-wire's servers" bash "$here/../wire/server.sh"
fi
if [ -x "$RB_BIN/rb_mpi" ] && command -v slurmd >/dev/null && command -v slurmctld >/dev/null &&
	command -v munged >/dev/null; then
	role "Slurm" bash "$here/server.sh"
fi
role "rb_doctor --server" bash "$here/doctor-server.sh" "${RB_DOCTOR_SHARED:?}" "$RB_BIN"
st=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { st=1; echo "servers: ${names[$i]} failed" >&2; }
done
exit "$st"

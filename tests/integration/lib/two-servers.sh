#!/bin/bash
# Guest A (rbguest1, 192.0.2.1) of tests/rxe-two.sh: the servers of the three
# two-guest case files, side by side, each on its own ports and each until
# guest B says that file is done (a file that will skip, tests/integration/lib/two-need.sh,
# gets none):
#   - rb-wire's benchmark servers (tests/wire/server.sh; 18700-18707);
#   - the Slurm controller and first node (tests/integration/lib/two-slurm-server.sh; 6817, 6818);
#   - rb_doctor --server (tests/integration/lib/two-doctor-server.sh; 18600).
# Guest B runs the files in that order: the doctor's faults (its MTU
# lowered, UDP 4791 dropped) come last.  Exits 1 when one of them failed,
# naming it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/two-need.sh"
: "${RB_BIN:=${top_builddir:?}}"
names=() pids=()
# role NAME CMD...: one server in the background
role() {
	names+=("$1")
	shift
	"$@" &
	pids+=($!)
}
[ -z "$(wire_missing)" ] && role "rb-wire's servers" bash "$here/../../wire/server.sh"
[ -z "$(slurm_missing "$RB_BIN")" ] && role "Slurm" bash "$here/two-slurm-server.sh"
role "rb_doctor --server" bash "$here/two-doctor-server.sh" "${RB_DOCTOR_SHARED:?}" "$RB_BIN"
st=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { st=1; echo "servers: ${names[$i]} failed" >&2; }
done
exit "$st"

#!/bin/bash
# Guest A (rbguest1, 192.0.2.1) of tests/rxe-two.sh: the servers of the
# two-guest case files, side by side, each on its own ports and each until
# guest B says that file is done (a file that will skip, or that RB_TESTS
# leaves out, tests/integration/lib/two-need.sh, gets none):
#   - rb-wire's benchmark servers (tests/wire/server.sh; 18700-18709);
#   - the Slurm controller and first node (tests/integration/lib/two-slurm-server.sh; 6817, 6818);
#   - rb_send_bw on rail 1, rxe1 (tests/integration/lib/two-nics-server.sh; 18720);
#   - rb_mesh's agents a1, a2 (tests/integration/lib/two-mesh-server.sh;
#     rdma_cm 18611-18612, /metrics 19611-19612);
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
two_runs prog/wire.sh && [ -z "$(wire_missing)" ] && role "rb-wire's servers" bash "$here/../../wire/server.sh"
two_runs prog/slurm_two.sh && [ -z "$(slurm_missing "$RB_BIN")" ] && role "Slurm" bash "$here/two-slurm-server.sh"
two_runs prog/testbed_nics.sh && [ -n "${RB_DEV1:-}" ] &&
	role "rb_send_bw on rail 1" bash "$here/two-nics-server.sh" "${RB_NICS_SHARED:?}" "$RB_BIN"
two_runs prog/mesh_two.sh && [ -z "$(mesh_missing "$RB_BIN")" ] &&
	role "rb_mesh's agents" bash "$here/two-mesh-server.sh" "${RB_MESH_SHARED:?}" "$RB_BIN"
two_runs prog/doctor_two.sh &&
	role "rb_doctor --server" bash "$here/two-doctor-server.sh" "${RB_DOCTOR_SHARED:?}" "$RB_BIN"
st=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { st=1; echo "servers: ${names[$i]} failed" >&2; }
done
exit "$st"

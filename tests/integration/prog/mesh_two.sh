# shellcheck shell=bash
# needs: two-guests two-nics
# rb_mesh watch (#38) between two guests on two rails (rxe0 on eth0, rxe1
# on eth1): agents a1, a2 in guest A (tests/integration/lib/two-mesh-server.sh),
# b1, b2 here, Prometheus here scraping all four; faults injected here one
# at a time (netem loss on rail 1, netem delay on rail 0, eth1 down, CPU
# load), each found within --timeout plus two windows (and what a loaded
# emulator adds) by every agent and blamed where it is, the other rail
# untouched, and good again after.  The fast run leaves out CPU load and
# Prometheus's blame of eth1 down (two.py says why).  tests/integration/mesh/two.py does it, a check a
# line.  Writes $RB_MESH_SHARED/done at its end: guest A's agents then stop.
# Sourced by run-all.sh (see lib.sh).

tap_plan "$(rb_fast_full 6 8)"

mesh_dir=$top_srcdir/tests/integration/mesh
. "$top_srcdir/tests/integration/lib/two-need.sh"
mesh_why=$(mesh_missing "$RB_BIN")
[ -n "${RB_MESH_SHARED:-}" ] || mesh_why="not in tests/rxe-two.sh's test bed (RB_MESH_SHARED unset)"
if [ -n "$mesh_why" ]; then
	[ -z "${RB_MESH_SHARED:-}" ] || touch "$RB_MESH_SHARED/done"
	for i in $(seq "$(rb_fast_full 6 8)"); do tap_skip "rb_mesh two guests, check $i" "$mesh_why"; done
	return 0
fi
tap_mark
rb_case "mesh two"
PYTHONPATH=$mesh_dir "$RB_PY" "$mesh_dir/two.py" "$RB_BIN" "$RB_MESH_SHARED" "$RB_CASE_DIR" \
	"$top_srcdir/scripts/prometheus/rb-mesh-rules.yml" "$RB_PEER" >"$RB_CASE_DIR/checks" 2>"$RB_CASE_DIR/two.err"
mesh_rc=$?
# nothing of it may outlive it (the next file may time itself: prog/regress.sh)
pkill -x rb_mesh 2>/dev/null && rb_nap 1 && pkill -9 -x rb_mesh 2>/dev/null
pkill -x prometheus 2>/dev/null && rb_nap 2 && pkill -9 -x prometheus 2>/dev/null
[ "$mesh_rc" = 0 ] || tail -n 20 "$RB_CASE_DIR/two.err" | sed 's/^/# two.py: /'
tap_checks "$(rb_fast_full 6 8)" "rb_mesh two guests" "$mesh_rc" "$RB_CASE_DIR/checks"

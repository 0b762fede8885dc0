# shellcheck shell=bash
# needs: one-guest quiet idle-hour
# rb_mesh watch left alone for an hour (#38: "an idle hour ... full in the
# nightly run"; the fast run watches 3 windows of idle in prog/mesh_watch.sh):
# four agents on the device and a real Prometheus, as in mesh_watch.sh; no
# alert from any agent or from Prometheus, every link's windows all along,
# every scrape answered, no agent growing.  RB_MESH_IDLE_S seconds (3600).
# Its boot, tests/rxe-idle.sh, is the nightly run's (.ci/run --full), not
# make check's.  The scenario is tests/integration/mesh/idle.py, a check a
# line.  Sourced by run-all.sh (see lib.sh).

tap_plan 6

mesh_dir=$top_srcdir/tests/integration/mesh
. "$top_srcdir/tests/integration/lib/prometheus.sh"
prom_mesh_ready 6 "rb_mesh idle" || return 0
tap_mark
rb_case "mesh idle"
"$RB_PY" "$mesh_dir/idle.py" "${RB_MESH_IDLE_S:-3600}" "$RB_BIN" "$RB_DEV" "$RB_IP" "${RB_NETDEV:-rxedummy0}" \
	"$RB_CASE_DIR" "$top_srcdir/scripts/prometheus/rb-mesh-rules.yml" >"$RB_CASE_DIR/checks" 2>"$RB_CASE_DIR/idle.err"
mesh_rc=$?
pkill -x rb_mesh 2>/dev/null && rb_nap 1 && pkill -9 -x rb_mesh 2>/dev/null
pkill -x prometheus 2>/dev/null && rb_nap 2 && pkill -9 -x prometheus 2>/dev/null
[ "$mesh_rc" = 0 ] || tail -n 20 "$RB_CASE_DIR/idle.err" | sed 's/^/# idle.py: /'
tap_checks 6 "rb_mesh idle" "$mesh_rc" "$RB_CASE_DIR/checks"

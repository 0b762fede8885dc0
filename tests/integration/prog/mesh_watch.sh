# shellcheck shell=bash
# needs: one-guest quiet
# rb_mesh watch (#38) on the device, with a real Prometheus server: four
# agents on one rxe device (each its own rdma_cm port: four "hosts" of one
# rail), scraped every second, the rules of scripts/prometheus evaluated;
# promtool check metrics on every exposition; the device's sent_pkts
# against the probes and replies the agents counted; then one fault at a
# time (an agent stopped with SIGSTOP and resumed, an agent restarted),
# each found within the time the man page promises and blamed on the
# right host; last (the full run only: RB_FULL=1) the bound, 8 NICs x
# 1000 hosts (tests/unit/test_mesh_pinglist: the --max-peers bound on such
# a list, in every run).  quiet: it reads the
# device-wide counter and adds addresses to the netdev.  The whole scenario
# is tests/integration/mesh/watch.py, a check a line (tap_expect counts
# them).  Sourced by run-all.sh (see lib.sh).

tap_plan "$(rb_fast_full 9 10)"

mesh_dir=$top_srcdir/tests/integration/mesh
. "$top_srcdir/tests/integration/lib/prometheus.sh"
prom_mesh_ready "$(rb_fast_full 9 10)" "rb_mesh watch" promtool || return 0
tap_mark
rb_case "mesh watch"
"$RB_PY" "$mesh_dir/watch.py" "$RB_BIN" "$RB_DEV" "$RB_IP" "${RB_NETDEV:-rxedummy0}" "$RB_CASE_DIR" \
	"$top_srcdir/scripts/prometheus/rb-mesh-rules.yml" >"$RB_CASE_DIR/checks" 2>"$RB_CASE_DIR/watch.err"
mesh_rc=$?
# nothing of it may outlive it (the next file may time itself: prog/regress.sh)
pkill -x rb_mesh 2>/dev/null && rb_nap 1 && pkill -9 -x rb_mesh 2>/dev/null
pkill -x prometheus 2>/dev/null && rb_nap 2 && pkill -9 -x prometheus 2>/dev/null
[ "$mesh_rc" = 0 ] || tail -n 20 "$RB_CASE_DIR/watch.err" | sed 's/^/# watch.py: /'
tap_checks "$(rb_fast_full 9 10)" "rb_mesh watch" "$mesh_rc" "$RB_CASE_DIR/checks"

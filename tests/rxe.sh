#!/bin/bash
# Automake test: every integration case (tests/integration/t_*.sh) on a real
# rxe device, as TAP.  With an RDMA device on the host (RB_DEV set, or
# /sys/class/infiniband not empty) it runs them directly; otherwise inside ONE
# boot of the Soft-RoCE test bed (scripts/rb-testbed).  When the test bed
# cannot run it prints "1..0 # SKIP reason", never a pass.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
run_all=$top_srcdir/tests/integration/run-all.sh
testbed=$top_srcdir/scripts/rb-testbed

if [ -n "${RB_DEV:-}" ] || [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	exec bash "$run_all"
fi

skip() { echo "1..0 # SKIP $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "the test bed needs root (or run with RB_DEV set on an RDMA host)"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (scripts/rb-testbed --install)"
[ -x /bin/busybox ] || skip "no /bin/busybox (scripts/rb-testbed --install)"
prep=$("$testbed" --prepare 2>&1) || skip "test bed not ready: $(echo "$prep" | tail -n1)"

# Share the source and the build folders read-write (the build one may be elsewhere).
shares=(--share "$top_srcdir")
case $top_builddir/ in "$top_srcdir"/*) ;; *) shares+=(--share "$top_builddir") ;; esac

out=$(mktemp "${TMPDIR:-/tmp}/rb-rxe.XXXXXX")
trap 'rm -f "$out"' EXIT
"$testbed" --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1500}" "${shares[@]}" \
	-- bash "$run_all" | tee "$out"
rc=${PIPESTATUS[0]}
# no plan: the test bed failed before or while the cases ran
grep -q '^1\.\.' "$out" || echo "Bail out! test bed failed (rb-testbed exit status $rc)"
exit "$rc"

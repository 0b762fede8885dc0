#!/bin/bash
# Automake test: every integration case (tests/integration/t_*.sh) on a real
# rxe device, as TAP.  With an RDMA device on the host (RB_DEV set, or
# /sys/class/infiniband not empty) it runs them directly; otherwise inside ONE
# boot of the Soft-RoCE test bed (scripts/rb-testbed).  When the test bed
# cannot run it prints "1..0 # SKIP reason", never a pass; under CI=true that
# is a failure instead: CI must run them for real.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
run_all=$top_srcdir/tests/integration/run-all.sh
testbed=$top_srcdir/scripts/rb-testbed

# run_tap CMD...: run CMD, pass its TAP on.  With a plan, the TAP lines carry
# the verdict (run-all.sh exits 1 when a case failed: no extra error).
# Without one, the cases never ran to the end: bail out.
run_tap() {
	local out rc
	out=$(mktemp "${TMPDIR:-/tmp}/rb-rxe.XXXXXX")
	"$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	if grep -q '^1\.\.' "$out"; then
		rm -f "$out"
		exit 0
	fi
	rm -f "$out"
	echo "Bail out! the integration tests did not finish (exit status $rc)"
	exit "$((rc ? rc : 1))"
}


# In CI (CI=true) the integration tests must run for real: a test bed that
# cannot start is a failure there, not a skip.
skip() {
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - the rxe test bed could not run in CI: $*"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}
# make distcheck re-runs make check in a copy: CI skips the (already run)
# integration tests there with RB_INTEGRATION=skip.
if [ "${RB_INTEGRATION:-}" = skip ]; then
	echo "1..0 # SKIP RB_INTEGRATION=skip"
	exit 0
fi

if [ -n "${RB_DEV:-}" ] || [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	run_tap bash "$run_all"
fi
[ "$(id -u)" = 0 ] || skip "the test bed needs root (or run with RB_DEV set on an RDMA host)"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (scripts/rb-testbed --install)"
[ -x /bin/busybox ] || skip "no /bin/busybox (scripts/rb-testbed --install)"
prep=$(bash "$testbed" --prepare 2>&1) || skip "test bed not ready: $(echo "$prep" | tail -n1)"

# Share the source and the build folders read-write (the build one may be elsewhere).
shares=(--share "$top_srcdir")
case $top_builddir/ in "$top_srcdir"/*) ;; *) shares+=(--share "$top_builddir") ;; esac

run_tap bash "$testbed" --mode "${RB_TESTBED_MODE:-auto}" --timeout "${RB_TESTBED_TIMEOUT:-1500}" "${shares[@]}" \
	-- bash "$run_all"

# Sourced by tests/rxe*.sh: run integration cases as TAP
# inside the Soft-RoCE test bed (scripts/testbed/rb-testbed).  The caller sets WHAT
# (words for messages, e.g. "the two-node rxe test bed") before sourcing.
# When the test bed cannot run, a case list prints "1..0 # SKIP reason",
# never a pass; under CI=true that is a failure instead: CI must run them
# for real.  make distcheck re-runs make check in a copy: CI skips the
# (already run) integration tests there with RB_INTEGRATION=skip.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
run_all=$top_srcdir/tests/integration/run-all.sh
testbed=$top_srcdir/scripts/testbed/rb-testbed

# run_tap CMD...: run CMD, pass its TAP on.  With a plan (run-all.sh prints
# it first) and an end (exit 0, or 1 when a case failed) the TAP lines carry
# the verdict, and tap-driver holds them to the plan.  Otherwise the cases
# never ran to the end (the guest timed out, run-all.sh was killed): bail out.
run_tap() {
	local out rc
	out=$(mktemp "${TMPDIR:-/tmp}/rb-rxe.XXXXXX")
	"$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && grep -q '^1\.\.' "$out"; then
		rm -f "$out"
		exit 0
	fi
	rm -f "$out"
	echo "Bail out! the integration tests in $WHAT did not finish (exit status $rc)"
	exit "$((rc ? rc : 1))"
}

skip() {
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - $WHAT could not run in CI: $*"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

if [ "${RB_INTEGRATION:-}" = skip ]; then
	echo "1..0 # SKIP RB_INTEGRATION=skip"
	exit 0
fi

# testbed_ready: root, qemu, busybox and the kernel cache, or skip.
testbed_ready() {
	[ "$(id -u)" = 0 ] || skip "$WHAT needs root (or run with RB_DEV set on an RDMA host)"
	command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (scripts/testbed/rb-testbed --install)"
	[ -x /bin/busybox ] || skip "no /bin/busybox (scripts/testbed/rb-testbed --install)"
	prep=$(bash "$testbed" --prepare 2>&1) || skip "test bed not ready: $(echo "$prep" | tail -n1)"
}

# Share the source and the build folders read-write (the build one may be elsewhere).
shares=(--share "$top_srcdir")
case $top_builddir/ in "$top_srcdir"/*) ;; *) shares+=(--share "$top_builddir") ;; esac
# The builds whose programs the cases run, read-only and cached in the guest
# (nothing there writes to them): under emulation a program started from the
# share read its pages from the host at each start (an ASan+UBSan one 0.20 s
# against 0.10 s cached; bench/write_bw, read_lat and write_lat under ASan 52 s against 43 s in one boot).
for d in "$top_builddir" "${RB_SAN_BIN:-}" "${RB_DELAY_BIN:-$top_srcdir/build-delay}"; do
	[ -n "$d" ] && [ -d "$d" ] && [ "$(cd "$d" && pwd -P)" != "$(cd "$top_srcdir" && pwd -P)" ] &&
		shares+=(--cached "$d")
done

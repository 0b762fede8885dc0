#!/bin/bash
# Automake test: the NUMA placement cases (tests/numa/t_*.sh) in ONE boot of
# the two-node Soft-RoCE test bed (scripts/rb-testbed --numa2 --mode vm: CPU
# 0 on node 0, CPU 1 on node 1, the rxe NIC behind a PCI bridge on node 1),
# as TAP, through tests/integration/run-all.sh (RB_TESTS='../numa/t_*.sh').
# When the test bed cannot run it prints "1..0 # SKIP reason", never a pass;
# under CI=true that is a failure instead, as in tests/rxe.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
run_all=$top_srcdir/tests/integration/run-all.sh
testbed=$top_srcdir/scripts/rb-testbed

# run_tap CMD...: run CMD, pass its TAP on.  With a plan, the TAP lines carry
# the verdict; without one, the cases never ran to the end: bail out.
run_tap() {
	local out rc
	out=$(mktemp "${TMPDIR:-/tmp}/rb-rxe-numa.XXXXXX")
	"$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	if grep -q '^1\.\.' "$out"; then
		rm -f "$out"
		exit 0
	fi
	rm -f "$out"
	echo "Bail out! the NUMA integration tests did not finish (exit status $rc)"
	exit "$((rc ? rc : 1))"
}

skip() {
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - the two-node rxe test bed could not run in CI: $*"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}
if [ "${RB_INTEGRATION:-}" = skip ]; then
	echo "1..0 # SKIP RB_INTEGRATION=skip"
	exit 0
fi

[ "$(id -u)" = 0 ] || skip "the two-node test bed needs root"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (scripts/rb-testbed --install)"
[ -x /bin/busybox ] || skip "no /bin/busybox (scripts/rb-testbed --install)"
prep=$(bash "$testbed" --prepare 2>&1) || skip "test bed not ready: $(echo "$prep" | tail -n1)"

shares=(--share "$top_srcdir")
case $top_builddir/ in "$top_srcdir"/*) ;; *) shares+=(--share "$top_builddir") ;; esac

run_tap bash "$testbed" --numa2 --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1200}" "${shares[@]}" \
	-- env RB_TESTS='../numa/t_*.sh' bash "$run_all"

#!/bin/bash
# Runs every tests/integration/t_*.sh (in name order, or those matching the
# glob RB_TESTS, e.g. RB_TESTS='t_00*') against one RDMA device and prints
# TAP: one line per case, the plan last.  Exits 0 only when all cases passed.
# Normally run inside the test bed: scripts/rb-testbed -- tests/integration/run-all.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
trap 'rm -rf "$RB_TMP"' EXIT

tap_diag "device $RB_DEV, GID index $RB_GID_INDEX, IP $RB_IP, test bed ${RB_TESTBED:-none}"
for f in "$here"/${RB_TESTS:-t_*.sh}; do
	[ -f "$f" ] || continue
	t0=$SECONDS
	tap_diag "$(basename "$f")"
	(. "$f")
	st=$?
	# a case file must not exit by itself: if it did, that is a failure
	[ "$st" = 0 ] || tap_ok "$st" "$(basename "$f") exited with status $st"
	tap_diag "$(basename "$f"): $((SECONDS - t0)) s"
done

n=$(cat "$RB_TMP/tap.n" 2>/dev/null || echo 0)
echo "1..$n"
if [ -s "$RB_TMP/tap.failed" ]; then
	tap_diag "failed: $(cut -d' ' -f2- "$RB_TMP/tap.failed" | paste -sd, -)"
	exit 1
fi
[ "$n" -gt 0 ]

#!/bin/bash
# Automake test: what needs a newer guest kernel than bookworm's 6.1
# ("# needs: new-kernel": tests/integration/feature/odp.sh: rxe's
# on-demand paging from Linux 6.14, /dev/udmabuf) in ONE boot of the
# Soft-RoCE test bed on trixie-backports' kernel (scripts/testbed/rb-testbed
# --kernel ${RB_TESTBED_NEW_KERNEL:-7.3} --mtu 9000 --mode vm), as TAP,
# through tests/integration/run-all.sh (RB_BOOT=rxe-kernel).  The kernel
# (122 MB of packages) is downloaded once per machine into the test bed's
# cache (kernels/linux-image-7.3.*); its package lists in apt-backports/.
# Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the rxe test bed on a newer kernel"
. "${0%/*}/testbed-tap.sh"

kernel=${RB_TESTBED_NEW_KERNEL:-7.3}
testbed_ready
prep=$(bash "$testbed" --kernel "$kernel" --prepare 2>&1) ||
	skip "test bed not ready for --kernel $kernel: $(echo "$prep" | tail -n1)"
run_tap bash "$testbed" --kernel "$kernel" --mtu 9000 --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1200}" \
	"${shares[@]}" -- env RB_BOOT=rxe-kernel bash "$run_all"

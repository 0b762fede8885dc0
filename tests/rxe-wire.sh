#!/bin/bash
# Automake test: rb-wire in the two-guest Soft-RoCE test bed
# (scripts/rb-testbed --two-guests: 192.0.2.1 and 192.0.2.2, each with its
# own rxe0 on eth0, so their RoCE v2 traffic crosses a NIC tcpdump sees).
# Guest A runs tests/wire/server.sh, guest B the cases tests/wire/t_*.sh
# through tests/integration/run-all.sh.  Skips and CI rules: tests/testbed-tap.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
WHAT="the two-guest rxe test bed (rb-wire)"
. "${0%/*}/testbed-tap.sh"

command -v tcpdump >/dev/null || skip "no tcpdump (Debian: tcpdump; scripts/rb-testbed --install)"
command -v python3 >/dev/null || skip "no python3"
testbed_ready
# guest B says "done" there; guest A waits for it (tests/wire/server.sh)
mkdir -p "$top_builddir/.cache" || skip "cannot write $top_builddir/.cache"
RB_WIRE_SHARED=$(mktemp -d "$top_builddir/.cache/wire.XXXXXX") || skip "mktemp failed"
export RB_WIRE_SHARED
shares+=(--share "$RB_WIRE_SHARED")	# writable in both guests: the build is --cached
trap 'rm -rf "$RB_WIRE_SHARED"' EXIT
run_tap bash "$testbed" --two-guests --mode vm --timeout "${RB_TESTBED_TIMEOUT:-1200}" "${shares[@]}" \
	--server-cmd "bash '$top_srcdir/tests/wire/server.sh'" \
	-- env RB_TESTS='../wire/t_*.sh' bash "$run_all"

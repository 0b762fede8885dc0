# shellcheck shell=bash
# tests/integration/lib/nap.sh, sourced by guest A's servers in the
# two-guest boot (lib/two-*-server.sh, tests/wire/server.sh): nap SECONDS,
# a wait with no process (a read with a timeout on a FIFO no one writes
# to; sleep(1) where no FIFO could be made).  In a 1-vCPU emulated guest a
# sleep process five times a second in each server took ~20 % of its time
# (2026-12-06).  The case files have lib.sh's rb_nap, the same way.
nap_fd=""
nap_fifo=$(mktemp -u /tmp/nap.XXXXXX) && mkfifo "$nap_fifo" && exec {nap_fd}<>"$nap_fifo"
rm -f "$nap_fifo"
nap() {
	if [ -n "$nap_fd" ]; then read -r -t "$1" -u "$nap_fd" _ || :; else sleep "$1"; fi
}

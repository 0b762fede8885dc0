#!/bin/bash
# results/wire: one capture per benchmark and size between the two guests of
# the Soft-RoCE test bed, each summarised by rb-wire next to the
# benchmark's own CSV.  Run as root from the source tree, built in BUILD
# (default ./build):  results/wire/make.sh [BUILD]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
out=$here/runs
rm -rf "$out"; mkdir -p "$out"
cd "$build"
RB_BIN=$build OUT=$out "$top/scripts/testbed/rb-testbed" --two-guests --mode vm --share "$top" --share "$build" \
	--server-cmd "RB_BIN=$build OUT=$out bash $here/guest.sh server" \
	-- env RB_BIN="$build" OUT="$out" bash "$here/guest.sh" client

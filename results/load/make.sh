#!/bin/bash
# results/load/make.sh OUT: the idle-vs-loaded comparison of this folder.
# Run inside the test bed, from a build folder (the rb_* programs in $PWD):
#   ../scripts/testbed/rb-testbed --cpus 4 -- bash ../results/load/make.sh OUT
# then, on the host: rb-plot (see README.md).
set -eu
out=$1
b=$PWD
mkdir -p "$out"

# pair NAME "COMMON OPTIONS" "CLIENT-ONLY OPTIONS": one rb_send_lat pair.
pair() {
	local name=$1 common=$2 client=$3 spid
	# shellcheck disable=SC2086 # option lists
	"$b/rb_send_lat" -d "$RB_DEV" -x "$RB_GID_INDEX" $common >/dev/null 2>"$out/$name.server.err" &
	spid=$!
	sleep 1
	# shellcheck disable=SC2086
	"$b/rb_send_lat" -d "$RB_DEV" -x "$RB_GID_INDEX" $common $client --csv="$out/$name.csv" \
		"$RB_IP" 2>"$out/$name.client.err"
	wait "$spid"
}

# idle and loaded in turn (6 repetitions), at two sizes
for s in 64 4096; do
	pair "compare-$s" "-s $s -n 2000 --load=write_bw --load-size=64K --load-compare" ""
done
# the CDFs: one idle run and one loaded run, each with its histogram
pair idle "-s 64 -n 5000" "-H $out/idle-hist.csv"
pair loaded "-s 64 -n 5000 --load=write_bw --load-size=64K" "-H $out/loaded-hist.csv"

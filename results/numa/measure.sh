#!/bin/bash
# Local vs remote NUMA placement in the two-node test bed, interleaved.
# Run inside it (from the top of the tree):
#   scripts/testbed/rb-testbed --numa2 --mode vm -- bash results/numa/measure.sh OUT.csv [REPS]
# local: the default (the rxe NIC's node 1: CPU 1, buffers on node 1);
# remote: --numa-node 0 on both sides (CPU 0, buffers on node 0).
# Each rep runs every benchmark below local and remote, the order of the
# two alternating from rep to rep, so that a drift of the host's load falls
# on both.  One line per run (the client's figures and placement):
# rep,bench,args,placement,value,unit,buffer_node,cpu
set -u
out=${1:?OUT.csv}
reps=${2:-5}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$top/.cache/numa-measure.$$
mkdir -p "$tmp"
: "${RB_DEV:=rxe0}" "${RB_GID_INDEX:=1}" "${RB_IP:=192.0.2.1}"

# The benchmarks: PROG|ARGS.  Bandwidth at 64 KiB, latency at 2 bytes.
benches=("rb_write_bw|-s 65536 -n 300" "rb_send_bw|-s 65536 -n 300"
	"rb_send_lat|-s 2 -n 300" "rb_read_lat|-s 2 -n 300")

meta() { sed -n "s/^# $1=//p" "$2"; }
col() { awk -F, -v c="$1" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next } { print $k; exit }' "$2"; }

one() { # REP PROG ARGS PLACEMENT
	local rep=$1 prog=$2 args=$3 pl=$4 extra="" c unit
	[ "$pl" = remote ] && extra="--numa-node 0"
	rm -f "$tmp"/s.csv "$tmp"/c.csv
	# shellcheck disable=SC2086
	timeout 120 "$top/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" $args $extra --csv="$tmp/s.csv" >/dev/null 2>"$tmp/s.err" &
	for ((i = 0; i < 100; i++)); do
		ss -Hltn "sport = :18515" 2>/dev/null | grep -q . && break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	timeout 120 "$top/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" $args $extra --csv="$tmp/c.csv" "$RB_IP" >/dev/null 2>"$tmp/c.err" ||
		sed "s/^/$prog $pl client: /" "$tmp/c.err" >&2
	wait
	case $prog in
	*_bw) c=bw_avg_mibps unit=MiB/s ;;
	*) c=lat_p50_us unit=us_p50 ;;
	esac
	echo "$rep,$prog,$args,$pl,$(col $c "$tmp/c.csv" 2>/dev/null),$unit,$(meta buffer_node "$tmp/c.csv"),$(meta cpu "$tmp/c.csv")" | tee -a "$out"
}

echo "rep,bench,args,placement,value,unit,buffer_node,cpu" >"$out"
for ((r = 1; r <= reps; r++)); do
	if ((r % 2)); then order="local remote"; else order="remote local"; fi
	for b in "${benches[@]}"; do
		for pl in $order; do one "$r" "${b%%|*}" "${b#*|}" "$pl"; done
	done
done
rm -rf "$tmp"

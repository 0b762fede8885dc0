#!/bin/bash
# Local vs remote NUMA placement in the two-node test bed, interleaved.
# Run inside it (from the top of the tree):
#   scripts/rb-testbed --numa2 --mode vm --share "$PWD" -- bash results/numa/measure.sh OUT.csv [REPS]
# local: the default (the rxe NIC's node 1: CPU 1, buffers on node 1);
# remote: --numa-node 0 (CPU 0, buffers on node 0), both sides.
# Each rep runs, in an order that alternates between reps: rb_write_bw -s
# 65536 and rb_send_lat -s 2, local and remote.  Writes one line per run:
# rep,bench,placement,value,unit,buffer_node,cpu
set -u
out=${1:?OUT.csv}
reps=${2:-5}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$top/.cache/numa-measure.$$
mkdir -p "$tmp"
: "${RB_DEV:=rxe0}" "${RB_GID_INDEX:=1}" "${RB_IP:=192.0.2.1}"

meta() { sed -n "s/^# $1=//p" "$2"; }
col() { awk -F, -v c="$1" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next } { print $k; exit }' "$2"; }

one() { # REP BENCH PLACEMENT ARGS...
	local rep=$1 prog=$2 pl=$3 extra=() col unit
	shift 3
	[ "$pl" = remote ] && extra=(--numa-node 0)
	rm -f "$tmp"/s.csv "$tmp"/c.csv
	timeout 120 "$top/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" "$@" "${extra[@]}" --csv="$tmp/s.csv" >/dev/null 2>"$tmp/s.err" &
	for ((i = 0; i < 100; i++)); do
		ss -Hltn "sport = :18515" 2>/dev/null | grep -q . && break
		sleep 0.1
	done
	timeout 120 "$top/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" "$@" "${extra[@]}" --csv="$tmp/c.csv" "$RB_IP" >/dev/null 2>"$tmp/c.err"
	wait
	case $prog in
	rb_write_bw) col=bw_avg_mibps unit=MiB/s ;;
	*) col=lat_p50_us unit=us_p50 ;;
	esac
	echo "$rep,$prog,$pl,$(col $col "$tmp/c.csv"),$unit,$(meta buffer_node "$tmp/c.csv"),$(meta cpu "$tmp/c.csv")" | tee -a "$out"
}

echo "rep,bench,placement,value,unit,buffer_node,cpu" >"$out"
for ((r = 1; r <= reps; r++)); do
	if ((r % 2)); then order="local remote"; else order="remote local"; fi
	for pl in $order; do one "$r" rb_write_bw "$pl" -s 65536 -n 500; done
	for pl in $order; do one "$r" rb_send_lat "$pl" -s 2 -n 1000; done
done
rm -rf "$tmp"

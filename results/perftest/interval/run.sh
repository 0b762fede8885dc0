#!/bin/bash
# The send-latency sample before and after issue 33, against perftest, in one
# boot of the test bed (inside: $RB_DEV, $RB_GID_INDEX, $RB_IP):
#   OLD=dir-of-the-old-build NEW=dir-of-the-new-build scripts/testbed/rb-testbed -- bash results/perftest/interval/run.sh
# OLD: rb_send_lat of commit 09db512 (a sample from the post to the answer's
# arrival); NEW: this commit's (the whole iteration: + the receive's re-post
# and the send's completion).  Per size and repetition: old, new, perftest,
# back to back; prints one line per run: size rep tool p50_us p99_us avg_us.
set -u
export RB_POLL_PAUSE=0          # perftest's bare loop, as rb-vs-perftest
port=18700
args() { echo "-d $RB_DEV -x $RB_GID_INDEX -s $1 -n 1000 -t 1 -I 0"; }
pair() {    # pair SERVER-CMD CLIENT-CMD: prints the client's stdout
	port=$((port + 1))
	$1 -p $port >/dev/null 2>&1 &
	local spid=$! i
	for i in $(seq 100); do grep -q ":$(printf %04X $port) .* 0A " /proc/net/tcp 2>/dev/null && break; sleep 0.05; done
	$2 -p $port "$RB_IP" 2>/dev/null
	wait $spid
}
ours() {    # ours DIR SIZE TAG
	local f=/tmp/iv.csv
	rm -f $f
	pair "$1/rb_send_lat $(args $2) --warmup=0" "$1/rb_send_lat $(args $2) --warmup=0 --csv=$f" >/dev/null
	awk -F, -v s=$2 -v r=$rep -v t=$3 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print s, r, t, $c["lat_p50_us"], $c["lat_p99_us"], $c["lat_avg_us"] }' $f
}
theirs() {
	pair "ib_send_lat $(args $1) -F" "ib_send_lat $(args $1) -F" |
		awk -v s=$1 -v r=$rep '$1 == s && NF >= 9 { print s, r, "perftest", $5, $8, $6 }'
}
echo "# size rep tool p50_us p99_us avg_us (one-way; $(date -u +%FT%TZ), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource))"
for size in 2 1024; do
	for rep in 1 2 3 4 5; do
		ours "$OLD" $size old
		ours "$NEW" $size new
		theirs $size
	done
done

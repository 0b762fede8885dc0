#!/bin/bash
# ack timeouts (hw_counters) against the figure, by tool, size, -u
cd "$(dirname "$0")/../../.." && mkdir -p .cache   # the source top; scratch in .cache/
snap() { for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do echo "${f##*/} $(cat $f)"; done; }
one() {  # one TOOL(rb|ib) TEST(write_bw|send_bw) SIZE N U
	local T=$1 B=$2 S=$3 N=$4 U=$5 sp out t0 t1
	local A="-d rxe0 -x 1 -s $S -n $N -t 128 -Q 1 -I 0 -u $U"
	[ $B = send_bw ] && A="-d rxe0 -x 1 -s $S -n $N -u $U"
	snap > .cache/s0; t0=$(date +%s.%N)
	if [ $T = ib ]; then
		ib_$B $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$(ib_$B $A 127.0.0.1 2>&1 | awk '/^ *[0-9]+ +[0-9]+ /{print $4}')
	else
		./rb_$B $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$(./rb_$B $A --csv 127.0.0.1 2>/dev/null | grep -v '^#' | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["bw_avg_mibps"]}')
	fi
	wait $sp; t1=$(date +%s.%N)
	snap > .cache/s1
	d=$(paste .cache/s0 .cache/s1 | awk '$4-$2 != 0 && $1 !~ /pkts|rdma_/ {printf "%s=%d ", $1, $4-$2}')
	printf 'R %s %s %s %s u%s %8.3f wall=%.2f %s\n' $T $B $S $N $U "$out" $(echo "$t1 - $t0" | bc) "$d"
}
for r in $(seq ${REPS:-4}); do
	for cfg in ${CFGS:-write_bw:65536:1000:14 write_bw:65536:1000:8 write_bw:2:5000:14 write_bw:2:5000:8 send_bw:2:5000:14 send_bw:65536:1000:14}; do
		IFS=: read B S N U <<<"$cfg"
		one rb $B $S $N $U; one ib $B $S $N $U
	done
done

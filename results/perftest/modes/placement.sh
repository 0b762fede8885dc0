#!/bin/bash
# write_bw runs of ours and perftest under several placements, interleaved,
# each with the per-CPU time (/proc/stat), softirq counts and rxe hw_counters
# it cost.  Variants: default (ours, pinned by role), nonuma (ours
# --no-numa), cpu0/cpu1 (ours --cpu N), ib (perftest), ib0/ib1 (perftest
# under taskset -c N).  Each repetition rotates the order by one.
#   placement-1.out, placement-2.out:  REPS=16 / REPS=24, 2 B (the defaults;
#       placement-2 with VARIANTS="default ib nonuma")
#   placement-64k.out:  S=65536 N=1000 Q=1 VARIANTS="default ib nonuma ib1 cpu0 ib0"
#   retries-64k.out:    S=65536 N=1000 Q=1 VARIANTS="default ib ib1" REPS=6
# (the .out files come from the earlier versions of this script, which
# printed either the softirqs or the hw_counters, not both, and MiB/s in
# the 64 KiB files where this prints thousands of messages/s).
cd "$(dirname "$0")/../../.." && mkdir -p .cache   # the source top; scratch in .cache/
A="-d rxe0 -x 1 -s ${S:-2} -n ${N:-5000} -t 128 -Q ${Q:-100} -I 0"
snap() {
	awk '/^cpu[0-9]/{print $1, $2+$3, $4, $7+$8, $5+$6}' /proc/stat
	grep -E 'NET_RX|TASKLET|TIMER' /proc/softirqs
	for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do echo "${f##*/} $(cat "$f")"; done
}
one() {
	local V=$1 sp out extra=() pre=()
	case $V in cpu1) extra=(--cpu 1) ;; cpu0) extra=(--cpu 0) ;; nonuma) extra=(--no-numa) ;; ib0) pre=(taskset -c 0) ;; ib1) pre=(taskset -c 1) ;; esac
	snap > .cache/s0
	if [ "${V:0:2}" = ib ]; then
		ib_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$("${pre[@]}" ib_write_bw $A 127.0.0.1 2>&1 | awk '/^ *[0-9]+ +[0-9]+ /{print $5*1000}')
	else
		./rb_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$(./rb_write_bw $A "${extra[@]}" --csv 127.0.0.1 2>/dev/null | grep -v '^#' | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["msg_rate_mpps"]*1000}')
	fi
	wait $sp
	snap > .cache/s1
	# per CPU: user sys softirq idle (jiffies); softirqs per CPU; counters that moved
	d=$(paste .cache/s0 .cache/s1 | awk '/^cpu/{printf "%s u%d s%d q%d i%d  ", $1, $7-$2, $8-$3, $9-$4, $10-$5; next}
		/NET_RX|TASKLET|TIMER/{n=NF/2; printf "%s %d/%d  ", $1, $(n+2)-$2, $(n+3)-$3; next}
		$4-$2 != 0 && $1 !~ /rdma_/ {printf "%s=%d ", $1, $4-$2}')
	printf 'R %-7s %7.2f  %s\n' "$V" "$out" "$d"     # thousand messages/s
}
read -ra vs <<<"${VARIANTS:-default ib nonuma ib1}"
for r in $(seq "${REPS:-6}"); do
	for k in "${!vs[@]}"; do one "${vs[$(( (k + r) % ${#vs[@]} ))]}"; done
done

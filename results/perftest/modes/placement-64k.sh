#!/bin/bash
# write_bw 64 KiB: which CPU does the work in the fast and the slow mode?
cd "$(dirname "$0")/../../.." && mkdir -p .cache   # the source top; scratch in .cache/
A="-d rxe0 -x 1 -s ${S:-65536} -n ${N:-1000} -t 128 -Q ${Q:-1} -I 0"
snap() { awk '/^cpu[0-9]/{print $1, $2+$3, $4, $7+$8, $5+$6}' /proc/stat; grep -E 'NET_RX|TASKLET|TIMER' /proc/softirqs; }
one() {
	local V=$1 sp out extra=() pre=()
	case $V in cpu1) extra=(--cpu 1) ;; cpu0) extra=(--cpu 0) ;; nonuma) extra=(--no-numa) ;; ib0) pre=(taskset -c 0) ;; ib1) pre=(taskset -c 1) ;; esac
	snap > .cache/s0
	if [ ${V:0:2} = ib ]; then
		ib_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$("${pre[@]}" ib_write_bw $A 127.0.0.1 2>&1 | awk '/^ *[0-9]+ +[0-9]+ /{print $4}')
	else
		./rb_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$(./rb_write_bw $A "${extra[@]}" --csv 127.0.0.1 2>/dev/null | grep -v '^#' | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["bw_avg_mibps"]}')
	fi
	wait $sp
	snap > .cache/s1
	# per CPU: user sys softirq idle (jiffies) ; softirq counts per CPU
	d=$(paste .cache/s0 .cache/s1 | awk '/^cpu/{printf "%s u%d s%d q%d i%d  ", $1, $7-$2, $8-$3, $9-$4, $10-$5} /NET_RX|TASKLET|TIMER/{n=NF/2; printf "%s %d/%d  ", $1, $(n+2)-$2, $(n+3)-$3}')
	printf 'R %-7s %7.2f  %s\n' $V "$out" "$d"
}
for r in $(seq ${REPS:-6}); do for v in ${VARIANTS:-default ib nonuma ib1 cpu0 ib0}; do one $v; done; done

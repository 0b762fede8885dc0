#!/bin/bash
# Does a plain CPU probe run just before and after each benchmark run share its mode?
cd "$(dirname "$0")/../../.." && mkdir -p .cache   # the source top; scratch in .cache/
A="-d rxe0 -x 1 -s 2 -n 5000 -t 128 -Q 100 -I 0"
probe() {
	local t0 t1 t2
	t0=$(date +%s%N); head -c 24M /dev/zero | taskset -c 1 cksum >/dev/null
	t1=$(date +%s%N); taskset -c 1 dd if=/dev/zero of=/dev/null bs=4k count=60000 2>/dev/null
	t2=$(date +%s%N); echo "$(( (t1-t0)/1000000 )) $(( (t2-t1)/1000000 ))"
}
for r in $(seq ${REPS:-30}); do
	p1=$(probe)
	./rb_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.3
	rb=$(./rb_write_bw $A --csv 127.0.0.1 2>/dev/null | grep -v '^#' | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["msg_rate_mpps"]*1000}')
	wait $sp
	p2=$(probe)
	ib_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.3
	ib=$(ib_write_bw $A 127.0.0.1 2>&1 | awk '/^ *[0-9]+ +[0-9]+ /{print $5*1000}')
	wait $sp
	p3=$(probe)
	echo "R $p1 rb $rb $p2 ib $ib $p3"
done

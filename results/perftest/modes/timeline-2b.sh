#!/bin/bash
cd "$(dirname "$0")/../../.." && mkdir -p .cache   # the source top; scratch in .cache/
for i in 1 2 3 4 5 6; do
for N in 5000 20000; do
for T in rb ib; do
	A="-d rxe0 -x 1 -s 2 -n $N -t 128 -Q 1 -I 0"
	f=results/perftest/modes/timelines-2b/tl17-$T-$N-$i.txt; rm -f $f.ready
	taskset -c 0 python3 results/perftest/modes/tl.py 5 $f & tp=$!
	while [ ! -e $f.ready ]; do sleep 0.1; done
	if [ $T = rb ]; then ./rb_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.5; out=$(./rb_write_bw $A --csv 127.0.0.1 2>.cache/tl-err | grep -v '^#' | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["msg_rate_mpps"], $h["window_s"]}')
	else ib_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.5; out=$(ib_write_bw $A 127.0.0.1 2>&1 | awk '/^ *[0-9]+ +[0-9]+ /{print $5}'); fi
	wait $sp; wait $tp
	echo "R $T $N $out"
done
done
done

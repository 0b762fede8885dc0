#!/bin/bash
cd "$(dirname "$0")/../../.." && mkdir -p .cache   # the source top; scratch in .cache/
A="-d rxe0 -x 1 -s 65536 -n 1000 -t 128 -Q 1 -I 0"
for i in 1 2 3 4; do
for T in rb ib; do
	f=results/perftest/modes/timelines/tl-$T-$i.txt; rm -f $f.ready
	taskset -c 0 python3 results/perftest/modes/tl.py 7 $f & tp=$!
	while [ ! -e $f.ready ]; do sleep 0.1; done
	if [ $T = rb ]; then ./rb_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.5; ./rb_write_bw $A --csv 127.0.0.1 2>.cache/tl-err | tail -1 | cut -c1-150
	else ib_write_bw $A >/dev/null 2>&1 & sp=$!; sleep 0.5; ib_write_bw $A 127.0.0.1 2>&1 | awk '/^ *[0-9]+ +[0-9]+ /{print $4}'; fi
	wait $sp; wait $tp
done
done

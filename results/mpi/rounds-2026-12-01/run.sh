#!/bin/bash
# In the test bed: rb_mpi write_bw over 6 ranks on the one rxe0, rounds then
# --sequential, same boot; wall time of each; then --plan for 128/1024/4096.
out=${OUT:?}
mkdir -p "$out"
m="mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader,tcp -np 6"
b=${RB_BIN:-$top_builddir}
for mode in rounds sequential; do
	extra=; [ $mode = sequential ] && extra=--sequential
	t0=$(date +%s.%N)
	timeout 600 $m "$b/rb_mpi" -d rxe0 --bench write_bw -s 65536 -n 500 $extra --csv="$out/$mode-write_bw-6.csv" 2>"$out/$mode.err"
	st=$?
	t1=$(date +%s.%N)
	echo "$mode: exit $st, $(echo "$t1 - $t0" | bc) s" | tee -a "$out/times.txt"
done
for n in 128 1024 4096; do
	for s in "" "-b" "--sequential"; do
		/usr/bin/time -f "%e s" "$b/rb_mpi" --plan=$n $s >>"$out/plan.txt" 2>&1
	done
done

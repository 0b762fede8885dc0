# needs: two-guests mpi slurm
# rb_mpi across two hosts, one rank in each (tests/rxe-two.sh): this is guest
# B (rbguest2); guest A (rbguest1) runs the Slurm controller and its slurmd
# (tests/integration/lib/two-slurm-server.sh).  Here: this node's slurmd, then two ranks, one per
# node, each on its own guest's rxe0, by srun with PMIx and by Open MPI's
# mpirun inside a salloc allocation; the rows must name both hosts.  Skips
# (not a pass) without rb_mpi or Slurm.  Always writes $RB_SLURM_SHARED/done
# at the end: guest A waits for it.  Rank 0 may run in either guest: its
# --csv file goes to $RB_SLURM_SHARED, which both see.

two_cases=("srun -N2 pairs send_bw" "salloc -N2 mpirun pairs write_bw")
two_mpi=${RB_SLURM_MPI:-pmix}

# The cases below, skips included (tap_plan: lib.sh).
tap_plan ${#two_cases[@]}

two_skip() {
	for c in "${two_cases[@]}"; do tap_skip "rb_mpi on two hosts: $c" "$1"; done
}

# two ranks, pairs: 0>1 and 1>0 (in either order: rounds), between the two guests
two_pairs_ok() {
	rb_check "$1" 'status == "complete"' 'meta["pattern"] == "pairs"' 'meta["ranks"] == 2' \
		"meta[\"test\"] == \"rb_$2\"" \
		'expect(sorted((x["src_rank"], x["dst_rank"]) for x in rows) == [(0, 1), (1, 0)], "links: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
		'expect(sorted([x["src_host"], x["dst_host"]] for x in rows) == [["rbguest1", "rbguest2"], ["rbguest2", "rbguest1"]], "hosts: %s" % [(x["src_host"], x["dst_host"]) for x in rows])' \
		'all(bw(x, 65536, 500) for x in rows)' 'all(x["bw_avg_mibps"] > 0 for x in rows)'
}

two_matrix() {
	awk -F, '!/^#/ && NR > 1 && $4 ~ /^[0-9]/ { n++; s = s sprintf("%s(%s)>%s(%s) %.1f MiB/s  ", $2, $4, $3, $5, $11) } END { printf "%d rows: %s", n, s }' "$1"
}

. "$top_srcdir/tests/integration/lib/two-need.sh"
if [ -z "${RB_SLURM_SHARED:-}" ] || [ -z "${RB_PEER:-}" ]; then
	two_skip "not in tests/rxe-two.sh's two-guest test bed (RB_SLURM_SHARED, RB_PEER unset)"
elif two_why=$(slurm_missing "$RB_BIN") && [ -n "$two_why" ]; then
	two_skip "$two_why"
else
	printf '192.0.2.1 rbguest1\n192.0.2.2 rbguest2\n' >>/etc/hosts
	export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
	if ! rb_slurm_up --cpus 1 --key "$RB_SLURM_SHARED/munge.key" /run/rb-slurm rbguest1=192.0.2.1 rbguest2=192.0.2.2; then
		for c in "${two_cases[@]}"; do tap_ok 1 "rb_mpi on two hosts: $c (slurm-up failed)"; done
	else
		rb_job "two srun" "srun --mpi=$two_mpi -N 2 -n 2 \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench send_bw -s 65536 -n 500 --csv=\$RB_SLURM_SHARED/srun.csv" &&
			cp "$RB_SLURM_SHARED/srun.csv" "$(rb_file m.csv)" && cp "$RB_SLURM_SHARED/srun.meta.json" "$(rb_file m.meta.json)" && two_pairs_ok "$(rb_file m.csv)" send_bw
		tap_ok $? "rb_mpi under srun --mpi=$two_mpi -N 2 -n 2: one rank per guest, pairs send_bw rbguest1 <-> rbguest2"
		[ -s "$(rb_file m.csv)" ] && tap_diag "srun: $RB_JOB_TOOK s, $(two_matrix "$(rb_file m.csv)")"
		[ -z "${RB_MPI_KEEP:-}" ] || cp "$(rb_file m.csv)" "$RB_MPI_KEEP/two-srun.csv"

		rb_job "two salloc" "salloc -N 2 -n 2 mpirun --allow-run-as-root --map-by node \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench write_bw -s 65536 -n 500 --csv=\$RB_SLURM_SHARED/salloc.csv" &&
			cp "$RB_SLURM_SHARED/salloc.csv" "$(rb_file m.csv)" && cp "$RB_SLURM_SHARED/salloc.meta.json" "$(rb_file m.meta.json)" && two_pairs_ok "$(rb_file m.csv)" write_bw
		tap_ok $? "rb_mpi under salloc -N 2 mpirun: one rank per guest, pairs write_bw rbguest1 <-> rbguest2"
		[ -s "$(rb_file m.csv)" ] && tap_diag "salloc mpirun: $RB_JOB_TOOK s, $(two_matrix "$(rb_file m.csv)")"
		[ -z "${RB_MPI_KEEP:-}" ] || cp "$(rb_file m.csv)" "$RB_MPI_KEEP/two-salloc.csv"
		cp /run/rb-slurm/slurmd.log "$RB_SLURM_SHARED/slurmd-rbguest2.log" 2>/dev/null
	fi
fi
[ -z "${RB_SLURM_SHARED:-}" ] || touch "$RB_SLURM_SHARED/done"

# needs: one-guest quiet mpi slurm
# rb_mpi under Slurm: a one-node cluster in the guest (scripts/testbed/slurm-up:
# munged, slurmctld and slurmd as root, state in $RB_TMP), then four ranks
# on the one device launched by srun with PMIx, and by Open MPI's mpirun
# inside a salloc allocation; the rows checked as in prog/mpi.sh.  Skips (TAP SKIP,
# not a pass) when rb_mpi was not built or Slurm is not installed (Debian:
# slurmd slurmctld slurm-client munge), and outside the test bed's VM unless
# RB_SLURM=yes (it starts the daemons on the machine it runs on).
#
# Open MPI's own traffic stays off the device under test, through the
# environment here (srun has no --mca): OMPI_MCA_pml=ob1, OMPI_MCA_btl.
# RB_SLURM_MPI replaces srun's --mpi=pmix (e.g. pmi2).

slurm_np=4
slurm_mpi=${RB_SLURM_MPI:-pmix}
slurm_cases=("srun pairs send_bw" "salloc mpirun pairs write_bw" "srun rank stopped")

# The cases below, skips included (tap_plan: lib.sh).
tap_plan ${#slurm_cases[@]}

# The checks of a 4-rank pairs matrix in CSV file $1, bench $2.
slurm_pairs_ok() {
	rb_check "$1" 'status == "complete"' 'meta["pattern"] == "pairs"' \
		'meta["ranks"] == 4' "meta[\"test\"] == \"rb_$2\"" \
		'expect(" ".join(sorted("%d>%d" % (x["src_rank"], x["dst_rank"]) for x in rows)) == "0>1 0>2 0>3 1>0 1>2 1>3 2>0 2>1 2>3 3>0 3>1 3>2", "links in rows: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
		'meta["rounds"] == 6 and sorted(set(x["round"] for x in rows)) == list(range(6))' \
		'all(x["pattern"] == "pairs" and x["src_host"] == x["dst_host"] == E["SLURM_NODE"] for x in rows)' \
		'all(bw(x, 4096, 200) for x in rows)' 'all(x["bw_avg_mibps"] > 0 for x in rows)'
}

# "N rows, a>b NN MiB/s ..." of a matrix, for the log
slurm_matrix() {
	awk -F, '!/^#/ && NR > 1 && $4 ~ /^[0-9]/ { n++; s = s sprintf("%s>%s %.0f  ", $4, $5, $11) } END { printf "%d rows (src>dst MiB/s): %s", n, s }' "$1"
}

if [ ! -x "$RB_BIN/rb_mpi" ]; then
	for c in "${slurm_cases[@]}"; do
		tap_skip "rb_mpi under Slurm: $c" "rb_mpi not built (./configure --with-mpi; Debian: libopenmpi-dev openmpi-bin)"
	done
elif [ "${RB_TESTBED:-}" != vm ] && [ "${RB_SLURM:-}" != yes ]; then
	for c in "${slurm_cases[@]}"; do
		tap_skip "rb_mpi under Slurm: $c" "not in the test bed's VM: slurm-up would start munged, slurmctld and slurmd on this machine (RB_SLURM=yes to do it)"
	done
elif ! command -v srun >/dev/null || ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
	! command -v munged >/dev/null; then
	for c in "${slurm_cases[@]}"; do
		tap_skip "rb_mpi under Slurm: $c" "Slurm not installed (Debian: slurmd slurmctld slurm-client munge)"
	done
else
	export SLURM_NODE=$(hostname -s)
	export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
	if ! rb_slurm_up --cpus "$slurm_np" "$RB_TMP/slurm" "$SLURM_NODE=$RB_IP"; then
		for c in "${slurm_cases[@]}"; do tap_ok 1 "rb_mpi under Slurm: $c (slurm-up failed)"; done
	else
		# srun starts the ranks, PMIx wires them up
		rb_job "slurm srun pairs" "srun --mpi=$slurm_mpi -n $slurm_np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench send_bw --pattern pairs -s 4096 -n 200 --csv=\$RB_CASE_DIR/m.csv" &&
			slurm_pairs_ok "$(rb_file m.csv)" send_bw
		tap_ok $? "rb_mpi under srun --mpi=$slurm_mpi -n $slurm_np: pairs send_bw, 12 links, each a full row"
		[ -s "$(rb_file m.csv)" ] && tap_diag "srun: $RB_JOB_TOOK s, $(slurm_matrix "$(rb_file m.csv)")"

		# Open MPI's launcher inside an allocation: mpirun takes the slots
		# from salloc (no --oversubscribe, no -np)
		rb_job "slurm salloc mpirun" "salloc -n $slurm_np mpirun --allow-run-as-root \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench write_bw --pattern pairs -s 4096 -n 200 --csv=\$RB_CASE_DIR/m.csv" &&
			slurm_pairs_ok "$(rb_file m.csv)" write_bw &&
			grep -q 'Granted job allocation' "$(rb_file job.err)"
		tap_ok $? "rb_mpi under salloc -n $slurm_np mpirun: pairs write_bw, 12 links, each a full row"
		[ -s "$(rb_file m.csv)" ] && tap_diag "salloc mpirun: $RB_JOB_TOOK s, $(slurm_matrix "$(rb_file m.csv)")"

		# a rank that hangs (SIGSTOP) rather than dies (-D 4: see rb_mpi_stopped_case)
		rb_mpi_stopped_case "slurm rank stopped" "srun --mpi=$slurm_mpi -n $slurm_np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench write_bw -D 4" "rb_mpi under srun"
	fi
	"$top_srcdir/scripts/testbed/slurm-up" --stop "$RB_TMP/slurm"
fi

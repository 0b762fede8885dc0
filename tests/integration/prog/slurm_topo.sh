# needs: one-guest quiet mpi slurm
# rb_mpi --topology=slurm under srun: a one-node cluster in the guest
# (scripts/testbed/slurm-up --topology: TopologyPlugin=topology/tree and a
# topology.conf with the node on leaf switch s0 under s_top), four ranks on
# the one device; the rows name the switch Slurm gives the node (s0), as
# --topology FILE does.  Skips as prog/slurm.sh does (no rb_mpi, no Slurm, not in the VM
# unless RB_SLURM=yes).

topo_cases=("srun --topology=slurm pairs send_bw")
topo_np=4

# The cases below, skips included (tap_plan: lib.sh).
tap_plan ${#topo_cases[@]}

if [ ! -x "$RB_BIN/rb_mpi" ]; then
	tap_skip "rb_mpi --topology=slurm: ${topo_cases[0]}" "rb_mpi not built (./configure --with-mpi)"
elif [ "${RB_TESTBED:-}" != vm ] && [ "${RB_SLURM:-}" != yes ]; then
	tap_skip "rb_mpi --topology=slurm: ${topo_cases[0]}" "not in the test bed's VM: slurm-up would start Slurm's daemons here (RB_SLURM=yes to do it)"
elif ! command -v srun >/dev/null || ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
	! command -v munged >/dev/null; then
	tap_skip "rb_mpi --topology=slurm: ${topo_cases[0]}" "Slurm not installed (Debian: slurmd slurmctld slurm-client munge)"
else
	export SLURM_NODE=$(hostname -s)
	export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
	mkdir -p "$RB_TMP/slurm-topo"
	printf '%s\n' "SwitchName=s0 Nodes=$SLURM_NODE" "SwitchName=s_top Switches=s0" >"$RB_TMP/slurm-topo/topology.in"
	if ! rb_slurm_up --cpus "$topo_np" --topology "$RB_TMP/slurm-topo/topology.in" "$RB_TMP/slurm-topo/state" "$SLURM_NODE=$RB_IP"; then
		tap_ok 1 "rb_mpi --topology=slurm: ${topo_cases[0]} (slurm-up failed)"
	else
		tap_diag "scontrol show topology: $(scontrol show topology 2>&1 | paste -sd'|')"
		rb_job "slurm topo srun" "srun --mpi=${RB_SLURM_MPI:-pmix} -n $topo_np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench send_bw --pattern pairs --topology=slurm -s 4096 -n 200 --csv=\$RB_CASE_DIR/m.csv" &&
			rb_check "$(rb_file m.csv)" 'status == "complete"' 'meta["topology"] == "slurm"' 'meta["ranks"] == 4' \
				'len(rows) == 12' 'all(x["src_switch"] == x["dst_switch"] == "s0" for x in rows)' \
				'all(x["link_status"] == "ok" and x["bw_avg_mibps"] > 0 for x in rows)'
		tap_ok $? "rb_mpi --topology=slurm under srun -n $topo_np: 12 links, each row on switch s0 (Slurm's leaf switch of the node)"
		[ -s "$(rb_file m.csv)" ] && tap_diag "$(awk -F, 'NR == 1 || /s0/' "$(rb_file m.csv)" | head -3 | paste -sd'|')"
	fi
	"$top_srcdir/scripts/testbed/slurm-up" --stop "$RB_TMP/slurm-topo/state"
fi

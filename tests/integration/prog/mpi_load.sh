# needs: one-guest quiet mpi
# rb_mpi: incast and latency under load (issue 21's cluster part).  Sourced
# by run-all.sh (see lib.sh); four ranks share the one device, as in
# prog/mpi.sh (its mpirun options: RB_MPI_ARGS).  Skips (TAP SKIP, not a
# pass) when rb_mpi was not built or mpirun is missing.  Under emulation the
# figures are the emulator's: the cases check what ran and what the rows
# say, and the diagnostics give idle against loaded latency.

ml_args=${RB_MPI_ARGS:-"--allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader,tcp"}
ml_cases=("incast into 0" "incast --incast-dst 2" "latency under load" "--incast-dst past the job")
# a rank killed under load: the full run (the fast one kills a measuring
# rank in prog/mpi.sh; this one, 15-25 s of an emulated guest, a
# background rank)
rb_full && ml_cases+=("a rank killed under load")

# The cases below, skips included (tap_plan: lib.sh).
tap_plan ${#ml_cases[@]}

# ml_run NAME NP 'RB_MPI ARGS': rb_job of mpirun -np NP rb_mpi -d $RB_DEV ARGS.
ml_run() {
	rb_job "$1" "mpirun $ml_args -np $2 \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" $3"
}

if [ ! -x "$RB_BIN/rb_mpi" ] || ! command -v mpirun >/dev/null; then
	for c in "${ml_cases[@]}"; do
		tap_skip "rb_mpi: $c" "rb_mpi not built (./configure --with-mpi) or mpirun not found"
	done
else
	if [ "$(hostname)" = "(none)" ] && [ -n "${RB_TESTBED:-}" ]; then
		hostname rbguest && tap_diag "the guest had no hostname (Open MPI refuses '(none)'): now rbguest"
	fi

	# incast: ranks 1, 2, 3 all write to rank 0 at once, in one round
	ml_run "mpi incast" 4 "--bench write_bw --pattern incast -s 65536 -n 500 --csv=\$RB_CASE_DIR/m.csv" &&
		rb_check "$(rb_file m.csv)" 'status == "complete"' 'meta["pattern"] == "incast"' \
			'meta["incast_dst"] == 0' 'meta["rounds"] == 1' 'meta["links_at_once"] == 3' \
			'expect(sorted((x["src_rank"], x["dst_rank"]) for x in rows) == [(1, 0), (2, 0), (3, 0)], "links: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
			'all(x["round"] == 0 and x["pattern"] == "incast" and x["link_status"] == "ok" for x in rows)' \
			'all(bw(x, 65536, 500) and x["bw_avg_mibps"] > 0 for x in rows)'
	tap_ok $? "rb_mpi --pattern incast write_bw, 4 ranks: 3 rows into rank 0, one round, 3 links at once"
	[ -s "$(rb_file m.csv)" ] && tap_diag "incast into 0 (src>dst MiB/s): $(rb_py "$(rb_file m.csv)" <<'PY'
import csv, sys
for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")):
    print("%s>%s %s" % (r["src_rank"], r["dst_rank"], r["bw_avg_mibps"]), end="  ")
PY
)"

	# --incast-dst: into rank 2, send_bw, JSON
	ml_run "mpi incast dst" 4 "--bench send_bw --pattern incast --incast-dst=2 -s 4096 -n 300 --json=\$RB_CASE_DIR/m.json" &&
		rb_check "$(rb_file m.json)" 'status == "complete"' 'meta["incast_dst"] == 2' \
			'sorted((x["src_rank"], x["dst_rank"]) for x in rows) == [(0, 2), (1, 2), (3, 2)]' \
			'all(x["link_status"] == "ok" and x["bw_avg_mibps"] > 0 for x in rows)'
	tap_ok $? "rb_mpi --pattern incast --incast-dst=2 send_bw --json: 3 rows into rank 2"

	# latency under load: 0 -> 1 measures send_lat idle, then while 2 -> 3
	# write (pairs), then while 2 and 3 write into 1 (incast, the pair's
	# destination); the background links' rows carry their bandwidth
	RB_PAIR_TIMEOUT=300 ml_run "mpi load" 4 "--bench send_lat -s 64 -n 300 --background write_bw --background-pattern pairs,incast --csv=\$RB_CASE_DIR/m.csv" &&
		rb_check "$(rb_file m.csv)" 'status == "complete"' 'meta["pattern"] == "load"' \
			'meta["latency_pair"] == "0->1"' 'meta["load_patterns"] == "pairs,incast"' \
			'meta["load_bench"] == "rb_write_bw"' 'meta["load_size"] == 65536' 'meta["incast_dst"] == 1' \
			'meta["rounds"] == 3' 'meta["links_at_once"] == 3' \
			'header[-3:] == ["role", "load_links", "load_bw_mibps"]' \
			'expect([(x["round"], x["role"], x["pattern"], x["src_rank"], x["dst_rank"]) for x in rows] == [(0, "idle", "idle", 0, 1), (1, "loaded", "pairs", 0, 1), (1, "background", "pairs", 2, 3), (2, "loaded", "incast", 0, 1), (2, "background", "incast", 2, 1), (2, "background", "incast", 3, 1)], "rows: %s" % [(x["round"], x["role"], x["pattern"], x["src_rank"], x["dst_rank"]) for x in rows])' \
			'all(x["link_status"] == "ok" for x in rows)' \
			'all(lat(x, 64, 300) and x["lat_p99_us"] >= x["lat_p50_us"] > 0 for x in rows if x["role"] != "background")' \
			'[x["load_links"] for x in rows if x["role"] != "background"] == [0, 1, 2]' \
			'all(x["load_bw_mibps"] > 0 and x["size_bytes"] == 65536 for x in rows if x["role"] == "background")'
	tap_ok $? "rb_mpi --bench send_lat --background write_bw, pairs,incast, 4 ranks: the idle row, a loaded row per load (its background links all running), the background rows with their bandwidth"
	if [ -s "$(rb_file m.csv)" ]; then
		cp "$(rb_file m.csv)" "$RB_TMP/mpi_load.csv" 2>/dev/null
		tap_diag "latency under load (role load: p50 p99 p99.9 us / background MiB/s): $(rb_py "$(rb_file m.csv)" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
idle = [r for r in rows if r["role"] == "idle"]
for r in rows:
    if r["role"] == "background":
        print("bg %s>%s %s %.1f;" % (r["src_rank"], r["dst_rank"], r["pattern"], float(r["load_bw_mibps"])), end=" ")
    else:
        ratio = float(r["lat_p99_us"]) / float(idle[0]["lat_p99_us"]) if idle else float("nan")
        print("%s %s: %s %s %s (p99 x%.2f of idle);" % (r["role"], r["pattern"], r["lat_p50_us"], r["lat_p99_us"], r.get("lat_p99_9_us", "?"), ratio), end=" ")
PY
)"
	fi

	# a destination past the job: exit 2, the option named once (rank 0)
	ml_run "mpi incast usage" 4 "--pattern incast --incast-dst 4"
	[ "$(cat "$(rb_file job.rc)")" = 2 ] && [ "$(grep -c -- "--incast-dst: '4'" "$(rb_file job.err)")" = 1 ]
	tap_ok $? "rb_mpi --pattern incast --incast-dst 4 with 4 ranks: exit 2, the message once"

	# a rank (the third started: a background rank, as a rule) killed while
	# the pair measures under load: the job ends (non-zero, said), no hang
	# (the full run)
	if rb_full; then
		rb_mpi_signal "mpi load rank killed" KILL 4 "mpirun $ml_args -np 4 \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench send_lat -n 50000 --background write_bw --background-pattern pairs,incast --timeout 5 --step-timeout 8 --csv=\$RB_CASE_DIR/m.csv"
		tap_diag "load, rank killed: pid ${RB_VICTIM:-none}, mpirun exited $RB_JOB_RC after $RB_JOB_TOOK s"
		[ -n "$RB_VICTIM" ] && [ "$RB_JOB_RC" != 0 ] && [ "$RB_JOB_RC" != 124 ] && [ "$RB_JOB_TOOK" -le 30 ] &&
			grep -Eqi 'killed|signal 9|exited|abort' "$(rb_file job.err)"
		tap_ok $? "rb_mpi --background write_bw: a rank killed mid-run ends the job (non-zero, said on stderr) within 30 s"
	fi
fi

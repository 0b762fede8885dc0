# needs: one-guest quiet mpi
# rb_mpi: a benchmark over every link of an MPI job.  Sourced by run-all.sh
# (see lib.sh).  Four ranks share the one device (12 ordered pairs); each
# case checks the rows rank 0 gathered.  Skips (TAP SKIP, not a pass) when
# rb_mpi was not built (./configure --with-mpi) or mpirun is missing.
#
# mpirun as root needs --allow-run-as-root (or OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1); four ranks on the guest's two CPUs need
# --oversubscribe.  The MPI traffic itself stays off the RDMA device under
# test: --mca pml ob1 --mca btl self,vader,tcp (no UCX, no openib on rxe0).
# RB_MPI_ARGS replaces these mpirun options; RB_MPI_NP the 4 ranks.

mpi_np=${RB_MPI_NP:-4}
mpi_args=${RB_MPI_ARGS:-"--allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader,tcp"}
mpi_cases=("pairs send_bw" "pairs read_lat --json" "ring write_bw" "bisection send_lat" "usage"
	"rank killed" "heatmap" "rounds vs sequential" "shift" "a link made to fail")
# a rank stopped under mpirun: the full run (under srun in the fast one too:
# prog/slurm.sh, the same rb_mpi_stopped_case)
rb_full && mpi_cases+=("rank stopped" "8 ranks: rounds vs sequential")

# The cases below, skips included (tap_plan: lib.sh).
tap_plan ${#mpi_cases[@]}

# mpi_run NAME 'RB_MPI ARGS': rb_job of mpirun -np $mpi_np rb_mpi -d $RB_DEV ARGS.
mpi_run() {
	rb_job "$1" "mpirun $mpi_args -np $mpi_np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" $2"
}

# The rows' links, in order: "0>1 0>2 ..." (every ordered pair of N ranks).
mpi_all_pairs() {
	local s d out=""
	for ((s = 0; s < $1; s++)); do
		for ((d = 0; d < $1; d++)); do [ "$s" = "$d" ] || out="$out $s>$d"; done
	done
	echo "${out# }"
}

if [ ! -x "$RB_BIN/rb_mpi" ]; then
	for c in "${mpi_cases[@]}"; do
		tap_skip "rb_mpi: $c" "rb_mpi not built (./configure --with-mpi; Debian: libopenmpi-dev openmpi-bin)"
	done
elif ! command -v mpirun >/dev/null; then
	for c in "${mpi_cases[@]}"; do
		tap_skip "rb_mpi: $c" "mpirun not found (Debian: openmpi-bin)"
	done
else
	# Open MPI refuses the node name "(none)", a guest's without a hostname
	if [ "$(hostname)" = "(none)" ] && [ -n "${RB_TESTBED:-}" ]; then
		hostname rbguest && tap_diag "the guest had no hostname (Open MPI refuses '(none)'): now rbguest"
	fi
	links=$(mpi_all_pairs "$mpi_np") nlinks=$((mpi_np * (mpi_np - 1)))
	export MPI_LINKS="$links" MPI_NP=$mpi_np

	# pairs: every ordered pair once (in rounds), each with its full row
	mpi_run "mpi pairs send_bw" "--bench send_bw --pattern pairs -s 4096 -n 200 --csv=\$RB_CASE_DIR/m.csv" &&
		rb_check "$(rb_file m.csv)" 'status == "complete"' 'meta["pattern"] == "pairs"' \
			'comments == 0' 'side["rows"] == len(rows)' \
			'meta["ranks"] == int(E["MPI_NP"])' 'meta["test"] == "rb_send_bw"' \
			'header[:5] == ["pattern", "src_host", "dst_host", "src_rank", "dst_rank"]' \
			'header[-3:] == ["round", "link_status", "link_error"]' \
			'expect(" ".join(sorted("%d>%d" % (x["src_rank"], x["dst_rank"]) for x in rows)) == E["MPI_LINKS"], "links in rows: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
			'all(x["link_status"] == "ok" for x in rows)' \
			'all(x["pattern"] == "pairs" and x["src_host"] and x["dst_host"] for x in rows)' \
			'all(bw(x, 4096, 200) for x in rows)' 'all(x["bw_avg_mibps"] > 0 for x in rows)'
	tap_ok $? "rb_mpi --pattern pairs send_bw, $mpi_np ranks: $nlinks links, each a full row"
	if [ -s "$(rb_file m.csv)" ]; then
		cp "$(rb_file m.csv)" "$RB_TMP/pairs.csv"
		cp "$(rb_file m.meta.json)" "$RB_TMP/pairs.meta.json"
		tap_diag "matrix (src>dst MiB/s): $(awk -F, 'NR > 1 && $4 ~ /^[0-9]/ { printf "%s>%s %.0f  ", $4, $5, $11 }' "$(rb_file m.csv)")"
	fi

	# a latency benchmark, JSON
	mpi_run "mpi pairs read_lat" "--bench read_lat -n 200 --json=\$RB_CASE_DIR/m.json" &&
		rb_check "$(rb_file m.json)" 'doc["schema_version"] == 1' 'status == "complete"' \
			'len(rows) == int(E["MPI_NP"]) * (int(E["MPI_NP"]) - 1)' \
			'all(lat(x, 2, 200) for x in rows)' 'all(isinstance(x["src_rank"], int) for x in rows)'
	tap_ok $? "rb_mpi --bench read_lat --json: one latency row per link"

	# ring: rank i to i+1, all at once (two links per rank, two threads)
	mpi_run "mpi ring write_bw" "--bench write_bw --pattern ring -s 4096 -n 200 --csv=\$RB_CASE_DIR/m.csv" &&
		rb_check "$(rb_file m.csv)" 'status == "complete"' 'meta["pattern"] == "ring"' \
			'sorted((x["src_rank"], x["dst_rank"]) for x in rows) == [(i, (i + 1) % int(E["MPI_NP"])) for i in range(int(E["MPI_NP"]))]' \
			'all(bw(x, 4096, 200) for x in rows)'
	tap_ok $? "rb_mpi --pattern ring write_bw: rank i -> i+1, one row each"

	# bisection: the first half to the second, all at once
	mpi_run "mpi bisection send_lat" "--bench send_lat --pattern bisection -n 200 --csv=\$RB_CASE_DIR/m.csv" &&
		rb_check "$(rb_file m.csv)" 'status == "complete"' 'meta["pattern"] == "bisection"' \
			'sorted((x["src_rank"], x["dst_rank"]) for x in rows) == [(i, i + int(E["MPI_NP"]) // 2) for i in range(int(E["MPI_NP"]) // 2)]' \
			'all(lat(x, 2, 200) for x in rows)'
	tap_ok $? "rb_mpi --pattern bisection send_lat: first half -> second half"

	# a bad pattern: exit 2, one message naming the option
	mpi_run "mpi usage" "--pattern star"
	[ "$(cat "$(rb_file job.rc)")" = 2 ] && [ "$(grep -c -- "--pattern: 'star'" "$(rb_file job.err)")" = 1 ]
	tap_ok $? "rb_mpi --pattern star: exit 2, the message once (rank 0's)"

	# a rank killed mid-run: the job ends (non-zero, an error), no hang;
	# rank 0 has written the rows so far and names the links not measured
	rb_mpi_signal "mpi rank killed" KILL 4 "mpirun $mpi_args -np $mpi_np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench write_bw -D 20 --timeout 5 --csv=\$RB_CASE_DIR/m.csv"
	tap_diag "rank killed: pid ${RB_VICTIM:-none}, mpirun exited $RB_JOB_RC after $RB_JOB_TOOK s"
	# mpirun passes the killed rank's status on (137 = 128 + SIGKILL); the
	# `timeout 120` around it cannot have fired within 30 s
	[ -n "$RB_VICTIM" ] && [ "$RB_JOB_RC" != 0 ] && [ "$RB_JOB_RC" != 124 ] && [ "$RB_JOB_TOOK" -le 30 ] &&
		grep -Eqi 'killed|signal 9|exited|abort' "$(rb_file job.err)" &&
		rb_check "$(rb_file m.csv)" 'status in ("partial", "failed")' \
			'expect(" ".join(sorted("%d>%d" % (x["src_rank"], x["dst_rank"]) for x in rows)) == E["MPI_LINKS"], "every link once, measured or not: %s" % [(x["src_rank"], x["dst_rank"], x["link_status"]) for x in rows])' \
			'any(x["link_status"] == "unmeasured" for x in rows)' \
			'all(x["link_status"] == "ok" or x["link_error"] for x in rows)'
	tap_ok $? "rb_mpi: a rank killed mid-run ends the job (non-zero, said on stderr) within 30 s; rank 0's file lists every link, those not measured as unmeasured"
	[ -s "$(rb_file m.csv)" ] && tap_diag "rank killed: rows by status: $(awk -F, '!/^#/ && NR > 1 { n[$(NF - 1)]++ } END { for (k in n) printf "%s %d  ", k, n[k] }' "$(rb_file m.csv)")"

	# a rank that hangs (SIGSTOP) rather than dies (-D 4: see rb_mpi_stopped_case)
	! rb_full || rb_mpi_stopped_case "mpi rank stopped" "mpirun $mpi_args -np $mpi_np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench write_bw -D 4" "rb_mpi under mpirun"

	# rounds against one link at a time, 4 ranks (6 and 8 in the full run;
	# the fast run had 6 until 2026-12-03: 30 links one at a time, the
	# longest case of rxe-mpi's boot): the same links, fewer rounds
	for np in $(rb_fast_full 4 "6 8"); do
		export MPI_NP_R=$np MPI_LINKS_R=$(mpi_all_pairs "$np")
		rb_job "mpi rounds $np" "mpirun $mpi_args -np $np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench send_bw -s 4096 -n 100 --csv=\$RB_CASE_DIR/r.csv && mpirun $mpi_args -np $np \"\$RB_BIN/rb_mpi\" -d \"\$RB_DEV\" --bench send_bw -s 4096 -n 100 --sequential --csv=\$RB_CASE_DIR/s.csv" &&
			rb_check "$(rb_file r.csv)" 'status == "complete"' 'meta["rounds"] == 2 * (int(E["MPI_NP_R"]) - 1)' \
				'meta["links_at_once"] == int(E["MPI_NP_R"]) // 2' \
				'expect(" ".join(sorted("%d>%d" % (x["src_rank"], x["dst_rank"]) for x in rows)) == E["MPI_LINKS_R"], "links: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
				'max(x["round"] for x in rows) == meta["rounds"] - 1' \
				'all(len([y for y in rows if y["round"] == r]) == int(E["MPI_NP_R"]) // 2 for r in range(meta["rounds"]))' \
				'all(x["link_status"] == "ok" and bw(x, 4096, 100) for x in rows)' &&
			rb_check "$(rb_file s.csv)" 'status == "complete"' 'meta["links_at_once"] == 1' \
				'meta["rounds"] == int(E["MPI_NP_R"]) * (int(E["MPI_NP_R"]) - 1)' \
				'expect(" ".join("%d>%d" % (x["src_rank"], x["dst_rank"]) for x in rows) == E["MPI_LINKS_R"], "links: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
				'all(x["link_status"] == "ok" and bw(x, 4096, 100) for x in rows)'
		tap_ok $? "rb_mpi, $np ranks: rounds ($((2 * (np - 1))) rounds of $((np / 2)) links) and --sequential ($((np * (np - 1))) rounds) measure the same $((np * (np - 1))) links"
		[ -s "$(rb_file s.csv)" ] && tap_diag "$np ranks: rounds and sequential in $RB_JOB_TOOK s together; $(grep -h 'rounds in' "$(rb_file job.err)" | tr '\n' ' ')"
	done

	# shift: round k, every rank i to i+k (two links a rank at once)
	mpi_run "mpi shift" "--bench write_bw --pattern shift -s 4096 -n 100 --csv=\$RB_CASE_DIR/m.csv" &&
		rb_check "$(rb_file m.csv)" 'status == "complete"' 'meta["rounds"] == int(E["MPI_NP"]) - 1' \
			'expect(" ".join(sorted("%d>%d" % (x["src_rank"], x["dst_rank"]) for x in rows)) == E["MPI_LINKS"], "links: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
			'all((x["dst_rank"] - x["src_rank"]) % int(E["MPI_NP"]) == x["round"] + 1 for x in rows)'
	tap_ok $? "rb_mpi --pattern shift: round k is rank i -> i+k, every ordered pair once"

	# a link made to fail (the test build: its QP to the error state): a
	# failed row with the cause, every other link measured, the job goes on
	rb_case "mpi link failed"
	if [ ! -x "$top_builddir/tests/rb_mpi_faults" ]; then
		tap_ok 1 "rb_mpi: a link made to fail: tests/rb_mpi_faults not built (make check builds it)"
	else
		rb_job "mpi link failed" "RB_TEST_BREAK_LINK='2>3' mpirun $mpi_args -x RB_TEST_BREAK_LINK -np $mpi_np \"$top_builddir/tests/rb_mpi_faults\" -d \"\$RB_DEV\" --bench send_bw -s 4096 -n 100 --timeout 5 --csv=\$RB_CASE_DIR/m.csv" &&
			rb_check "$(rb_file m.csv)" 'status == "complete"' \
				'expect(" ".join(sorted("%d>%d" % (x["src_rank"], x["dst_rank"]) for x in rows)) == E["MPI_LINKS"], "links: %s" % [(x["src_rank"], x["dst_rank"]) for x in rows])' \
				'[(x["src_rank"], x["dst_rank"]) for x in rows if x["link_status"] != "ok"] == [(2, 3)]' \
				'expect(all("completion error" in x["link_error"] for x in rows if x["link_status"] == "failed"), [x["link_error"] for x in rows if x["link_status"] == "failed"])' \
				'all(bw(x, 4096, 100) for x in rows if x["link_status"] == "ok")'
		tap_ok $? "rb_mpi: link 2 -> 3 made to fail: a failed row with its cause, the other $((nlinks - 1)) links measured, exit 0"
		tap_diag "failed link: $(grep -m1 'completion error' "$(rb_file job.err)")"
	fi

	# the heatmap of the pairs matrix, and the outlier list
	rb_case "mpi heatmap"
	if [ ! -s "$RB_TMP/pairs.csv" ]; then
		tap_ok 1 "rb-heatmap: no pairs matrix to draw (the pairs case failed)"
	elif ! command -v gnuplot >/dev/null; then
		tap_skip "rb-heatmap: a PNG of the pairs matrix" "gnuplot not found"
	else
		"$top_builddir/scripts/tools/rb-heatmap" -o "$RB_CASE_DIR" -n pairs "$RB_TMP/pairs.csv" \
			>"$RB_CASE_DIR/heatmap.out" 2>"$RB_CASE_DIR/heatmap.err"
		st=$?
		cat "$RB_CASE_DIR/heatmap.err" | sed 's/^/# /'
		[ "$st" = 0 ] && [ -s "$RB_CASE_DIR/pairs.png" ] && grep -q pairs.png "$RB_CASE_DIR/heatmap.out"
		tap_ok $? "rb-heatmap: a PNG of the pairs matrix (its CSV as rb_mpi wrote it, with the sidecar)"
		# RB_MPI_KEEP=DIR: keep the matrix and its chart, to look at them
		[ -z "${RB_MPI_KEEP:-}" ] || cp "$RB_CASE_DIR/pairs.png" "$RB_TMP/pairs.csv" "$RB_MPI_KEEP/"
	fi
fi

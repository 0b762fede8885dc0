# needs: one-guest
# rb_atomic_bw and rb_atomic_lat with both operations.  Sourced by
# run-all.sh (see lib.sh).  Atomics move 8 bytes (-s and -a are usage
# errors); RC only; the server prints the client's row.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 17

for op in FETCH_AND_ADD CMP_AND_SWAP; do
	rb_csv "atomic_bw $op" rb_atomic_bw "-A $op -n 1000" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 8, 1000)' \
			"meta['atomic_op'] == '$op'" 'meta["transport"] == "RC"' &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_atomic_bw -A $op: 1000 operations, both sides print the client's row"

	# --raw and -H: the row's statistics recomputed from every sample (a
	# round trip, not halved), the histogram adding up to them.
	rb_csv "atomic_lat $op" rb_atomic_lat "-A $op -n 300" \
		'--raw=$RB_CASE_DIR/raw.csv -H $RB_CASE_DIR/hist.csv' &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 8, 300)' \
			"meta['atomic_op'] == '$op'" 'meta["latency"] == "round trip of one operation"' \
			"raw(r, '$(rb_file raw.csv)')" "hist('$(rb_file hist.csv)', 300)" &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_atomic_lat -A $op --raw -H: 300 samples, statistics agree with them, histogram sums to 300"
done

# The default operation is fetch-and-add.
rb_csv "atomic_bw default" rb_atomic_bw "-n 200" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 8, 200)' 'meta["atomic_op"] == "FETCH_AND_ADD"'
tap_ok $? "rb_atomic_bw without -A: FETCH_AND_ADD"

rb_csv "atomic_bw -D" rb_atomic_bw "-D 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 8, r["iterations"])' \
		'window(r, meta, 0.3, 2.0)'
tap_ok $? "rb_atomic_bw -D 2: operations > 0, window within 0.3..2 s"

rb_csv "atomic_lat -D" rb_atomic_lat "-A CMP_AND_SWAP -D 2" '--raw=$RB_CASE_DIR/raw.csv' &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 8, None)' \
		'window(r, meta, 0.3, 2.0)' "raw(r, '$(rb_file raw.csv)')" 'r["lat_pct_method"] == "exact"'
tap_ok $? "rb_atomic_lat -D 2: samples > 0, window within 0.3..2 s, percentiles exact (the --raw samples')"

rb_csv "atomic_bw -q -b" rb_atomic_bw "-A CMP_AND_SWAP -q 2 -n 250 -b" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 8, 500)' 'meta["qps"] == 2' 'meta["bidirectional"] == "yes"' \
	-- "$(rb_file server.csv)" 'bw(r, 8, 500)'
tap_ok $? "rb_atomic_bw -q 2 -b -n 250: each side did 500 operations"

rb_csv "atomic_bw -R -o" rb_atomic_bw "-R -o 4 -q 2 -n 500" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 8, 1000)' 'meta["connect"] == "rdma_cm"' \
		'meta["outstanding"] == 4'
tap_ok $? "rb_atomic_bw -R -o 4 -q 2: connected by rdma_cm, 1000 operations"

rb_bench "atomic_lat -R -e --json" rb_atomic_lat "-R -e -A CMP_AND_SWAP -n 300" '--json=$RB_CASE_DIR/client.json' &&
	rb_check "$(rb_file client.json)" 'doc["schema_version"] == 1' 'status == "complete"' \
		'lat(r, 8, 300)' 'meta["connect"] == "rdma_cm"' 'meta["completion"].startswith("events")' \
		'meta["atomic_op"] == "CMP_AND_SWAP"'
tap_ok $? "rb_atomic_lat -R -e --json: connected by rdma_cm, completion events, 300 samples"

rb_bench "atomic mismatch -A" rb_atomic_bw "-n 100" '-A FETCH_AND_ADD' '-A CMP_AND_SWAP'
rb_failed 1 'atomic operation \(-A\) differs: (server CMP_AND_SWAP, client FETCH_AND_ADD|client FETCH_AND_ADD, server CMP_AND_SWAP)'
tap_ok $? "rb_atomic_bw -A FETCH_AND_ADD vs CMP_AND_SWAP: both exit 1 naming -A"

# A device without atomics (atomic_cap NONE): rxe has them, so a preloaded
# ibv_query_device reports NONE on the client's side.  The client says so
# and exits 1; its server, left without a client, fails too.
rb_case "atomic_bw no atomics"
if cc -shared -fPIC -o "$RB_CASE_DIR/noatomic.so" "$top_srcdir/tests/integration/noatomic.c" -ldl \
	2>"$RB_CASE_DIR/cc.err"; then
	rb_start server "$(rb_cmd rb_atomic_bw) -n 100 --timeout 5"
	wait_listen "${RB_PAIR_PORT:-18515}"
	# (an ASan build's runtime would insist on coming first)
	rb_start client "ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0 \
		LD_PRELOAD=\$RB_CASE_DIR/noatomic.so $(rb_cmd rb_atomic_bw) -n 100 --timeout 5 \"\$RB_IP\""
	rb_wait client server
	rb_failed 1 "device $RB_DEV does not support atomic operations \\(atomic_cap is NONE\\)" client &&
		rb_failed 1 '.' server
	tap_ok $? "a device without atomics: the client exits 1 saying so, the server exits 1"
else
	tap_skip "a device without atomics" "no C compiler for the preload shim: $(head -c 200 "$RB_CASE_DIR/cc.err")"
fi

usage_case '-A/--atomic-type.*FETCH_AND_ADD or CMP_AND_SWAP' rb_atomic_bw -A ADD
tap_ok $? "usage: rb_atomic_bw -A ADD exits 2 naming -A and its values"
usage_case '-s/--size is not supported' rb_atomic_lat -s 64
tap_ok $? "usage: rb_atomic_lat -s 64 exits 2: atomics are 8 bytes"
usage_case '-a/--all is not supported' rb_atomic_bw -a
tap_ok $? "usage: rb_atomic_bw -a exits 2: no sweep"
usage_case '-c/--connection: UC' rb_atomic_lat -c UC
tap_ok $? "usage: rb_atomic_lat -c UC exits 2 naming -c/--connection"
usage_case '-q/--qp.*not supported' rb_atomic_lat -q 2
tap_ok $? "usage: rb_atomic_lat -q 2 exits 2: not supported"

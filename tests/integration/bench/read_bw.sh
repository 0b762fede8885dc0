# needs: one-guest
# rb_read_bw and its options.  Sourced by run-all.sh (see lib.sh).  The
# client reads and measures; the server prints the client's row, except with
# -b where both read and each counts its own reads (rb_read_bw(1)).  RC only.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 15

P=rb_read_bw

rb_csv "read_bw" $P "-s 4096 -n 1000" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 4096, 1000)' \
		'meta["transport"] == "RC"' 'r["bw_peak_mibps"] > 0' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_read_bw: 1000 reads, both sides print the client's row"

# A sweep: 2 B .. 8 MiB, -n per size (the 8 MiB reads are slow under
# emulation).
rb_csv "read_bw -a" $P "-a -n 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' '[x["size_bytes"] for x in rows] == SWEEP' \
		'all(bw(x, x["size_bytes"], 2) for x in rows)' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_read_bw -a -n 2: 23 rows, 2..8388608 bytes, 2 reads each"

# -D 2: the default warm-up is D/4, so the window is about 1.5 s.
rb_csv "read_bw -D" $P "-s 4096 -D 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 4096, r["iterations"])' \
		'window(r, meta, 0.3, 2.0)' 'r["bw_peak_mibps"] is None' 'meta["duration_s"] == 2'
tap_ok $? "rb_read_bw -D 2: reads > 0, window within 0.3..2 s, bytes = reads x size"

rb_csv "read_bw -o" $P "-s 4096 -n 1000 -o 4" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["outstanding"] == 4'
tap_ok $? "rb_read_bw -o 4: 1000 reads, 4 outstanding"

# More than the device allows: lowered to its limit, with a warning.
rb_csv "read_bw -o 256" $P "-s 4096 -n 1000 -o 256" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' '0 < meta["outstanding"] < 256' &&
	grep -q -- '-o/--outs 256 is more than both sides allow .*; using' "$(rb_file client.err)"
tap_ok $? "rb_read_bw -o 256: lowered to the device's limit, said on stderr"

rb_csv "read_bw -b" $P "-s 4096 -n 500 -b" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 500)' 'r["bw_peak_mibps"] is None' \
		'meta["bidirectional"] == "yes"' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 500)'
tap_ok $? "rb_read_bw -b -n 500: each side read 500"

rb_csv "read_bw -q 4" $P "-s 4096 -n 250 -q 4" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["qps"] == 4'
tap_ok $? "rb_read_bw -q 4 -n 250: 1000 reads"

rb_csv "read_bw -R" $P "-R -s 4096 -n 1000" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["connect"] == "rdma_cm"'
tap_ok $? "rb_read_bw -R: connected by rdma_cm"

rb_csv "read_bw -e -l -Q" $P "-s 4096 -n 1000 -e -l 4 -Q 10" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["completion"].startswith("events")' \
		'meta["post_list"] == 4' 'meta["cq_mod"] == 10'
tap_ok $? "rb_read_bw -e -l 4 -Q 10: 1000 reads, events, lists of 4, a completion every 10"

rb_bench "read_bw --json" $P "-s 4096 -n 500" '--json=$RB_CASE_DIR/client.json' '--json' &&
	rb_check "$(rb_file client.json)" 'doc["schema_version"] == 1' 'status == "complete"' \
		'doc["error"] is None' 'meta["test"] == "rb_read_bw"' 'bw(r, 4096, 500)' \
	-- "$(rb_file server.out)" 'status == "complete"' 'bw(r, 4096, 500)'
tap_ok $? "rb_read_bw --json (file and stdout): schema 1, status complete, 500 reads"

rb_bench "read_bw mismatch" $P "-s 4096 -n 100" '-q 2 -b' '-q 1'
rb_failed 1 'QPs \(-q\) differs' && rb_failed 1 'bidirectional \(-b\) differs'
tap_ok $? "rb_read_bw -q 2 -b vs -q 1: both exit 1 naming -q and -b"

# A read client against a write server: the verb differs.
rb_case "read_bw vs write_bw"
rb_start server "$(rb_cmd rb_write_bw) -s 4096 -n 100"
wait_listen "${RB_PAIR_PORT:-18515}"
rb_start client "$(rb_cmd rb_read_bw) -s 4096 -n 100 \"\$RB_IP\""
rb_wait client server
rb_failed 1 'test differs: (server runs rb_write_bw, client runs rb_read_bw|client runs rb_read_bw, server runs rb_write_bw)'
tap_ok $? "rb_read_bw client, rb_write_bw server: both exit 1 naming both programs"

usage_case '-c/--connection: UC' $P -c UC
tap_ok $? "usage: rb_read_bw -c UC exits 2 naming -c/--connection"
usage_case '-o/--outs: 0 is out of range' $P -o 0
tap_ok $? "usage: rb_read_bw -o 0 exits 2 naming -o/--outs"
usage_case '-I/--inline-size.*not supported' $P -I 64
tap_ok $? "usage: rb_read_bw -I 64 exits 2: reads carry no inline data"

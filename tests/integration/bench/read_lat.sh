# needs: one-guest delay-build
# rb_read_lat and its options.  Sourced by run-all.sh (see lib.sh).  The
# client measures each read's round trip; the server's CPU takes no part and
# it prints the client's row.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 9

P=rb_read_lat

rb_csv "read_lat" $P "-n 500" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, 500)' \
		'meta["latency"] == "round trip of one operation"' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_read_lat: 500 samples, both sides print the same row"

# A sweep, 2 B .. 8 MiB (-n 2: the 8 MiB reads are slow under emulation),
# with one histogram file per size.
rb_csv "read_lat -a" $P "-a -n 2 --warmup 1" '-H $RB_CASE_DIR/hist.csv' &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' '[x["size_bytes"] for x in rows] == SWEEP' \
		'all(lat(x, x["size_bytes"], 2) for x in rows)' \
	-- "$(rb_file hist-8388608.csv)" 'sum(x["count"] for x in rows) == 2'
tap_ok $? "rb_read_lat -a -n 2: 23 rows, 2..8388608 bytes, a histogram file per size"

# -H: buckets in order, counts adding up to the samples, ending at 1.
rb_csv "read_lat -H" $P "-n 1000" '-H $RB_CASE_DIR/hist.csv' &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 1000)' \
	-- "$(rb_file hist.csv)" 'header == ["lower_ns", "upper_ns", "count", "cumulative_fraction"]' \
		'all(x["lower_ns"] < x["upper_ns"] and x["count"] > 0 for x in rows)' \
		'all(a["upper_ns"] <= b["lower_ns"] for a, b in zip(rows, rows[1:]))' \
		'expect(sum(x["count"] for x in rows) == 1000, "counts add up to %d" % sum(x["count"] for x in rows))' \
		'all(a["cumulative_fraction"] <= b["cumulative_fraction"] for a, b in zip(rows, rows[1:]))' \
		'rows[-1]["cumulative_fraction"] == 1'
tap_ok $? "rb_read_lat -H: histogram buckets increasing, counts sum to 1000, cumulative ends at 1"

rb_bench "read_lat --json -o" $P "-n 500 -o 4" '--json=$RB_CASE_DIR/client.json' &&
	rb_check "$(rb_file client.json)" 'doc["schema_version"] == 1' 'status == "complete"' \
		'doc["error"] is None' 'meta["device"] == E["RB_DEV"]' 'meta["outstanding"] == 4' \
		'lat(r, 2, 500)' 'isinstance(r["iterations"], int)'
tap_ok $? "rb_read_lat -o 4 --json: schema 1, device, status complete, 500 samples"

rb_csv "read_lat -D" $P "-D 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, None)' \
		'window(r, meta, 0.3, 2.0)' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_read_lat -D 2: samples > 0, window within 0.3..2 s"

rb_csv "read_lat -R" $P "-R -n 500" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 500)' 'meta["connect"] == "rdma_cm"'
tap_ok $? "rb_read_lat -R: connected by rdma_cm"

rb_csv "read_lat -e" $P "-n 500 -e" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 500)' 'meta["completion"].startswith("events")'
tap_ok $? "rb_read_lat -e: 500 samples with completion events"

# window_s spans the counted reads only (the first counted post to the last
# counted completion): the samples fill it, the 200 warm-up reads are not
# in it (they were: window_s was ~1.4 x the samples' sum).
rb_csv "read_lat window" $P "-n 500 --warmup 200" '--raw=$RB_CASE_DIR/raw.csv' &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 500)' "raw(r, '$(rb_file raw.csv)')" \
		"window_covers(r, meta, '$(rb_file raw.csv)', 0.3)"
tap_ok $? "rb_read_lat -n 500 --warmup 200: window_s covers the 500 samples, not the warm-up"

# The heartbeat to the passive server (a TCP send, once a second) falls
# between samples.  The delay build's client busy-waits 300 ms after each
# heartbeat: no sample may hold it (it did: the heartbeat was sent after a
# sample's start), and the window shows it happened (window_s exceeds the
# samples' sum by at least one of them).
delay_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}
if grep -qs 'define RB_TEST_DELAY 1' "$delay_bin/config.h" && [ -x "$delay_bin/$P" ]; then
	args="-d $RB_DEV -x $RB_GID_INDEX -D 3 --warmup-time 0.5${RB_LANE_PORT:+ -p $RB_LANE_PORT}"
	rb_pair "read_lat heartbeat delay" "$delay_bin/$P $args --csv=\$RB_CASE_DIR/server.csv" \
		"RB_TEST_HEARTBEAT_DELAY_NS=300000000 $delay_bin/$P $args --csv=\$RB_CASE_DIR/client.csv \
		--raw=\$RB_CASE_DIR/raw.csv $RB_IP" &&
		rb_check "$(rb_file client.csv)" 'lat(r, 2, None)' \
			'expect(r["lat_max_us"] < 300000, "lat_max_us %s: a heartbeat is in a sample" % r["lat_max_us"])' \
			"raw(r, '$(rb_file raw.csv)')" \
			"expect(r['window_s'] - sum(raw_samples('$(rb_file raw.csv)')) / 1e9 >= 0.3, 'no heartbeat in the window: the test proves nothing')"
	tap_ok $? "rb_read_lat: a 300 ms stall after each heartbeat falls between samples (max < 300 ms), and one fell in the window"
else
	tap_skip "rb_read_lat: the heartbeat falls between samples" "no --enable-test-delay build in $delay_bin"
fi

# needs: one-guest
# rb_write_lat on RC and UC and with its options.  Sourced by run-all.sh
# (see lib.sh).  A write ping-pong: the client measures, both sides print
# its row; the latency is one-way (half the round trip).  --warmup 20
# instead of 100 keeps the busy-polling ping-pong short under emulation.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 15

P=rb_write_lat

for tr in RC UC; do
	rb_csv "write_lat $tr" $P "-c $tr -n 200 --warmup 20" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, 200)' \
			"meta['transport'] == '$tr'" 'meta["latency"] == "one-way = round trip / 2"' &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_write_lat -c $tr: 200 samples, both sides print the same row"
done

# A sweep, 2 B .. 8 MiB (-n 2: the 8 MiB writes are slow under emulation),
# on UC too: its writes land in the peer's buffer like RC's.
for tr in RC UC; do
	rb_csv "write_lat -a $tr" $P "-c $tr -a -n 2 --warmup 1" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' '[x["size_bytes"] for x in rows] == SWEEP' \
			'all(lat(x, x["size_bytes"], 2) for x in rows)' &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_write_lat -c $tr -a -n 2: 23 rows, 2..8388608 bytes, both sides alike"
done

# window_s spans the counted iterations only (the first counted write to
# the last counted answer): the samples, whole round trips, fill it; the
# 100 warm-up iterations are not in it (they were: ~1.5 x the samples).
# 30 % of slack: the loop's bookkeeping between samples came to 15.1 % in
# a loaded boot (CI, 2026-12-04: 0.0652 s against 0.0567), far from 50 %.
rb_csv "write_lat window" $P "-n 200 --warmup 100" '--raw=$RB_CASE_DIR/raw.csv' &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 200)' "raw(r, '$(rb_file raw.csv)')" \
		'r["lat_pct_method"] == "exact"' "window_covers(r, meta, '$(rb_file raw.csv)', 0.3)"
tap_ok $? "rb_write_lat -n 200 --warmup 100: window_s covers the 200 round trips, not the warm-up"

# --raw and -H: the row's statistics recomputed from every sample (one-way,
# like the row), the histogram adding up to them.
rb_csv "write_lat --raw -H" $P "-s 64 -n 500 --warmup 20" \
	'--raw=$RB_CASE_DIR/raw.csv -H $RB_CASE_DIR/hist.csv' &&
	rb_check "$(rb_file client.csv)" 'lat(r, 64, 500)' "raw(r, '$(rb_file raw.csv)')" \
		"hist('$(rb_file hist.csv)', 500)" \
	-- "$(rb_file raw.csv)" 'header == ["sample", "latency_ns"]' '[x["sample"] for x in rows] == list(range(500))'
tap_ok $? "rb_write_lat --raw -H: min, max, mean, stdev and percentiles agree with the 500 samples; histogram sums to 500"

rb_bench "write_lat --json" $P "-n 200 --warmup 20" '--json=$RB_CASE_DIR/client.json' '--json' &&
	rb_check "$(rb_file client.json)" 'doc["schema_version"] == 1' 'status == "complete"' \
		'doc["error"] is None' 'meta["test"] == "rb_write_lat"' 'lat(r, 2, 200)' \
	-- "$(rb_file server.out)" 'status == "complete"' 'lat(r, 2, 200)' 'meta["role"] == "server"'
tap_ok $? "rb_write_lat --json (file and stdout): schema 1, status complete, 200 samples"

rb_csv "write_lat -D" $P "-D 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, None)' \
		'window(r, meta, 0.3, 2.0)' 'meta["duration_s"] == 2' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_write_lat -D 2: samples > 0, window within 0.3..2 s"

rb_csv "write_lat -I" $P "-s 32 -I 64 -n 200 --warmup 20" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 32, 200)' 'meta["inline_bytes"] >= 32'
tap_ok $? "rb_write_lat -s 32 -I 64: inline writes, 200 samples"

rb_csv "write_lat -R" $P "-R -s 64 -n 200 --warmup 20" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 64, 200)' 'meta["connect"] == "rdma_cm"'
tap_ok $? "rb_write_lat -R -s 64: connected by rdma_cm"

rb_bench "write_lat mismatch" $P "-n 100" '-s 64' '-s 128'
rb_failed 1 'size \(-s\) differs: (server 128, client 64|client 64, server 128)'
tap_ok $? "rb_write_lat -s 64 vs -s 128: both exit 1 naming the size"

usage_case '-c/--connection: UD' $P -c UD
tap_ok $? "usage: rb_write_lat -c UD exits 2 naming -c/--connection"
usage_case '-q/--qp.*not supported' $P -q 2
tap_ok $? "usage: rb_write_lat -q 2 exits 2: not supported"
usage_case '-e/--events.*not supported' $P -e
tap_ok $? "usage: rb_write_lat -e exits 2: not supported (it polls the buffer)"
usage_case '-a/--all.*-D/--duration' $P -a -D 2
tap_ok $? "usage: rb_write_lat -a -D 2 exits 2 naming both"

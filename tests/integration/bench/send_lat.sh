# needs: one-guest delay-build
# rb_send_lat on RC, UC and UD and with its options.  Sourced by run-all.sh
# (see lib.sh).  The client measures -n round trips after the warm-up; the
# server prints the client's row (rb_send_lat(1)).  --warmup 20 instead of
# 100 keeps the busy-polling ping-pong short under emulation.

P=rb_send_lat

# The cases below, skips included, and the test bed's default in its VM
# only (tap_plan: lib.sh).
t11_vm=0
[ "${RB_TESTBED:-}" = vm ] && t11_vm=1
tap_plan 10+t11_vm

rb_csv "send_lat RC" $P "-n 200" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, 200)' \
		'meta["warmup_iterations"] == 100' 'meta["transport"] == "RC"' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_send_lat -c RC: 200 samples, both sides print the same row"

for tr in UC UD; do
	rb_csv "send_lat $tr" $P "-c $tr -n 200 --warmup 20" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, 200)' \
			"meta['transport'] == '$tr'" &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_send_lat -c $tr: 200 samples, both sides print the same row"
done

rb_csv "send_lat UD -a" $P "-c UD -a -n 20 --warmup 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' \
		'[x["size_bytes"] for x in rows] == [s for s in SWEEP if s <= meta["mtu_bytes"]]' \
		'all(lat(x, x["size_bytes"], 20) for x in rows)'
tap_ok $? "rb_send_lat -c UD -a -n 20: one row per size up to the path MTU"

# --raw: one line per sample, one-way (half the round trip) like the row.
rb_csv "send_lat --raw" $P "-n 300 --warmup 20" '--raw=$RB_CASE_DIR/raw.csv' &&
	min=$(csv_col "$(rb_file client.csv)" lat_min_us) &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 300)' \
	-- "$(rb_file raw.csv)" 'header == ["sample", "latency_ns"]' \
		'expect(len(rows) == 300, "%d samples" % len(rows))' \
		'[x["sample"] for x in rows] == list(range(300))' \
		"expect(close(min(x['latency_ns'] for x in rows) / 1e3, $min, 1e-3), 'min is not lat_min_us $min')"
tap_ok $? "rb_send_lat --raw: 300 samples, the smallest is lat_min_us"

# -D keeps every sample too (up to 2^25): the percentiles are samples of
# the --raw file, not the histogram's bucket bounds, and the row says so.
rb_csv "send_lat -D" $P "-D 2" '--raw=$RB_CASE_DIR/raw.csv' &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, None)' \
		'window(r, meta, 0.3, 2.0)' "raw(r, '$(rb_file raw.csv)')" \
		'r["lat_pct_method"] == "exact"'
tap_ok $? "rb_send_lat -D 2: samples > 0, window within 0.3..2 s, percentiles exact (the --raw samples')"

# A sample is one whole iteration, as perftest's: the receive's re-post is
# in it.  The delay build's client waits 2 ms before each re-post: every
# round trip includes it, so every one-way sample is >= 1 ms (a sample from
# the post to the answer's arrival, as before, left it out: ~25 us here).
# And window_s spans the counted iterations only: the 100 warm-up ones
# (another 0.2 s of re-post delays) are not in it.
delay_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}
if grep -qs 'define RB_TEST_DELAY 1' "$delay_bin/config.h" && [ -x "$delay_bin/$P" ]; then
	args="-d $RB_DEV -x $RB_GID_INDEX -n 100 --warmup 100${RB_LANE_PORT:+ -p $RB_LANE_PORT}"
	rb_pair "send_lat re-post delay" "$delay_bin/$P $args --csv=\$RB_CASE_DIR/server.csv" \
		"RB_TEST_REPOST_DELAY_NS=2000000 $delay_bin/$P $args --csv=\$RB_CASE_DIR/client.csv \
		--raw=\$RB_CASE_DIR/raw.csv $RB_IP" &&
		rb_check "$(rb_file client.csv)" 'lat(r, 2, 100)' \
			'expect(r["lat_min_us"] >= 1000, "lat_min_us %s: the 2 ms re-post is not in the sample" % r["lat_min_us"])' \
			"raw(r, '$(rb_file raw.csv)')" "window_covers(r, meta, '$(rb_file raw.csv)', 0.1)"
	tap_ok $? "rb_send_lat: a 2 ms delay before each receive re-post is in every sample (>= 1 ms one-way); window_s covers the 100 counted iterations, not the warm-up"
else
	tap_skip "rb_send_lat: the re-post is in the sample" "no --enable-test-delay build in $delay_bin"
fi

rb_csv "send_lat -e" $P "-n 200 --warmup 20 -e" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 200)' 'meta["completion"].startswith("events")'
tap_ok $? "rb_send_lat -e: 200 samples with completion events"

# --poll-pause: the test bed sets RB_POLL_PAUSE=1 (scripts/testbed/guest.sh),
# 0 keeps perftest's bare loop; the metadata says which ran.  Under one TCG
# thread the bare ping-pong advances at the guest's 4 ms tick (the p50s).
RB_POLL_PAUSE=0 rb_csv "send_lat bare" $P "-n 100 --warmup 10" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 100)' 'meta["completion"] == "busy poll"' &&
	p_bare=$(csv_col "$(rb_file client.csv)" lat_p50_us) &&
	RB_POLL_PAUSE=0 rb_csv "send_lat --poll-pause" $P "-n 100 --warmup 10 --poll-pause" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 100)' \
		'meta["completion"] == "busy poll, pause between empty polls"' &&
	p_pause=$(csv_col "$(rb_file client.csv)" lat_p50_us)
tap_ok $? "rb_send_lat: RB_POLL_PAUSE=0 polls bare, --poll-pause pauses, as the metadata says (p50 ${p_bare:-?} and ${p_pause:-?} us)"
if [ "${RB_TESTBED:-}" = vm ]; then
	rb_csv "send_lat test bed" $P "-n 100 --warmup 10" &&
		rb_check "$(rb_file client.csv)" 'meta["completion"] == "busy poll, pause between empty polls"'
	tap_ok $? "rb_send_lat in the test bed: RB_POLL_PAUSE=1 by default, the loops pause"
fi

rb_csv "send_lat -R" $P "-R -n 200 --warmup 20" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 2, 200)' 'meta["connect"] == "rdma_cm"' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_send_lat -R: connected by rdma_cm"

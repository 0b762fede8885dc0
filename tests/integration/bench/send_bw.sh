# needs: one-guest
# rb_send_bw on RC, UC and UD and with each of its options.  Sourced by
# run-all.sh (see lib.sh).  The client's row counts the messages it sent,
# exactly -n per QP; the server's counts what it received: all of them on
# RC, at most that many on UC and UD (they may drop).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 13

P=rb_send_bw

for tr in RC UC UD; do
	size=4096
	[ "$tr" = UD ] && size=1024 # one MTU
	recv=False
	[ "$tr" = RC ] || recv=True
	rb_csv "send_bw $tr" $P "-c $tr -s $size -n 1000" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' "bw(r, $size, 1000)" "meta['transport'] == '$tr'" \
		-- "$(rb_file server.csv)" 'status == "complete"' "bw(r, $size, 1000, recv=$recv)"
	tap_ok $? "rb_send_bw -c $tr: both exit 0, the client sent -n 1000, the server received them"
done

# A sweep: 2 B .. 8 MiB, -n per size (the 8 MiB rows make -n 100 too slow
# under emulation).
rb_csv "send_bw -a" $P "-a -n 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' '[x["size_bytes"] for x in rows] == SWEEP' \
		'all(bw(x, x["size_bytes"], 2) for x in rows)' \
	-- "$(rb_file server.csv)" '[x["size_bytes"] for x in rows] == SWEEP' \
		'all(bw(x, x["size_bytes"], 2) for x in rows)'
tap_ok $? "rb_send_bw -a -n 2: 23 rows, 2..8388608 bytes, 2 messages each"

rb_csv "send_bw UD -a" $P "-c UD -a -n 100" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' \
		'[x["size_bytes"] for x in rows] == [s for s in SWEEP if s <= meta["mtu_bytes"]]' \
		'all(bw(x, x["size_bytes"], 100) for x in rows)' \
	-- "$(rb_file server.csv)" 'all(bw(x, x["size_bytes"], 100, recv=True) for x in rows)'
tap_ok $? "rb_send_bw -c UD -a: one row per size up to the path MTU"

# -D 2: the default warm-up is D/4, so the window is about 1.5 s.
rb_csv "send_bw -D" $P "-s 4096 -D 2" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 4096, r["iterations"])' \
		'window(r, meta, 0.3, 2.0)' \
		'r["bw_peak_mibps"] is None' 'meta["duration_s"] == 2' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, r["iterations"])' 'window(r, meta, 0.3, 2.0)'
tap_ok $? "rb_send_bw -D 2: messages > 0, window within 0.3..2 s, bytes = messages x size"

rb_csv "send_bw -q 4" $P "-s 4096 -n 250 -q 4" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["qps"] == 4' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 1000)'
tap_ok $? "rb_send_bw -q 4 -n 250: 1000 messages on each side"

# -b: each side's row counts what it sent, rx what it received, sum both
# (rb_send_bw(1); feature/semantics.sh checks the columns further).
rb_csv "send_bw -b" $P "-s 4096 -n 500 -b" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 500)' 'r["bw_peak_mibps"] is None' 'meta["bidirectional"] == "yes"' \
		'r["rx_iterations"] == 500' 'r["sum_iterations"] == 1000' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 500)' 'r["rx_iterations"] == 500' 'r["sum_iterations"] == 1000'
tap_ok $? "rb_send_bw -b -n 500: each side sent 500 and received 500"

for tr in RC UC; do
	recv=False
	[ "$tr" = RC ] || recv=True
	rb_csv "send_bw -R $tr" $P "-R -c $tr -s 4096 -n 1000" &&
		rb_check "$(rb_file client.csv)" "bw(r, 4096, 1000)" 'meta["connect"] == "rdma_cm"' "meta['transport'] == '$tr'" \
		-- "$(rb_file server.csv)" "bw(r, 4096, 1000, recv=$recv)" 'meta["connect"] == "rdma_cm"'
	tap_ok $? "rb_send_bw -R -c $tr: connected by rdma_cm"
done

rb_csv "send_bw -e" $P "-s 4096 -n 1000 -e" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["completion"].startswith("events")' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 1000)'
tap_ok $? "rb_send_bw -e: completions by events"

rb_csv "send_bw -l 4" $P "-s 4096 -n 1000 -l 4" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["post_list"] == 4' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 1000)'
tap_ok $? "rb_send_bw -l 4: posted in lists of 4"

rb_csv "send_bw -Q 10" $P "-s 4096 -n 1000 -Q 10" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["cq_mod"] == 10' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 1000)'
tap_ok $? "rb_send_bw -Q 10: a completion every 10 sends"

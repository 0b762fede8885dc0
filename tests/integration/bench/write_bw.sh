# needs: one-guest
# rb_write_bw on RC and UC and with its options.  Sourced by run-all.sh (see
# lib.sh).  The client writes and measures; the server only serves its
# memory and prints the client's row, except with -b where both write and
# each counts its own writes (rb_write_bw(1)).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 6

P=rb_write_bw

for tr in RC UC; do
	rb_csv "write_bw $tr" $P "-c $tr -s 4096 -n 1000" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 4096, 1000)' \
			"meta['transport'] == '$tr'" 'r["bw_peak_mibps"] > 0' &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_write_bw -c $tr: 1000 writes, both sides print the client's row"
done

rb_csv "write_bw -b" $P "-s 4096 -n 500 -b" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 500)' 'r["bw_peak_mibps"] is None' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 500)' 'meta["bidirectional"] == "yes"'
tap_ok $? "rb_write_bw -b -n 500: each side wrote 500"

rb_csv "write_bw -q 4" $P "-s 4096 -n 250 -q 4" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["qps"] == 4'
tap_ok $? "rb_write_bw -q 4 -n 250: 1000 writes"

rb_csv "write_bw -R" $P "-R -s 4096 -n 1000" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["connect"] == "rdma_cm"' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_write_bw -R: connected by rdma_cm"

rb_csv "write_bw -l -Q" $P "-s 4096 -n 1000 -l 4 -Q 10" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["post_list"] == 4' \
		'meta["cq_mod"] == 10'
tap_ok $? "rb_write_bw -l 4 -Q 10: 1000 writes"

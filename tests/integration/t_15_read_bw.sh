# rb_read_bw and its options.  Sourced by run-all.sh (see lib.sh).  The
# client reads and measures; the server prints the client's row, except with
# -b where both read and each counts its own reads (rb_read_bw(1)).

P=rb_read_bw

rb_csv "read_bw" $P "-s 4096 -n 1000" &&
	rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 4096, 1000)' &&
	rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
tap_ok $? "rb_read_bw: 1000 reads, both sides print the client's row"

rb_csv "read_bw -o" $P "-s 4096 -n 1000 -o 4" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["outstanding"] == 4'
tap_ok $? "rb_read_bw -o 4: 1000 reads, 4 outstanding"

rb_csv "read_bw -b" $P "-s 4096 -n 500 -b" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 500)' 'r["bw_peak_mibps"] is None' \
	-- "$(rb_file server.csv)" 'bw(r, 4096, 500)'
tap_ok $? "rb_read_bw -b -n 500: each side read 500"

rb_csv "read_bw -q 4" $P "-s 4096 -n 250 -q 4" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["qps"] == 4'
tap_ok $? "rb_read_bw -q 4 -n 250: 1000 reads"

rb_csv "read_bw -R" $P "-R -s 4096 -n 1000" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 1000)' 'meta["connect"] == "rdma_cm"'
tap_ok $? "rb_read_bw -R: connected by rdma_cm"

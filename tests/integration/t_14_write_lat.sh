# rb_write_lat on RC and UC.  Sourced by run-all.sh (see lib.sh).  A write
# ping-pong: the client measures, both sides print its row.

P=rb_write_lat

for tr in RC UC; do
	rb_csv "write_lat $tr" $P "-c $tr -n 200 --warmup 20" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 2, 200)' \
			"meta['transport'] == '$tr'" 'meta["latency"] == "one-way = round trip / 2"' &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_write_lat -c $tr: 200 samples, both sides print the same row"
done

rb_csv "write_lat -R" $P "-R -s 64 -n 200 --warmup 20" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 64, 200)' 'meta["connect"] == "rdma_cm"'
tap_ok $? "rb_write_lat -R -s 64: connected by rdma_cm"

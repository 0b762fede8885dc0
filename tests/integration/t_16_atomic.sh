# rb_atomic_bw and rb_atomic_lat with both operations.  Sourced by
# run-all.sh (see lib.sh).  Atomics move 8 bytes whatever -s says.

for op in FETCH_AND_ADD CMP_AND_SWAP; do
	rb_csv "atomic_bw $op" rb_atomic_bw "-A $op -n 1000" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'bw(r, 8, 1000)' \
			"meta['atomic_op'] == '$op'" &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_atomic_bw -A $op: 1000 operations"

	rb_csv "atomic_lat $op" rb_atomic_lat "-A $op -n 300" &&
		rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 8, 300)' \
			"meta['atomic_op'] == '$op'" &&
		rb_same_rows "$(rb_file client.csv)" "$(rb_file server.csv)"
	tap_ok $? "rb_atomic_lat -A $op: 300 samples"
done

rb_csv "atomic_bw -R -o" rb_atomic_bw "-R -o 4 -q 2 -n 500" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 8, 1000)' 'meta["connect"] == "rdma_cm"' \
		'meta["outstanding"] == 4'
tap_ok $? "rb_atomic_bw -R -o 4 -q 2: connected by rdma_cm, 1000 operations"

rb_csv "atomic_lat -R" rb_atomic_lat "-R -A CMP_AND_SWAP -n 300" &&
	rb_check "$(rb_file client.csv)" 'lat(r, 8, 300)' 'meta["connect"] == "rdma_cm"'
tap_ok $? "rb_atomic_lat -R: connected by rdma_cm"

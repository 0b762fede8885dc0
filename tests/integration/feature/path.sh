# needs: one-guest lane
# Path control (#36): --flow_label (a list, round-robin over the QPs) and
# --retry_count, with and without -R and on UD; -L/--hop_limit refused on
# RoCE (the kernel takes the hop limit from the IP route); --wait_destroy.
# Each side's QPs are read back with ibv_query_qp (--verbose: "QP 0x..
# attributes: ... flow label 0x.., ... retry N, ...", in QP order) and the
# metadata says what ran.  What the wire shows (one UDP source port per
# label) is checked in the two-guest test bed, tests/integration/prog/
# wire.sh: rxe hands traffic between QPs of one host over inside the
# kernel, where no capture sees it.
# Sourced by run-all.sh (see lib.sh).

tap_plan 8

# The labels and retry counts of FILE's "QP 0x.. attributes" lines, in QP
# order: "LABEL RETRY;" each.
qp_path() {
	sed -n 's/.*QP 0x[0-9a-f]* attributes:.* flow label \(0x[0-9a-f]*\), hop limit [0-9]*,.* retry \([0-9]*\), RNR.*/\1 \2/p' "$1" |
		tr '\n' ';'
}

# path_is FILE WANT: FILE's QP lines give WANT ("0x5 2;0x6 2;").
path_is() {
	local got
	got=$(qp_path "$1")
	[ "$got" = "$2" ] && return 0
	tap_diag "$(basename "$1"): QPs read back '$got', expected '$2'"
	return 1
}

# RC, 4 QPs, two labels: QP i gets label i mod 2, on both sides; the
# retry count on every QP.
want="0x12345 3;0xabc 3;0x12345 3;0xabc 3;"
meta=('meta["flow_labels"] == "0x12345,0xabc,0x12345,0xabc"' 'meta["retry_count"] == 3'
	'"hop_limit" not in meta')
rb_csv "path rc" rb_write_bw "-s 1K -n 40 -q 4 --verbose --flow_label=0x12345,0xabc --retry_count 3" &&
	path_is "$(rb_file client.err)" "$want" && path_is "$(rb_file server.err)" "$want" &&
	rb_check "$(rb_file client.csv)" "${meta[@]}" -- "$(rb_file server.csv)" "${meta[@]}"
tap_ok $? "RC -q 4 --flow_label=0x12345,0xabc --retry_count 3: each side's QPs read back the labels round-robin and retry 3; the metadata says so"

# -R: the same on top of rdma_cm's attributes; the server's retry count
# comes from the client's connect request (rdma_conn_param.retry_count).
want="0x5 2;0x6 2;"
meta=('meta["flow_labels"] == "0x5,0x6"' 'meta["retry_count"] == 2' 'meta["connect"] == "rdma_cm"')
rb_csv "path cm" rb_write_bw "-s 1K -n 40 -q 2 -R --verbose --flow_label=5,0x6 --retry_count=2" &&
	path_is "$(rb_file client.err)" "$want" && path_is "$(rb_file server.err)" "$want" &&
	rb_check "$(rb_file client.csv)" "${meta[@]}" -- "$(rb_file server.csv)" "${meta[@]}"
tap_ok $? "-R -q 2 --flow_label=5,0x6 --retry_count=2: rdma_cm's QPs read back the labels and retry 2 on both sides (the server's from the connect request)"

# UD: the address handles carry the label (no retry count: refused below).
meta=('meta["flow_labels"] == "0x7,0x7"' '"retry_count" not in meta')
rb_csv "path ud" rb_send_bw "-c UD -s 512 -n 40 -q 2 --flow_label 7" &&
	rb_check "$(rb_file client.csv)" "${meta[@]}" -- "$(rb_file server.csv)" "${meta[@]}"
tap_ok $? "UD -q 2 --flow_label 7: the address handles' label, in the metadata"

# The retry count is the client's for both QPs under -R: the peer must agree.
rb_bench "path retry differs" rb_write_bw "-s 1K -n 40" "--retry_count 4" ""
rb_failed 1 'retry count \(--retry_count\) differs: (client 4, server 7|server 7, client 4)'
tap_ok $? "--retry_count 4 on the client only: both sides exit 1 naming the difference"

# --reversed: the server (no HOST) takes the client's part: it writes
# (validated where the data lands, on the HOST side) and reports as the
# client; a side without it is named.
rb_csv "path reversed" rb_write_bw "-s 1K -n 40 --reversed --validate" &&
	rb_check "$(rb_file client.csv)" 'meta["role"] == "server"' '"yes" in meta["reversed"]' \
	-- "$(rb_file server.csv)" 'meta["role"] == "client"' '"yes" in meta["reversed"]' 'bw(r, 1024, 40)'
tap_ok $? "--reversed: the server writes and reports as the client (role), the HOST side is the server; --validate passes"
rb_bench "path reversed differs" rb_write_bw "-s 1K -n 40" "" "--reversed"
rb_failed 1 'reversed roles \(--reversed\) differs'
tap_ok $? "--reversed on the server only: both sides exit 1 naming the difference"

# Refusals: a label above 20 bits, --retry_count on UC (no device
# needed); -L on RoCE, before the peer is reached.
usage_case '--flow-label: 0x100000 is out of range \(a flow label 0\.\.0xFFFFF' rb_write_bw --flow_label=5,0x100000 host &&
	usage_case 'UC QPs do not retransmit.*give -c RC' rb_write_bw -c UC --retry_count 1 host &&
	usage_case "hop_limit 9: on RoCE \\($RB_DEV port 1 is Ethernet\\) the kernel takes the hop limit \\(the IP TTL\\) from the route" \
		rb_write_bw -d "$RB_DEV" -L 9 192.0.2.99
tap_ok $? "refused with exit 2: a label above 0xFFFFF (naming it), --retry_count on UC, -L on RoCE (the route's hop limit wins)"

# --wait_destroy: the client's QP outlives its results by the wait (rdma
# resource show qp, its QP number from --verbose, polled from when the
# results are written).  4 s, not 2: in a loaded guest one `rdma` call
# took 2 s, so a 2 s wait left no sample inside it (CI run 9).  A look
# every 200 ms, the clock's arithmetic in the shell: an rdma, a grep and two
# awk processes every 50 ms until 2026-12-06, which kept a vCPU busy.
watch_qp() { # DIR OUT: "SECONDS-SINCE-RESULTS LISTED" lines, until 6.5 s after the results
	local t0="" now qpn="" n d end=$((SECONDS + 20))
	while ((SECONDS < end)); do
		now=${EPOCHREALTIME/./}	# microseconds
		if [ -z "$t0" ] && rb_has "$1/client.csv" '^[0-9]'; then
			t0=$now
			qpn=$(sed -n 's/.*QP 0x\([0-9a-f]*\) attributes:.*/\1/p' "$1/client.err" | head -n 1)
		fi
		if [ -n "$qpn" ]; then
			n=$(rdma resource show qp lqpn $((16#$qpn)) 2>/dev/null | grep -c "lqpn $((16#$qpn)) ")
			d=$(((now - t0) / 10000))
			printf '%d.%02d %s\n' $((d / 100)) $((d % 100)) "$n" >>"$2"
			((now - t0 > 6500000)) && break
		fi
		rb_nap_ms 200
	done
}
if ! command -v rdma >/dev/null; then
	tap_skip "--wait_destroy" "no rdma tool (iproute2) in the guest"
else
	rb_case_dir "path wait destroy"
	qps=$RB_TMP/path-wait-qps
	rm -f "$qps"
	watch_qp "$RB_CASE_DIR" "$qps" &
	wpid=$!
	rb_csv "path wait destroy" rb_write_bw "-s 1K -n 40" "--verbose --wait_destroy 4"
	st=$?
	wait "$wpid"
	late=$(awk '$1 >= 1.0 && $2 > 0' "$qps" 2>/dev/null | wc -l)
	after=$(awk '$1 >= 6.0 && $2 > 0' "$qps" 2>/dev/null | wc -l)
	[ "$st" = 0 ] && [ "$late" -gt 0 ] && [ "$after" = 0 ] &&
		grep -q -- '--wait_destroy: waiting 4 s before destroying' "$(rb_file client.err)" &&
		rb_check "$(rb_file client.csv)" 'meta["wait_destroy_s"] == 4' -- "$(rb_file server.csv)" '"wait_destroy_s" not in meta'
	tap_ok $? "--wait_destroy 4 (client): its QP still listed 1 s or more after its results were written, gone by 6 s; said, and in the metadata"
	[ "$late" -gt 0 ] && [ "$after" = 0 ] || tap_diag "seconds after the results, QP listed: $(tr '\n' ';' <"$qps" 2>/dev/null)"
fi

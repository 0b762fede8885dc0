# needs: one-guest quiet
# Pacing (#36): --rate_limit=SW on write and send bandwidth, at rates well
# below what rxe reaches in the guest (~25000 messages/s of 1 KiB, ~200
# Mb/s), so that an unpaced run fails every rate check here.  The rate is
# checked twice: our row (the messages over our window) and the device's
# own count, hw_counters/sent_pkts over the run (-W): on one rxe device
# both sides' packets are counted, each 1 KiB message (one packet at MTU
# 1024) and its ACK, so sent_pkts / 2 / D is the wire's message rate,
# warm-up included (pacing runs through it).  Then HW refused on rxe with
# the device named, --latency_gap's gaps in the write ping-pong's window,
# and the usage errors.  Sourced by run-all.sh (see lib.sh).

tap_plan 6

# NAME PROG 'ARGS' PPS: a -D 2 paced pair of 1 KiB messages asked for PPS
# messages/s; the row within 10 % of it, the device's count within 25 %.
pace_case() {
	rb_csv "$1" "$2" "-s 1024 -D 2 $3 -W hw_counters/sent_pkts --timeout 5" &&
		rb_check "$(rb_file client.csv)" "status == 'complete'" \
			"expect(abs(r['msg_rate_mpps'] * 1e6 / $4 - 1) < 0.10, 'row: %.0f messages/s, asked $4' % (r['msg_rate_mpps'] * 1e6))" \
			"expect(abs(r['ctr_sent_pkts'] / 2 / 2.0 / $4 - 1) < 0.25, 'device: sent_pkts %d over 2 s, asked $4 messages/s' % r['ctr_sent_pkts'])"
}

pace_case "write 50 Mbps" rb_write_bw "--rate_limit=50 --rate_units=Mbps" 6103.515625 &&
	rb_check "$(rb_file client.csv)" "meta['rate_limit'] == 50" "meta['rate_units'] == 'Mbps'" \
		"expect(abs(r['rate_achieved'] / 50 - 1) < 0.10, 'rate_achieved %s Mbps' % r['rate_achieved'])" \
		"meta['rate_limit_type'] == 'SW'" "meta['burst_size'] == 128"
tap_ok $? "rb_write_bw --rate_limit=50 --rate_units=Mbps: 6104 messages/s of 1 KiB, by the row and by rxe's sent_pkts; metadata and rate_achieved as it ran"

pace_case "send 5000 pps" rb_send_bw "--rate_limit=5000 --rate_units=pps --burst_size=10" 5000 &&
	rb_check "$(rb_file server.csv)" "expect(abs(r['iterations'] / r['window_s'] / 5000 - 1) < 0.10, 'receiver: %.0f messages/s' % (r['iterations'] / r['window_s']))" \
		-- "$(rb_file client.csv)" "meta['burst_size'] == 10" \
		"expect(abs(r['rate_achieved'] / 5000 - 1) < 0.10, 'rate_achieved %s pps' % r['rate_achieved'])"
tap_ok $? "rb_send_bw --rate_limit=5000 --rate_units=pps --burst_size=10: 5000 messages/s sent, received and counted by rxe"

rb_bench "HW refused" rb_write_bw "-s 1024 -n 100 --rate_limit=1 --rate_limit_type=HW"
rb_failed 1 "--rate_limit_type=HW: device $RB_DEV cannot pace its QPs .*use --rate_limit_type=SW"
tap_ok $? "--rate_limit_type=HW on rxe: both sides exit 1 naming the device and SW"

rb_csv "latency gap" rb_write_lat "-s 64 -n 200 --warmup 0 --latency_gap=5000 --timeout 5" &&
	rb_check "$(rb_file client.csv)" "status == 'complete'" "r['iterations'] == 200" \
		"expect(r['window_s'] >= 199 * 0.005, '200 iterations in %.3f s, gaps of 5 ms between them' % r['window_s'])" \
		"meta['latency_gap_us'] == 5000" "expect(r['lat_min_us'] < 5000, 'no sample holds a gap')"
tap_ok $? "rb_write_lat --latency_gap=5000: 200 iterations take at least 199 gaps, no sample includes one"

usage_case '--burst_size applies to paced runs: give --rate_limit=RATE' rb_write_bw --burst_size=8
tap_ok $? "--burst_size without --rate_limit: exit 2"

usage_case '--rate_limit_type=HW takes a bit rate' rb_write_bw --rate_limit=10 --rate_units=pps --rate_limit_type=HW &&
	usage_case 'latency-gap' rb_write_bw --latency_gap=10
tap_ok $? "HW with pps, --latency_gap on a bandwidth test: exit 2"

# needs: one-guest lane
# Multicast UD (-g/--mcg, -M/--MGID; issue #36): rb_send_bw's server
# attaches its -q 4 QPs to the group, joins it at the IP level on the rxe
# netdev, and counts each QP's messages; the client's 4 QPs send to the
# group, so each receiving QP gets all 4 x 200 of them.  Each QP's count
# (the server's -v lines) is checked against the sender's posted count
# (the row's mc_sent), the losses reported and tolerated (UD may drop;
# none expected on an idle test bed: a loss is said as a "# " line), but
# each QP must get at least half: one that gets nothing is not attached.  The
# client runs under rb-wire capture on the rxe netdev: the packets go to
# the group's IPv4 address (239.2.201.133) and QPN 0xffffff.  rb_send_lat
# -g pings to the server's group and gets its replies on the client's
# (the last byte plus 1).  Refusals exit 2 naming the option: RC, a
# benchmark without sends, -M without -g; a group of the other family
# than the GID: the receiving side exits 2 naming both (as -s over the
# path MTU: a value the device rules out); -g on one side only fails HELLO.
# Sourced by run-all.sh.

. "$top_srcdir/tests/integration/lib/two-need.sh"

tap_plan 6

mc_netdev=$(cat "/sys/class/infiniband/$RB_DEV/ports/1/gid_attrs/ndevs/$RB_GID_INDEX" 2>/dev/null)
mc_wire=$top_builddir/scripts/tools/rb-wire
[ -x "$mc_wire" ] || mc_wire=$top_srcdir/scripts/tools/rb-wire.in
mc_args='-c UD -g -s 64 -q 4 -n 200'

# mc_qp_lines ERR SENT QPS: the server's -v lines, one per receiving QP,
# each received + lost == SENT; prints the losses' sum (a diag when > 0).
mc_qp_lines() {
	rb_py "$@" <<'PY'
import re, sys
err, sent, qps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seen, lost = {}, 0
for m in re.finditer(r'QP (\d+) \(QPN 0x[0-9a-f]+\) received (\d+) of (\d+), lost (\d+)', open(err).read()):
    qp, got, of, miss = map(int, m.groups())
    if of != sent or got + miss != sent:
        sys.exit('# QP %d: received %d of %d, lost %d: not against the sender\'s %d' % (qp, got, of, miss, sent))
    seen[qp] = got
    lost += miss
if sorted(seen) != list(range(qps)):
    sys.exit('# receiving QPs counted: %s, expected 0..%d' % (sorted(seen), qps - 1))
print(lost)
PY
}

mc_bw_case() {
	local capture='' why lost
	rb_case "mcast send_bw"
	why=$(wire_missing)
	[ -z "$why" ] && [ -n "$mc_netdev" ] &&
		capture="\"$mc_wire\" capture -i $mc_netdev -o \$RB_CASE_DIR/run.pcap --json --"
	rb_start server "$(rb_cmd rb_send_bw) $mc_args -v --csv=\$RB_CASE_DIR/server.csv"
	sleep 0.5
	rb_start client "$capture $(rb_cmd rb_send_bw) $mc_args --csv=\$RB_CASE_DIR/client.csv \$RB_IP"
	rb_wait client server
	local st=$?
	rb_check "$(rb_file server.csv)" 'status == "complete"' "int(r['mc_sent']) == 800" \
		"int(r['mc_expected_per_qp']) == 800" "int(r['mc_received']) + int(r['mc_lost']) == 3200" \
		"400 <= int(r['mc_recv_min']) <= int(r['mc_recv_max']) <= 800" \
		"meta['multicast'] == 'yes'" "meta['mgid'] == '::ffff:239.2.201.133'" \
		"int(meta['mc_recv_qps']) == 4" "meta['mc_ip_join'] == '$mc_netdev'" \
		-- "$(rb_file client.csv)" 'status == "complete"' "int(r['mc_sent']) == 800" \
		"meta['mgid'] == '::ffff:239.2.201.133'" "meta['mc_ip_join'] == 'none'" || st=1
	lost=$(mc_qp_lines "$(rb_file server.err)" 800 4) || { echo "$lost"; st=1; }
	[ "$st" != 0 ] || [ "${lost:-0}" = 0 ] ||
		tap_diag "multicast: $lost of 3200 deliveries lost (tolerated: UD may drop)"
	[ "$st" != 0 ] || rb_py "$(rb_file server.csv)" "$lost" <<'PY' || st=1
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
if int(rows[0]['mc_lost']) != int(sys.argv[2]):
    sys.exit('# the row says %s lost, the QPs %s' % (rows[0]['mc_lost'], sys.argv[2]))
PY
	tap_ok "$st" "rb_send_bw -g -q 4: each receiving QP counted against the sender's 800 posted, losses reported, the group in the metadata"
	if [ -n "$why" ] || [ -z "$mc_netdev" ]; then
		tap_skip "rb-wire: multicast packets" "${why:-no netdev for GID $RB_GID_INDEX}"
		return
	fi
	rb_py "$(rb_file client.out)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d['flows'] if x['dst'] == '239.2.201.133']
bad = [x for x in f if x['dest_qp'] != '0xffffff']
n = sum(x['packets'] for x in f)
if not f or bad or n < 800:
    sys.exit('# flows to 239.2.201.133: %d (%d packets; %d not to QPN 0xffffff); all: %s'
             % (len(f), n, len(bad), [(x['src'], x['dst'], x['dest_qp'], x['packets']) for x in d['flows']]))
print('# rb-wire: %d packets to 239.2.201.133, dest QP 0xffffff, multicast %s' % (n, f[0].get('multicast')))
PY
	tap_ok $? "rb-wire: the sends go to the group 239.2.201.133, QPN 0xffffff (at least the 800 posted)"
}

mc_bw_case

rb_csv "mcast send_lat" rb_send_lat '-c UD -g -s 64 -n 100'
rb_check "$(rb_file client.csv)" 'status == "complete"' 'lat(r, 64, 100)' \
	"meta['mgid'] == '::ffff:239.2.201.133'" "meta['mgid_reply'] == '::ffff:239.2.201.134'" \
	"int(meta['mc_recv_qps']) == 1" "meta['mc_ip_join'] == '$mc_netdev'" \
	-- "$(rb_file server.csv)" "meta['mgid'] == '::ffff:239.2.201.133'" "meta['mgid_reply'] == '::ffff:239.2.201.134'"
tap_ok $? "rb_send_lat -g: pings to the server's group, replies to the client's (last byte + 1)"

st=0
usage_case '-g/--mcg is multicast UD: -c/--connection RC' rb_send_bw -g -s 64 || st=1
usage_case '-g/--mcg is not supported by rb_write_bw' rb_write_bw -g || st=1
usage_case '-M/--MGID 239.1.1.1 names a multicast group: give -g' rb_send_bw -c UD -s 64 -M 239.1.1.1 || st=1
usage_case "-M/--MGID: '192.0.2.9' is not a valid value" rb_send_bw -c UD -s 64 -g -M 192.0.2.9 || st=1
tap_ok "$st" "refused with exit 2 naming the option: -g with RC, -g on rb_write_bw, -M without -g, a unicast -M"

rb_bench "mcast family" rb_send_bw "$mc_args -M ff0e::1"
rb_failed 2 'the group ff0e::1 is IPv6, GID index [0-9]+ is IPv4-mapped' server
tap_ok $? "-M ff0e::1 on an IPv4-mapped GID: the server exits 2 naming the group's and the GID's family"

rb_bench "mcast hello" rb_send_bw '-c UD -s 64 -n 10' '-g' ''
rb_failed 1 'multicast \(-g/--mcg\) differs'
tap_ok $? "-g on the client only: HELLO fails on both sides naming -g"

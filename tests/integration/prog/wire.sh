# needs: two-guests tcpdump
# rb-wire in the two-guest test bed (tests/rxe-two.sh, its first file): this
# is guest B (192.0.2.2); guest A runs the servers (tests/wire/server.sh).
# Each run of tests/wire/cases.sh goes under `rb-wire capture -i eth0 --json
# --result` and its summary is checked: exact counts of opcodes, messages,
# packets per message, ACKs, retransmissions.  The last run drops 5 % of the
# UDP 4791 packets this guest sends (tc netem behind a u32 filter) and must
# show retransmissions and still complete.  The multicast run (-g) before it
# must show its sends addressed to the group.  The paced run (--rate_limit=2
# Mbps, --burst_size=16, -n 480: 2 s) is checked on the capture's timestamps
# (wire_bursts): its request packets come in runs of 16 between gaps of
# 10 ms and more (a burst is due every 65.5 ms).  Skips (not a pass) outside that
# test bed (RB_PEER unset) or without tcpdump or python3 (tests/integration/lib/two-need.sh).
# At the end it writes $RB_WIRE_SHARED/done: guest A waits for it.

. "$top_srcdir/tests/wire/cases.sh"
. "$top_srcdir/tests/integration/lib/two-need.sh"
rb_wire=$top_builddir/scripts/tools/rb-wire
[ -x "$rb_wire" ] || rb_wire=$top_srcdir/scripts/tools/rb-wire.in
wire_names="send_lat write_bw read_lat write_imm send_imm mcast flow_label reversed pacing loss"

# wire_check FILE EXPR...: each Python expression over t (the total), f (the
# flows), d (the document) must hold; the failing ones become "# " lines.
wire_check() {
	rb_py "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, f = d.get('total') or {}, d.get('flows') or []
def ops(fig, *names):
    return sum(o['packets'] for o in fig['opcodes'] if o['name'] in names)
def way(src):
    return [x for x in f if x['src'] == src]
bad = 0
for e in sys.argv[2:]:
    try:
        good = eval(e)
    except Exception as ex:
        good = False
        e += ' (%s: %s)' % (type(ex).__name__, ex)
    if not good:
        print('# failed: ' + e)
        bad = 1
sys.exit(bad)
PY
}

# wire_run NAME: its run of cases.sh, the client under rb-wire capture.
wire_run() {
	local name port prog args
	read -r name port prog args <<<"$(wire_cases | grep "^$1 ")"
	rb_case "wire $1"
	RB_WIRE_JSON=$RB_CASE_DIR/wire.json
	"$rb_wire" capture -i eth0 -o "$RB_CASE_DIR/run.pcap" --json --result "$RB_CASE_DIR/client.csv" -- \
		"$RB_BIN/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" -p "$port" $args \
		--csv="$RB_CASE_DIR/client.csv" "$RB_PEER" >"$RB_WIRE_JSON" 2>"$RB_CASE_DIR/client.err" </dev/null
	echo $? >"$RB_CASE_DIR/client.rc"
	[ "$(cat "$RB_CASE_DIR/client.rc")" = 0 ] || { sed 's/^/# /' "$RB_CASE_DIR/client.err" | tail -n 15; return 1; }
}

# wire_bursts PCAP SRC N LO HI: the RoCE v2 request packets SRC sent (ACKs
# left out) carry LO..HI PSNs (a packet sent again, after a loaded
# emulator's ACK timeout, repeats one: CI run 26 saw 512 packets for the
# 480 writes), and split at gaps of 10 ms or more they form runs of N
# packets: at least half the runs exactly N, none above 2 N.
wire_bursts() {
	rb_py "$@" <<'PY'
import struct, sys
path, src, n, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
d = open(path, 'rb').read()
scale = 1e9 if struct.unpack('<I', d[:4])[0] == 0xa1b23c4d else 1e6
skip = 14 if struct.unpack('<I', d[20:24])[0] == 1 else 16
srcb, off, ts, psns = bytes(int(x) for x in src.split('.')), 24, [], set()
while off + 16 <= len(d):
    s, us, incl, _ = struct.unpack('<IIII', d[off:off + 16])
    ip = d[off + 16 + skip:off + 16 + incl]
    off += 16 + incl
    if len(ip) < 28 or ip[9] != 17 or ip[12:16] != srcb:
        continue
    h = (ip[0] & 15) * 4
    if struct.unpack('>H', ip[h + 2:h + 4])[0] == 4791 and len(ip) > h + 8 and ip[h + 8] != 0x11:
        ts.append(s + us / scale)
        psns.add(ip[h + 17:h + 20])     # the BTH's PSN: a packet sent again repeats it
runs, cur = [], 1
for a, b in zip(ts, ts[1:]):
    if b - a >= 0.010:
        runs.append(cur)
        cur = 1
    else:
        cur += 1
runs.append(cur)
exact = sum(r == n for r in runs)
print('# %d request packets (%d PSNs, %d sent again), %d runs between gaps of 10 ms+, %d of them %d packets, '
      'the longest %d' % (len(ts), len(psns), len(ts) - len(psns), len(runs), exact, n, max(runs)))
sys.exit(0 if lo <= len(psns) <= hi and 2 * exact >= len(runs) and max(runs) <= 2 * n else 1)
PY
}

wire_diag() {
	rb_py "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d['total']
print('# %s' % ', '.join('%s %d' % (o['name'], o['packets']) for o in t['opcodes']))
print('# packets/message %s, path MTU %s, ACKs %d, messages/ACK %s, retransmitted %d packets (%d PSNs), NAKs %s, efficiency %.4f'
      % (t['packets_per_message'], t['path_mtu_bytes'], t['acks'], t['messages_per_ack'],
         t['retransmitted_packets'], t['retransmitted_psns'],
         {k: v for k, v in t['naks'].items() if v} or 'none', t['wire_efficiency']))
PY
}

# the loss: netem on 1 in 20 of the UDP 4791 packets guest B sends; the
# modules come from the test bed's kernel cache (the guest boots that kernel)
wire_loss_on() {
	local k
	k=$(ls -d "${RB_TESTBED_CACHE:-/var/cache/rdmabench-testbed}"/kernels/*/lib/modules/"$(uname -r)" 2>/dev/null | head -n1)
	[ -n "$k" ] || { tap_diag "no modules of $(uname -r) in the kernel cache"; return 1; }
	for m in sch_prio sch_netem cls_u32; do modprobe -d "${k%/lib/modules/*}" "$m" || return 1; done
	tc qdisc add dev eth0 root handle 1: prio &&
		tc qdisc add dev eth0 parent 1:3 handle 30: netem loss 5% &&
		tc filter add dev eth0 parent 1:0 protocol ip u32 match ip protocol 17 0xff \
			match ip dport 4791 0xffff flowid 1:3
}

# The cases below, skips included (tap_plan: lib.sh): one per name.
wire_list=($wire_names)
tap_plan ${#wire_list[@]}

if [ -z "${RB_PEER:-}" ]; then
	for c in $wire_names; do tap_skip "rb-wire: $c" "not in tests/rxe-two.sh's two-guest test bed (RB_PEER unset)"; done
elif wire_why=$(wire_missing) && [ -n "$wire_why" ]; then
	for c in $wire_names; do tap_skip "rb-wire: $c" "$wire_why"; done
else
	n=$(( (20 + 5) * 2 ))
	wire_run send_lat && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"t['message_sizes'] == {'SEND': {'2': $n}}" \
		"ops(t, 'RC SEND Only', 'RC SEND Only with Immediate') - t['retransmitted_packets'] == $n" \
		"len(f) == 2 and all(x['acked_by_qp'] for x in f)" \
		"all(ops(x, 'RC Acknowledge') == ops(y, 'RC SEND Only', 'RC SEND Only with Immediate') for x in f for y in f if x is not y)" \
		"t['packets_per_message'] == 1.0 and t['path_mtu_at_least_bytes'] == 2" \
		"all(c['match'] for c in d['result_check']['rows'])" "sum(t['naks'].values()) == 0"
	tap_ok $? "rb-wire: rb_send_lat -s 2: one SEND Only per message each way ($n), each SEND packet answered by one Acknowledge, the benchmark's count"
	[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON"

	wire_run write_bw && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"t['message_sizes'] == {'WRITE': {'8192': 20}}" \
		"t['packets_per_message'] == 8.0 and t['path_mtu_bytes'] == 1024" \
		"ops(t, 'RC RDMA WRITE First') + ops(t, 'RC RDMA WRITE Middle') + ops(t, 'RC RDMA WRITE Last') == 8 * 20 + t['retransmitted_packets']" \
		"ops(t, 'RC RDMA WRITE First') >= 20 and ops(t, 'RC RDMA WRITE Middle') >= 6 * 20 and ops(t, 'RC RDMA WRITE Last') >= 20" \
		"d['result_check']['rows'][0]['bench_messages'] == 20 and d['result_check']['rows'][0]['match']" \
		"t['acks'] >= 1"
	tap_ok $? "rb-wire: rb_write_bw -s 8K at path MTU 1024: 8 packets a message (First, 6 Middle, Last), 20 writes as the benchmark counted"
	[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON"

	n=$((20 + 5))
	wire_run read_lat && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"t['message_sizes'] == {'READ': {'64': $n}, 'READ_RESPONSE': {'64': $n}}" \
		"ops(t, 'RC RDMA READ Request') - t['retransmitted_packets'] >= 0 and ops(t, 'RC RDMA READ Request') >= $n" \
		"ops(t, 'RC RDMA READ Response Only') >= $n" \
		"all(c['match'] for c in d['result_check']['rows'])"
	tap_ok $? "rb-wire: rb_read_lat -s 64: $n Read Requests and $n Read Response Only, as the benchmark counted"
	[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON"

	# immediate data (#36): every message with its ImmDt, none without
	wire_run write_imm && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"t['message_sizes'] == {'WRITE': {'512': 20}}" \
		"ops(t, 'RC RDMA WRITE Only with Immediate') - t['retransmitted_packets'] == 20" \
		"ops(t, 'RC RDMA WRITE Only') == 0" \
		"d['result_check']['rows'][0]['bench_messages'] == 20 and d['result_check']['rows'][0]['match']"
	tap_ok $? "rb-wire: rb_write_bw --write_with_imm -s 512: 20 RDMA WRITE Only with Immediate, no plain write, as the benchmark counted"
	[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON"

	wire_run send_imm && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"t['message_sizes'] == {'SEND': {'512': 40}}" \
		"ops(t, 'RC SEND Only with Immediate') - t['retransmitted_packets'] == 40" \
		"ops(t, 'RC SEND Only') == 0" \
		"len([x for x in f if ops(x, 'RC SEND Only with Immediate')]) == 2" \
		"all(c['match'] for c in d['result_check']['rows'])"
	tap_ok $? "rb-wire: rb_send_bw --send_with_imm -s 512 -q 2: 40 SEND Only with Immediate on 2 QPs, no plain send, as the benchmark counted"
	[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON"

	# multicast UD (-g): guest A's 2 QPs joined the group; guest B's 2 QPs
	# send 200 each to it, across the NIC (losses tolerated, as UD's)
	wire_run mcast && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"[(x['dst'], x['dest_qp'], x['multicast']) for x in f if ops(x, 'UD SEND Only')] == [('239.2.201.133', '0xffffff', True)]" \
		"ops(t, 'UD SEND Only') == 400" &&
		rb_check "$RB_CASE_DIR/client.csv" 'status == "complete"' "int(r['mc_sent']) == 400" \
			"int(r['mc_received']) + int(r['mc_lost']) == 800" "int(r['mc_recv_min']) >= 200" \
			"meta['mgid'] == '::ffff:239.2.201.133'" "int(meta['mc_recv_qps']) == 2"
	tap_ok $? "rb-wire: rb_send_bw -g between the guests: 400 UD SENDs to the group 239.2.201.133 (QPN 0xffffff), guest A's 2 QPs counted against them"

	# --flow_label (both sides): RoCE v2's UDP source port is the kernel's
	# rdma_get_udp_sport of the QP's label, 0xC000 | (low 14 bits ^ high 6),
	# computed here on its own: each way, QPs 0 and 2 share one port, 1 and
	# 3 the other; the TTL is the route's (-L is refused on RoCE)
	sp="(lambda fl: 0xC000 | ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)))"
	ports="[p for x in way('%s') for p in x['udp_source_ports']]"
	want="sorted([$sp(0x12345), $sp(0xABC)] * 2)"
	wire_run flow_label && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"list(t['message_sizes']) == ['WRITE'] and list(t['message_sizes']['WRITE']) == ['1024']" \
		"all(c['match'] for c in d['result_check']['rows'])" \
		"len(way('192.0.2.2')) == 4 and len(way('192.0.2.1')) == 4" \
		"sorted($(printf "$ports" 192.0.2.2)) == $want" \
		"sorted($(printf "$ports" 192.0.2.1)) == $want" \
		"$sp(0x12345) == 0xE341 and $sp(0xABC) == 0xCABC" "t['ttl'] == [64]"
	tap_ok $? "rb-wire: rb_write_bw -q 4 --flow_label=0x12345,0xabc: each way one UDP source port per label (0xE341 for QPs 0 and 2, 0xCABC for 1 and 3, rdma_get_udp_sport's), TTL the route's 64"
	[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON" &&
		rb_py "$RB_WIRE_JSON" <<<"import json,sys; d=json.load(open(sys.argv[1])); [print('# %s -> %s QP %s: ports %s, TTL %s' % (x['src'], x['dst'], x['dest_qp'], x['udp_source_ports'], x['ttl'])) for x in d['flows']]"

	# --reversed: guest B connects (HOST given) but guest A, the server, writes
	wire_run reversed && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
		"[x['message_sizes'] for x in way('192.0.2.1')] == [{'WRITE': {'1024': 20}}]" \
		"ops(t, 'RC RDMA WRITE Only') - t['retransmitted_packets'] == 20" \
		"all(ops(x, 'RC RDMA WRITE Only') == 0 and x['acks'] == 0 for x in way('192.0.2.2'))"
	tap_ok $? "rb-wire: rb_write_bw --reversed, the client in guest B: the 20 writes go from the server (guest A) to B, B only acknowledges"
	[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON"

	wire_run pacing && wire_bursts "$RB_CASE_DIR/run.pcap" "$RB_IP" 16 480 500 &&
		wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" "all(c['match'] for c in d['result_check']['rows'])"
	tap_ok $? "rb-wire: rb_write_bw --rate_limit=2 --rate_units=Mbps --burst_size=16 -n 480 -s 1024 (2 s): its 480 writes in runs of 16 packets between gaps of 10 ms and more"

	if wire_loss_on; then
		wire_run loss && wire_check "$RB_WIRE_JSON" "d['status'] == 'complete'" \
			"t['message_sizes'] == {'WRITE': {'8192': 50}}" \
			"t['retransmitted_packets'] > 0" \
			"all(c['match'] for c in d['result_check']['rows'])"
		tap_ok $? "rb-wire: 5 % of guest B's UDP 4791 packets dropped (tc netem): retransmissions on the wire, rb_write_bw still completes its 50 writes"
		[ -s "$RB_WIRE_JSON" ] && wire_diag "$RB_WIRE_JSON"
		tap_diag "$(tc -s qdisc show dev eth0 | grep -A1 netem | tr -s ' \n' ' ')"
		tc qdisc del dev eth0 root 2>/dev/null
	else
		tap_ok 1 "rb-wire: loss injection: tc netem could not be set up on eth0"
	fi
fi
[ -z "${RB_WIRE_SHARED:-}" ] || touch "$RB_WIRE_SHARED/done"

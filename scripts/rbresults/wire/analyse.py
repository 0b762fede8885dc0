"""rb-wire: the analysis: packets grouped into flows (source, destination,
destination QP), messages, ACKs, resends, NAKs, and a flow's figures."""

import struct

from .ib import FAMILIES, PSN_MASK, ROCE_PORT, SYNDROMES, opcode_info, syndrome_name
from .pcap import Packet, Reader, ip_udp, link_payload, parse_bth

class Flow:
    """Packets to one destination QP from one source address."""

    def __init__(self, key):
        self.key = key
        self.ops = {}            # opcode -> [packets, bytes, payload]
        self.psns = set()
        self.retrans_packets, self.retrans_psns = 0, set()
        self.sizes = {f: {} for f in FAMILIES}   # family -> {message bytes: count}
        self.data = {}           # PSN -> (family, position, payload): SEND, WRITE, READ responses
        self.incomplete, self.msg_packets = 0, 0
        self.mtu_seen, self.only_max = 0, 0
        self.acks, self.ack_psns = 0, []
        self.naks = {s: 0 for s in SYNDROMES}
        self.cnp, self.ecn_ce = 0, 0
        self.unknown = 0
        self.sports, self.ttls, self.labels = set(), set(), set()   # UDP source port, TTL, IPv6 label
        self.t0, self.t1 = None, None
        self.acked_by = None     # the reverse flow whose ACKs answer this one

    def add(self, pkt, b):
        self.t0 = pkt.ts if self.t0 is None else min(self.t0, pkt.ts)
        self.t1 = pkt.ts if self.t1 is None else max(self.t1, pkt.ts)
        cell = self.ops.setdefault(b.opcode, [0, 0, 0])
        cell[0] += 1
        cell[1] += pkt.bytes
        cell[2] += b.payload
        self.ecn_ce += pkt.ecn == 3
        self.sports.add(pkt.sport)
        self.ttls.add(pkt.ttl)
        if pkt.flow_label is not None:
            self.labels.add(pkt.flow_label)
        if b.info is None:
            self.unknown += 1
            return
        fam = b.info[1]
        if fam == 'CNP':
            self.cnp += 1
        elif fam in ('ACK', 'ATOMIC_ACK'):
            self.add_ack(b)
        else:
            self.add_request(b, fam)

    def add_ack(self, b):
        name = syndrome_name(b.syndrome)
        if name == 'ack':
            self.acks += b.info[1] == 'ACK'
            self.ack_psns.append(b.psn)
        else:
            self.naks[name] += 1

    def add_request(self, b, fam):
        if b.psn in self.psns:
            self.retrans_packets += 1
            self.retrans_psns.add(b.psn)
            return
        self.psns.add(b.psn)
        pos = b.info[2]
        if fam in ('READ', 'ATOMIC'):
            size = b.dma_len if fam == 'READ' else 8
            self.sizes[fam][size] = self.sizes[fam].get(size, 0) + 1
            return
        if pos in ('first', 'middle'):
            self.mtu_seen = max(self.mtu_seen, b.payload)
        if pos == 'only':
            self.only_max = max(self.only_max, b.payload)
        self.data[b.psn] = (fam, pos, b.payload)

    def finish(self):
        """Messages from the data packets in PSN order, not arrival order: a
        packet lost before the capture point shows up only when resent, out
        of order.  A message with a PSN missing is counted as incomplete."""
        if not self.data:
            return
        base = (next(iter(self.data)) - (1 << 20)) & PSN_MASK
        cur, prev = None, None      # cur: [family, bytes, packets] of the message under way
        for psn in sorted(self.data, key=lambda p: (p - base) & PSN_MASK):
            fam, pos, payload = self.data[psn]
            gap = prev is not None and psn != (prev + 1) & PSN_MASK
            if cur is not None and (pos in ('first', 'only') or gap or fam != cur[0]):
                self.incomplete += 1
                cur = None
            elif cur is None and pos in ('middle', 'last') and (gap or prev is None):
                self.incomplete += 1   # its First is missing
            prev = psn
            if pos in ('first', 'only'):
                cur = [fam, 0, 0]
            if cur is None:
                continue
            cur[1] += payload
            cur[2] += 1
            if pos in ('last', 'only'):
                self.sizes[fam][cur[1]] = self.sizes[fam].get(cur[1], 0) + 1
                self.msg_packets += cur[2]
                cur = None
        if cur is not None:
            self.incomplete += 1

    def messages(self, fams=('SEND', 'WRITE', 'READ_RESPONSE')):
        return sum(sum(self.sizes[f].values()) for f in fams)


def analyse(path):
    """The flows of a capture, and counts of what was passed over."""
    reader = Reader(path)
    flows, seen = {}, {'frames': 0, 'roce': 0, 'not_roce': 0, 'short': 0, 'links': set()}
    for fr in reader.frames():
        seen['frames'] += 1
        seen['links'].add(fr.link)
        got = decode(fr)
        if got is None:
            seen['not_roce'] += 1
            continue
        if got == 'short':
            seen['short'] += 1
            continue
        pkt, b = got
        seen['roce'] += 1
        key = (pkt.src, pkt.dst, b.dqp)
        flows.setdefault(key, Flow(key)).add(pkt, b)
    for fl in flows.values():
        fl.finish()
    pair_acks(flows)
    return reader, [flows[k] for k in sorted(flows, key=flow_order)], seen


def flow_order(key):
    return (key[0], key[1], key[2])


def decode(fr):
    """(Packet, Bth), None when not RoCE v2, 'short' when cut by the snap length."""
    d = fr.data
    lp = link_payload(fr.link, d)
    if lp is None:
        return None
    etype, off, l2 = lp
    ip = ip_udp(etype, d, off)
    if ip is None:
        return None
    src, dst, ecn, ip_bytes, udp, ttl, label = ip
    if len(d) < udp + 8:
        return 'short'
    dport, udp_len = struct.unpack('>H', d[udp + 2:udp + 4])[0], struct.unpack('>H', d[udp + 4:udp + 6])[0]
    if dport != ROCE_PORT:
        return None
    try:
        b = parse_bth(d, udp + 8, udp_len)
    except ValueError:
        return 'short'
    pkt = Packet()
    pkt.ts, pkt.src, pkt.dst, pkt.ecn = fr.ts, src, dst, ecn
    pkt.bytes = l2 + ip_bytes
    pkt.sport, pkt.ttl, pkt.flow_label = struct.unpack('>H', d[udp:udp + 2])[0], ttl, label
    return pkt, b


def pair_acks(flows):
    """Each request flow's ACKs travel on a reverse flow (to the requester's
    QP); the BTH names only the destination QP, so match them by PSN."""
    for ack in flows.values():
        if not ack.ack_psns:
            continue
        for req in flows.values():
            if req.key[0] == ack.key[1] and req.key[1] == ack.key[0] and req.psns:
                hits = sum(1 for p in ack.ack_psns[:50] if p in req.psns)
                if hits * 2 > min(len(ack.ack_psns), 50):
                    req.acked_by = ack
                    break


# --- the figures of a flow, or of all ---------------------------------------------


def figures(flows, total=False):
    """A dict of the summary figures of some flows."""
    f = {'packets': 0, 'bytes': 0, 'payload_bytes': 0}
    ops = {}
    for fl in flows:
        for op, (n, by, pl) in fl.ops.items():
            cell = ops.setdefault(op, [0, 0, 0])
            cell[0] += n
            cell[1] += by
            cell[2] += pl
    for n, by, pl in ops.values():
        f['packets'] += n
        f['bytes'] += by
        f['payload_bytes'] += pl
    data_msgs = sum(fl.messages() for fl in flows)
    data_pkts = sum(fl.msg_packets for fl in flows)
    mtu = max([fl.mtu_seen for fl in flows] or [0])
    only = max([fl.only_max for fl in flows] or [0])
    f['messages'] = {fam: sum(sum(fl.sizes[fam].values()) for fl in flows) for fam in FAMILIES}
    f['message_sizes'] = merge_sizes(flows)
    f['packets_per_message'] = ratio(data_pkts, data_msgs)
    f['incomplete_messages'] = sum(fl.incomplete for fl in flows)
    f['path_mtu_bytes'] = mtu_of(mtu) if mtu else None
    f['path_mtu_at_least_bytes'] = None if mtu else (only or None)
    rc_msgs, acks = acked(flows, total)
    f['acks'] = acks
    f['messages_per_ack'] = ratio(rc_msgs, acks)
    f['retransmitted_packets'] = sum(fl.retrans_packets for fl in flows)
    f['retransmitted_psns'] = sum(len(fl.retrans_psns) for fl in flows)
    f['naks'] = {s: sum(fl.naks[s] for fl in flows) for s in SYNDROMES}
    f['cnp'] = sum(fl.cnp for fl in flows)
    f['ecn_ce'] = sum(fl.ecn_ce for fl in flows)
    f['unknown_opcode_packets'] = sum(fl.unknown for fl in flows)
    f['wire_efficiency'] = ratio(f['payload_bytes'], f['bytes'])
    # the path fields: RoCE v2's UDP source port (from the flow label or the
    # QP numbers: ECMP's entropy), the IPv4 TTL or IPv6 hop limit, the IPv6 flow label
    f['udp_source_ports'] = sorted(set().union(*[fl.sports for fl in flows]))
    f['ttl'] = sorted(set().union(*[fl.ttls for fl in flows]))
    f['ipv6_flow_labels'] = sorted(set().union(*[fl.labels for fl in flows]))
    ts = [t for fl in flows for t in (fl.t0, fl.t1) if t is not None]
    f['duration_s'] = (max(ts) - min(ts)) if ts else 0.0
    f['opcodes'] = [{'opcode': '0x%02x' % op, 'name': op_name(op), 'packets': c[0],
                     'bytes': c[1], 'payload_bytes': c[2]} for op, c in sorted(ops.items())]
    return f


def acked(flows, total):
    """(RC SEND/WRITE messages, ACK packets answering them): a flow's ACKs
    come on the reverse flow pair_acks found; in total, all of them."""
    if total:
        return (sum(rc_messages(fl) for fl in flows), sum(fl.acks for fl in flows))
    fl = flows[0]
    if fl.acked_by is None:
        return (rc_messages(fl), 0) if rc_messages(fl) else (0, 0)
    return rc_messages(fl), fl.acked_by.acks


def rc_messages(fl):
    rc = any((op >> 5) == 0 for op in fl.ops)
    return fl.messages(('SEND', 'WRITE')) if rc else 0


def merge_sizes(flows):
    out = {}
    for fam in FAMILIES:
        sizes = {}
        for fl in flows:
            for size, n in fl.sizes[fam].items():
                sizes[size] = sizes.get(size, 0) + n
        if sizes:
            out[fam] = {str(s): sizes[s] for s in sorted(sizes)}
    return out


def mtu_of(payload):
    """The IB MTU (256..4096) a full First/Middle payload implies."""
    for m in (256, 512, 1024, 2048, 4096):
        if payload == m:
            return m
    return payload


def ratio(a, b):
    return a / b if b else None


def op_name(op):
    info = opcode_info(op)
    return info[0] if info else 'unknown 0x%02x' % op

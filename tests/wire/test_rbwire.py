#!/usr/bin/env python3
"""rb-wire on synthetic captures (TAP): every count of known packets.

    test_rbwire.py RB_WIRE TMPDIR

Builds pcap/pcapng files packet by packet (Ethernet, VLAN, IPv4, IPv6,
Linux cooked SLL/SLL2, both byte orders), runs RB_WIRE analyse --json on
them and checks the figures; then a truncated file, a file that is not a
capture and one without RoCE v2 traffic: clear messages, exit 1, no
traceback.
"""

import csv
import json
import os
import struct
import subprocess
import sys

RB_WIRE, TMP = sys.argv[1], sys.argv[2]
A, B = '192.0.2.1', '192.0.2.2'
QA, QB = 0x11, 0x22      # A's and B's QP numbers
n_tests = failed = 0


def ok(cond, name, detail=''):
    global n_tests, failed
    n_tests += 1
    print('%sok %d - %s' % ('' if cond else 'not ', n_tests, name))
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[:20]:
            print('# ' + line)


# --- building packets ---------------------------------------------------------------

def bth(opcode, dqp, psn, pad=0, ackreq=False):
    return struct.pack('>BBHII', opcode, pad << 4, 0xFFFF, dqp & 0xFFFFFF,
                       (ackreq << 31) | (psn & 0xFFFFFF))


def reth(length):
    return struct.pack('>QII', 0x1000, 0x1234, length)


def aeth(syndrome, msn=0):
    return struct.pack('>I', (syndrome << 24) | msn)


def roce(opcode, dqp, psn, ext=b'', payload=0, pad=0):
    return bth(opcode, dqp, psn, pad) + ext + b'\xab' * (payload + pad) + b'\0' * 4


def udp(payload, sport=49152):
    return struct.pack('>HHHH', sport, 4791, 8 + len(payload), 0) + payload


def ipv4(src, dst, l4, ecn=0, ttl=64):
    s = bytes(int(x) for x in src.split('.'))
    d = bytes(int(x) for x in dst.split('.'))
    return struct.pack('>BBHHHBBH', 0x45, ecn, 20 + len(l4), 0, 0x4000, ttl, 17, 0) + s + d + l4


def ipv6(l4, label=0, hops=64):
    src = b'\xfe\x80' + b'\0' * 13 + b'\x01'
    dst = b'\xfe\x80' + b'\0' * 13 + b'\x02'
    return struct.pack('>IHBB', (6 << 28) | label, len(l4), 17, hops) + src + dst + l4


def eth(ip, vlan=None, v6=False):
    et = struct.pack('>H', 0x86DD if v6 else 0x0800)
    tag = struct.pack('>HH', 0x8100, vlan) if vlan is not None else b''
    return b'\x02' * 6 + b'\x04' * 6 + tag + et + ip


def frame(src, dst, r, **kw):
    return eth(ipv4(src, dst, udp(r), kw.get('ecn', 0)), kw.get('vlan'))


def pcap(path, frames, link=1, endian='<', cut=0):
    out = struct.pack(endian + 'IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, link)
    for i, f in enumerate(frames):
        out += struct.pack(endian + 'IIII', 1000, i * 10, len(f), len(f)) + f
    with open(path, 'wb') as fh:
        fh.write(out[:len(out) - cut])
    return path


def pcapng(path, frames, link=1):
    def block(t, body):
        body += b'\0' * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack('<II', t, n) + body + struct.pack('<I', n)
    out = block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack('<HHI', link, 0, 65535))
    for i, f in enumerate(frames):
        out += block(6, struct.pack('<IIIII', 0, 0, i, len(f), len(f)) + f)
    with open(path, 'wb') as fh:
        fh.write(out)
    return path


def analyse(path, *extra):
    p = subprocess.run([RB_WIRE, 'analyse', path, '--json'] + list(extra),
                       capture_output=True, text=True, timeout=60)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = None
    return p.returncode, doc, p.stderr, p.stdout


def flow(doc, src, dst, qp):
    for f in doc['flows']:
        if (f['src'], f['dst'], f['dest_qp']) == (src, dst, '0x%06x' % qp):
            return f
    return None


def opcount(fig, name):
    return sum(o['packets'] for o in fig['opcodes'] if o['name'] == name)


# --- the traffic of a send_lat: SEND Only + ACK each way -----------------------------

def send_lat_frames(n):
    out = []
    for i in range(n):
        out.append(frame(A, B, roce(0x04, QB, 100 + i, payload=2, pad=2)))
        out.append(frame(B, A, roce(0x11, QA, 100 + i, aeth(0x1F, i))))
        out.append(frame(B, A, roce(0x04, QA, 500 + i, payload=2, pad=2)))
        out.append(frame(A, B, roce(0x11, QB, 500 + i, aeth(0x1F, i))))
    return out


rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'send.pcap'), send_lat_frames(10)))
ok(rc == 0 and doc and doc['status'] == 'complete', 'SEND Only + ACK: exit 0, status complete', err)
if doc:
    t = doc['total']
    ok(opcount(t, 'RC SEND Only') == 20 and opcount(t, 'RC Acknowledge') == 20 and t['packets'] == 40,
       'SEND Only + ACK: 20 SEND Only, 20 Acknowledge, 40 packets', t['opcodes'])
    ok(t['messages']['SEND'] == 20 and t['message_sizes']['SEND'] == {'2': 20},
       'SEND Only + ACK: 20 messages of 2 B (pad count honoured)', t['message_sizes'])
    ok(t['acks'] == 20 and t['messages_per_ack'] == 1.0, 'SEND Only + ACK: 1 message per ACK', t)
    # frame bytes: 14 Ethernet + 20 IP + 8 UDP + 12 BTH + 2 payload + 2 pad + 4 ICRC = 62
    ok(t['bytes'] == 20 * 62 + 20 * 62 and t['payload_bytes'] == 40,
       'SEND Only + ACK: 62-byte frames, 40 payload bytes', (t['bytes'], t['payload_bytes']))
    ok(abs(t['wire_efficiency'] - 40 / 2480) < 1e-9, 'SEND Only + ACK: wire efficiency 40/2480',
       t['wire_efficiency'])
    f = flow(doc, A, B, QB)
    ok(f and f['acked_by_qp'] == '0x%06x' % QA and f['messages_per_ack'] == 1.0,
       'SEND Only + ACK: A->B QP 0x22 is ACKed on QP 0x11, 1 message per ACK', f)
    ok(len(doc["flows"]) == 2, "SEND Only + ACK: 2 flows (the SENDs and the ACKs to one QP travel together)", len(doc['flows']))
    ok(t['path_mtu_bytes'] is None and t['path_mtu_at_least_bytes'] == 2,
       'SEND Only: path MTU unknown (at least 2)', t)
    ok(t['retransmitted_packets'] == 0 and sum(t['naks'].values()) == 0 and t['cnp'] == 0,
       'SEND Only + ACK: no retransmission, NAK or CNP', t)

# --- WRITE First/Middle/Last at MTU 1024, one ACK per 2 messages -------------------------


def write_frames(msgs, size=8192, mtu=1024, ack_every=2, retrans=None):
    out, psn = [], 1000
    for m in range(msgs):
        n = size // mtu
        for k in range(n):
            op, ext = (0x06, reth(size)) if k == 0 else ((0x08, b'') if k == n - 1 else (0x07, b''))
            out.append(frame(A, B, roce(op, QB, psn, ext, mtu)))
            if retrans == psn:
                out.append(frame(A, B, roce(op, QB, psn, ext, mtu)))
            psn += 1
        if (m + 1) % ack_every == 0:
            out.append(frame(B, A, roce(0x11, QA, psn - 1, aeth(0x1F, m))))
    return out


rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'write.pcap'), write_frames(10, retrans=1013)))
if doc:
    t, f = doc['total'], flow(doc, A, B, QB)
    ok(opcount(t, 'RC RDMA WRITE First') == 10 and opcount(t, 'RC RDMA WRITE Middle') == 61 and
       opcount(t, 'RC RDMA WRITE Last') == 10,
       'WRITE 8 KiB at MTU 1024: 10 First, 60 Middle + 1 resent, 10 Last', t['opcodes'])
    ok(t['message_sizes'].get('WRITE') == {'8192': 10}, 'WRITE: 10 messages of 8192 B',
       t['message_sizes'])
    ok(t['packets_per_message'] == 8.0 and t['path_mtu_bytes'] == 1024,
       'WRITE: 8 packets per message, path MTU 1024', (t['packets_per_message'], t['path_mtu_bytes']))
    ok(t['retransmitted_packets'] == 1 and t['retransmitted_psns'] == 1,
       'WRITE: one retransmitted PSN', (t['retransmitted_packets'], t['retransmitted_psns']))
    ok(f and f['messages_per_ack'] == 2.0 and t['acks'] == 5, 'WRITE: 2 messages per ACK (5 ACKs)', f)
    # 81 data frames of 14+20+8+12+1024+4 (+16 RETH on the First) and 5 ACKs of 62
    want = 81 * 1082 + 10 * 16 + 5 * 62
    ok(t['bytes'] == want and t['payload_bytes'] == 81 * 1024, 'WRITE: frame and payload bytes',
       (t['bytes'], want))
else:
    ok(False, 'WRITE capture analysed', err)

# a packet lost before the capture point (netem on the sender) is seen only
# when go-back-N resends it: out of PSN order, after the message's Last
lossy = write_frames(2)
lost = lossy.pop(2)                       # message 1, PSN 1002 (a Middle)
resend = [frame(A, B, roce(0x07 if k < 7 else 0x08, QB, 1000 + k, b'', 1024)) for k in range(2, 8)]
frames = lossy[:7] + resend + lossy[7:]
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'lossy.pcap'), frames))
t = doc and doc['total']
ok(t and t['message_sizes'].get('WRITE') == {'8192': 2} and t['retransmitted_packets'] == 5 and
   t['incomplete_messages'] == 0 and t['packets_per_message'] == 8.0,
   'a Middle lost before the capture, resent after the Last: 2 messages of 8192, 5 packets resent',
   t or err)
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'hole.pcap'), lossy[:7] + lossy[7:]))
t = doc and doc['total']
ok(t and t['message_sizes'].get('WRITE') == {'8192': 1} and t['incomplete_messages'] == 1 and
   'PSN missing from the capture' in err,
   'a PSN never captured: 1 message, 1 incomplete, said on stderr', (t, err))

# --- --result: the benchmark's counts against the wire's ------------------------------

RESULT = '''# rdmabench RDMA write bandwidth
# tool=rdmabench
# test=rb_write_bw
# bidirectional=no
# warmup_iterations=0
size_bytes,iterations,bytes,window_s,bw_peak_mibps,bw_avg_mibps,bw_peak_gbps,bw_avg_gbps,msg_rate_mpps
8192,%d,%d,0.1,1,1,1,1,1
# status=complete
'''
for iters, want_rc in ((10, 0), (11, 1)):
    res = os.path.join(TMP, 'wbw-%d.csv' % iters)
    with open(res, 'w') as fh:
        fh.write(RESULT % (iters, iters * 8192))
    rc, doc, err, out = analyse(os.path.join(TMP, 'write.pcap'), '--result', res)
    row = doc and doc.get('result_check', {}).get('rows', [{}])[0]
    good = row and row['bench_messages'] == iters and row['wire_messages'] == 10 and \
        row['match'] == (iters == 10) and rc == want_rc
    ok(good, '--result with %d writes against 10 on the wire: %s, exit %d'
       % (iters, 'match' if iters == 10 else 'mismatch flagged', want_rc), (rc, row, err))
ok('mismatch at 8192 B' in err, '--result mismatch: named on stderr', err)
# the same as the binaries write it now: the rows, the metadata in the sidecar
res = os.path.join(TMP, 'wbw-new.csv')
with open(res, 'w') as fh:
    fh.write('\n'.join(l for l in (RESULT % (10, 81920)).splitlines() if not l.startswith('#')) + '\n')
with open(os.path.join(TMP, 'wbw-new.meta.json'), 'w') as fh:
    json.dump({'schema_version': 1, 'title': 'RDMA write bandwidth', 'status': 'complete', 'error': None,
               'meta': {'tool': 'rdmabench', 'test': 'rb_write_bw', 'bidirectional': 'no',
                        'warmup_iterations': 0}, 'columns': []}, fh)
rc, doc, err, out = analyse(os.path.join(TMP, 'write.pcap'), '--result', res)
row = doc and doc.get('result_check', {}).get('rows', [{}])[0]
ok(rc == 0 and row and row['match'] and row['bench_messages'] == 10,
   '--result with a CSV and its sidecar (test from the sidecar): match, exit 0', (rc, row, err))
rc, doc, err, out = analyse(os.path.join(TMP, 'write.pcap'), '--result', '/nonexistent.csv')
ok(rc == 1 and 'nonexistent' in err and 'Traceback' not in err, '--result: a missing file is a clear error', err)

# --- READ request / responses, RNR NAK, CNP, ECN, atomics ------------------------------


def read_frames():
    out = []
    for i in range(3):
        out.append(frame(A, B, roce(0x0C, QB, 10 + 3 * i, reth(2048))))
        out.append(frame(B, A, roce(0x0D, QA, 10 + 3 * i, aeth(0x1F), 1024)))
        out.append(frame(B, A, roce(0x0F, QA, 11 + 3 * i, aeth(0x1F), 1024)))
    out.append(frame(A, B, roce(0x0C, QB, 19, reth(64))))
    out.append(frame(B, A, roce(0x10, QA, 19, aeth(0x1F), 64)))
    out.append(frame(A, B, roce(0x04, QB, 20, payload=8)))
    out.append(frame(B, A, roce(0x11, QA, 20, aeth(0x20 | 0x0E))))          # RNR NAK
    out.append(frame(B, A, roce(0x11, QA, 20, aeth(0x60 | 0x00))))          # PSN sequence error
    out.append(frame(B, A, roce(0x11, QA, 20, aeth(0x60 | 0x02))))          # remote access error
    out.append(frame(A, B, roce(0x04, QB, 20, payload=8)))                    # resent
    out.append(frame(B, A, roce(0x11, QA, 20, aeth(0x1F))))
    out.append(frame(B, A, roce(0x81, QA, 0, b'\0' * 16), ecn=0))           # CNP
    out.append(frame(A, B, roce(0x14, QB, 21, b'\0' * 28), ecn=3))          # FetchAdd, CE
    out.append(frame(B, A, roce(0x12, QA, 21, aeth(0x1F) + b'\0' * 8)))
    return out


rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'read.pcap'), read_frames(), endian='>'))
if doc:
    t = doc['total']
    ok(opcount(t, 'RC RDMA READ Request') == 4 and opcount(t, 'RC RDMA READ Response First') == 3 and
       opcount(t, 'RC RDMA READ Response Last') == 3 and opcount(t, 'RC RDMA READ Response Only') == 1,
       'READ (big-endian pcap): 4 requests, 3 First + 3 Last + 1 Only responses', t['opcodes'])
    ok(t['message_sizes'].get('READ') == {'64': 1, '2048': 3} and
       t['message_sizes'].get('READ_RESPONSE') == {'64': 1, '2048': 3},
       'READ: request lengths (RETH) and response messages 3 x 2048 + 1 x 64', t['message_sizes'])
    ok(t['path_mtu_bytes'] == 1024, 'READ responses: path MTU 1024', t['path_mtu_bytes'])
    ok(t['naks']['rnr_nak'] == 1 and t['naks']['psn_sequence_error'] == 1 and
       t['naks']['remote_access_error'] == 1 and sum(t['naks'].values()) == 3,
       'NAKs by syndrome: 1 RNR, 1 PSN sequence error, 1 remote access error', t['naks'])
    ok(t['retransmitted_packets'] == 1, 'the resent SEND: 1 retransmitted packet', t)
    ok(t['message_sizes'].get('SEND') == {'8': 1}, 'the resent SEND counts once as a message',
       t['message_sizes'])
    ok(t['cnp'] == 1 and opcount(t, 'CNP') == 1, 'one CNP (opcode 0x81)', t)
    ok(t['ecn_ce'] == 1, 'one ECN CE-marked packet', t['ecn_ce'])
    ok(opcount(t, 'RC FetchAdd') == 1 and opcount(t, 'RC Atomic Acknowledge') == 1 and
       t['message_sizes'].get('ATOMIC') == {'8': 1}, 'FetchAdd and Atomic Acknowledge', t['opcodes'])
else:
    ok(False, 'READ capture analysed', err)

# --- IPv6, VLAN, SLL, SLL2, pcapng, UD ---------------------------------------------------


def v6_frame(r, vlan=None):
    return eth(ipv6(udp(r)), vlan=vlan, v6=True)


v6 = [v6_frame(roce(0x04, QB, 1, payload=100)), v6_frame(roce(0x11, QA, 1, aeth(0x1F)), vlan=5)]
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'v6.pcap'), v6))
if doc:
    t = doc['total']
    ok(doc['flows'][0]['src'] == 'fe80::1' and opcount(t, 'RC SEND Only') == 1 and
       opcount(t, 'RC Acknowledge') == 1, 'IPv6 (one frame VLAN-tagged): addresses and opcodes',
       doc['flows'])
    # 14 + 40 + 8 + 12 + 100 + 4 = 178; 14 + 4 + 40 + 8 + 12 + 4 + 4 = 86
    ok(t['bytes'] == 178 + 86, 'IPv6 + VLAN: frame bytes 178 + 86', t['bytes'])
else:
    ok(False, 'IPv6 capture analysed', err)

vlan = [frame(A, B, roce(0x0A, QB, 7, reth(300), 300), vlan=100)]
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'vlan.pcap'), vlan))
ok(doc and opcount(doc['total'], 'RC RDMA WRITE Only') == 1 and doc['total']['bytes'] == 18 + 20 + 8 + 12 + 16 + 300 + 4,
   'VLAN: WRITE Only, 4 more bytes of tag', doc and doc['total'])


def sll(f):
    return struct.pack('>HHHQH', 0, 1, 6, 0, 0x0800) + f[14:]


def sll2(f):
    return struct.pack('>HHIHBB8s', 0x0800, 0, 2, 1, 0, 6, b'\0' * 8) + f[14:]


base = send_lat_frames(2)
for name, link, conv in (('SLL', 113, sll), ('SLL2', 276, sll2)):
    rc, doc, err, out = analyse(pcap(os.path.join(TMP, name + '.pcap'), [conv(f) for f in base], link=link))
    ok(doc and doc['total']['packets'] == 8 and doc['total']['bytes'] == 8 * 62 and
       doc['meta']['link_types'].startswith('Linux cooked'),
       'Linux cooked %s: 8 packets, bytes as on Ethernet' % name, doc and doc['total'] or err)

rc, doc, err, out = analyse(pcapng(os.path.join(TMP, 'send.pcapng'), send_lat_frames(3)))
ok(rc == 0 and doc and doc['meta']['format'] == 'pcapng' and doc['total']['messages']['SEND'] == 6,
   'pcapng: 6 SEND messages', doc and doc['total'] or err)

ud = [frame(A, B, roce(0x64, 0x99, 3, b'\0' * 8, 256))]
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'ud.pcap'), ud))
ok(doc and opcount(doc['total'], 'UD SEND Only') == 1 and doc['total']['payload_bytes'] == 256,
   'UD SEND Only: DETH skipped, 256 payload bytes', doc and doc['total'] or err)

mc = [frame(A, '239.2.201.133', roce(0x64, 0xFFFFFF, n, b'\0' * 8, 64)) for n in range(3)]
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'mcast.pcap'), mc))
ok(doc and len(doc['flows']) == 1 and doc['flows'][0]['dst'] == '239.2.201.133' and
   doc['flows'][0]['dest_qp'] == '0xffffff' and doc['flows'][0]['multicast'] and
   opcount(doc['total'], 'UD SEND Only') == 3, 'multicast UD: 3 SENDs to the group 239.2.201.133, QPN 0xffffff, a multicast flow',
   doc and doc['flows'] or err)
ok(doc and not any(f['multicast'] for f in analyse(pcap(os.path.join(TMP, 'ud1.pcap'), ud))[1]['flows']),
   'a unicast flow is not multicast', doc and doc['flows'])
p = subprocess.run([RB_WIRE, 'analyse', os.path.join(TMP, 'mcast.pcap')], capture_output=True, text=True, timeout=60)
ok(p.returncode == 0 and '-> 239.2.201.133 (multicast group), dest QP 0xffffff' in p.stdout,
   'human table: the flow to the group says so', p.stdout)

# --- CSV and the human table --------------------------------------------------------------

p = subprocess.run([RB_WIRE, 'analyse', os.path.join(TMP, 'write.pcap'), '--csv'],
                   capture_output=True, text=True, timeout=60)
lines = p.stdout.splitlines()
head = list(csv.reader(lines))
ok(p.returncode == 0 and not any(l.startswith('#') for l in lines) and lines[0].startswith('src,dst,dest_qp,opcode,')
   and all(len(r) == len(head[0]) for r in head), 'CSV: the header and rows of its width, nothing else',
   p.stdout[:400])
head = lines
total = [l for l in head if l.startswith('all,all,all,all,')]
ok(len(total) == 1 and ',8.000000,1024,' in total[0], 'CSV: one total row, 8 packets/message, MTU 1024',
   total)
p = subprocess.run([RB_WIRE, 'analyse', os.path.join(TMP, 'write.pcap')],
                   capture_output=True, text=True, timeout=60)
ok(p.returncode == 0 and 'RC RDMA WRITE Middle' in p.stdout and 'path MTU 1024' in p.stdout and
   p.stdout.rstrip().endswith('Status: complete'), 'human table: opcodes, MTU, status', p.stdout)

# --- bad captures: clear errors, exit 1, no traceback -------------------------------------


def bad(path, want, name, fmt='--json'):
    p = subprocess.run([RB_WIRE, 'analyse', path, fmt], capture_output=True, text=True, timeout=60)
    doc = None
    if fmt == '--json':
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            pass
    good = p.returncode == 1 and want in p.stderr and 'Traceback' not in p.stderr
    if fmt == '--json':
        good = good and doc is not None and doc['status'] in ('failed', 'partial') and doc['error']
    ok(good, name, 'exit %d\n%s\n%s' % (p.returncode, p.stderr, p.stdout[:300]))


bad(pcap(os.path.join(TMP, 'cut.pcap'), write_frames(2), cut=100), 'cut short',
    'truncated pcap: figures marked partial, "cut short" on stderr, exit 1')
with open(os.path.join(TMP, 'garbage.pcap'), 'wb') as fh:
    fh.write(b'this is not a capture at all\n' * 10)
bad(os.path.join(TMP, 'garbage.pcap'), 'not a pcap or pcapng file', 'not a capture: named, exit 1')
bad(os.path.join(TMP, 'garbage.pcap'), 'not a pcap or pcapng file', 'not a capture, --csv: exit 1', '--csv')
with open(os.path.join(TMP, 'tiny.pcap'), 'wb') as fh:
    fh.write(b'\xd4\xc3\xb2\xa1\x02\x00')
bad(os.path.join(TMP, 'tiny.pcap'), 'header is cut short', 'a pcap header cut short: exit 1')
other = [eth(ipv4(A, B, struct.pack('>HHHH', 1000, 53, 8, 0)))] * 3
bad(pcap(os.path.join(TMP, 'dns.pcap'), other), 'no RoCE v2 packet', 'no RoCE traffic: "no RoCE v2 packet", exit 1')
bad(os.path.join(TMP, 'missing.pcap'), 'No such file', 'a missing file: exit 1')
corrupt = bytearray(open(os.path.join(TMP, 'send.pcap'), 'rb').read())
corrupt[24 + 8:24 + 12] = struct.pack('<I', 0x7FFFFFFF)
with open(os.path.join(TMP, 'corrupt.pcap'), 'wb') as fh:
    fh.write(corrupt)
bad(os.path.join(TMP, 'corrupt.pcap'), 'byte 24', 'a record length of 2 GiB: corrupt, exit 1')
short = [frame(A, B, roce(0x04, QB, 1, payload=8))[:50]] + send_lat_frames(1)
p = subprocess.run([RB_WIRE, 'analyse', pcap(os.path.join(TMP, 'snap.pcap'), short), '--json'],
                   capture_output=True, text=True, timeout=60)
ok(p.returncode == 0 and 'cut before their headers ended' in p.stderr and
   json.loads(p.stdout)['meta']['short_frames'] == 1,
   'a frame cut by the snap length: counted, said on stderr', p.stderr)

# --- the path fields: UDP source port, TTL / hop limit, IPv6 flow label ----------------

path = [eth(ipv4(B, A, udp(roce(0x0A, 0x31 + i % 2, 10 + i, reth(64), 64), sport=0xC000 | (0x123 + i % 2)), ttl=9))
        for i in range(4)] + [frame(A, B, roce(0x11, QB, 10, aeth(0x1F)))]
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'path.pcap'), path))
if doc:
    f1, f2 = flow(doc, B, A, 0x31), flow(doc, B, A, 0x32)
    ok(f1 and f2 and f1['udp_source_ports'] == [0xC123] and f2['udp_source_ports'] == [0xC124] and
       f1['ttl'] == [9] and f2['ttl'] == [9] and f1['ipv6_flow_labels'] == [],
       'path: each flow its UDP source port and TTL (IPv4: no flow label)', doc['flows'])
    ok(doc['total']['udp_source_ports'] == [49152, 0xC123, 0xC124] and doc['total']['ttl'] == [9, 64],
       'path: in total, every source port and TTL seen', doc['total'])
else:
    ok(False, 'path capture analysed', err)
v6p = [eth(ipv6(udp(roce(0x04, QB, 1, payload=8), sport=0xD001), label=0xABCDE, hops=3), v6=True)]
rc, doc, err, out = analyse(pcap(os.path.join(TMP, 'v6path.pcap'), v6p))
ok(doc and doc['total']['ipv6_flow_labels'] == [0xABCDE] and doc['total']['ttl'] == [3] and
   doc['total']['udp_source_ports'] == [0xD001], 'path: IPv6 flow label, hop limit, source port',
   doc and doc['total'])
p = subprocess.run([RB_WIRE, 'analyse', os.path.join(TMP, 'v6path.pcap')], capture_output=True, text=True, timeout=60)
ok('UDP source ports 53249, TTL/hop limit 3, IPv6 flow labels 0xabcde' in p.stdout,
   'path: the human summary names them', p.stdout)

# --- usage -----------------------------------------------------------------------------------

for args, want in ((['capture', '-o', 'x.pcap', '--', 'true'], '-i IFACE'),
                   (['capture', '-i', 'lo', '-o', 'x.pcap'], 'command after --'),
                   (['analyse'], 'needs a FILE'), (['frobnicate'], 'invalid choice'),
                   (['capture', '-i', 'lo', '-o', 'x', '-s', '10', '--', 'true'], '--snaplen')):
    p = subprocess.run([RB_WIRE] + args, capture_output=True, text=True, timeout=60)
    ok(p.returncode == 2 and want in p.stderr, 'usage: %s -> exit 2 naming %s' % (' '.join(args), want),
       p.stderr)
p = subprocess.run([RB_WIRE, '--version'], capture_output=True, text=True, timeout=60)
ok(p.returncode == 0 and p.stdout.startswith('rb-wire (rdmabench) '), '--version', p.stdout)

print('1..%d' % n_tests)
sys.exit(1 if failed else 0)

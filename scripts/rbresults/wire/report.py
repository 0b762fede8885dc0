"""rb-wire: the summary document (JSON), the --result check of the
benchmark's counts against the wire's, and the CSV and human outputs."""

import ipaddress
import json
import sys

import rbresults

from . import PROG
from .ib import SYNDROMES
from .pcap import CaptureError, LINK_NAMES
from .analyse import figures

OP_OF_TEST = {'send': 'SEND', 'write': 'WRITE', 'read': 'READ', 'atomic': 'ATOMIC'}


def load_result(path):
    try:
        return rbresults.read(path)
    except rbresults.InputError as e:
        raise CaptureError('--result: %s' % e)


def check_result(res, total):
    """One line per size of the result: messages and bytes, benchmark vs wire."""
    test = res.meta.get('test') or ''
    parts = test.replace('rb_', '').split('_')
    fam = OP_OF_TEST.get(parts[0])
    if fam is None or len(parts) < 2:
        raise CaptureError('--result: test %r is not one of the eight benchmarks' % test)
    # ping-pong latency tests send both ways; -b doubles bandwidth tests
    ways = 2 if (parts[1] == 'lat' and fam in ('SEND', 'WRITE')) or \
        res.meta.get('bidirectional') == 'yes' else 1
    warm = int(float(res.meta.get('warmup_iterations') or 0))
    sizes = total['message_sizes'].get(fam, {})
    rows = []
    for r in res.rows:
        size = int(fam == 'ATOMIC' and 8 or r['size_bytes'])
        bench_msgs = (int(r['iterations']) + warm) * ways
        wire_msgs = sizes.get(str(size), 0)
        rows.append({'size_bytes': size, 'operation': fam, 'bench_messages': bench_msgs,
                     'wire_messages': wire_msgs, 'bench_bytes': bench_msgs * size,
                     'wire_bytes': wire_msgs * size, 'match': bench_msgs == wire_msgs})
    return {'file': res.path, 'test': test, 'status': res.status, 'directions': ways,
            'warmup_iterations': warm, 'rows': rows}


# --- output -------------------------------------------------------------------------

FLOW_COLUMNS = ['src', 'dst', 'dest_qp', 'opcode', 'opcode_name', 'packets', 'bytes',
                'payload_bytes', 'messages', 'incomplete_messages', 'packets_per_message', 'path_mtu_bytes',
                'acks', 'messages_per_ack', 'retransmitted_packets', 'retransmitted_psns'] + \
    ['nak_' + s for s in SYNDROMES] + ['cnp', 'ecn_ce', 'wire_efficiency']


def multicast(addr):
    """A group address (224.0.0.0/4, ff00::/8): multicast UD's sends (-g)."""
    try:
        return ipaddress.ip_address(addr).is_multicast
    except ValueError:
        return False


def report(flows, seen, reader, check, build):
    """The summary; build: (version, commit) of the rdmabench that analyses."""
    meta = {'tool': 'rdmabench', 'version': build[0], 'commit': build[1], 'program': PROG,
            'capture': reader.path, 'format': reader.format,
            'link_types': ','.join(LINK_NAMES.get(l, str(l)) for l in sorted(seen['links'])),
            'frames': seen['frames'], 'roce_packets': seen['roce'],
            'other_frames': seen['not_roce'], 'short_frames': seen['short'],
            'bytes_counted': 'Ethernet frame, destination MAC to ICRC (no preamble, FCS, gap)'}
    out = {'schema_version': 1, 'title': 'RoCE v2 wire summary', 'meta': meta,
           'flows': [], 'total': figures(flows, total=True)}
    for fl in flows:
        fig = figures([fl])
        fig.update({'src': fl.key[0], 'dst': fl.key[1], 'dest_qp': '0x%06x' % fl.key[2],
                    'multicast': multicast(fl.key[1]),
                    'acked_by_qp': '0x%06x' % fl.acked_by.key[2] if fl.acked_by else None})
        out['flows'].append(fig)
    if check:
        out['result_check'] = check
    return out


def csv_cell(v):
    if v is None:
        return ''
    if isinstance(v, float):
        return '%.6f' % v
    v = str(v)
    return '"%s"' % v.replace('"', '""') if any(c in v for c in ',"\n') else v


def csv_rows(fig, src, dst, qp):
    base = {'src': src, 'dst': dst, 'dest_qp': qp, 'opcode': 'all', 'opcode_name': 'all',
            'messages': sum(fig['messages'][f] for f in ('SEND', 'WRITE', 'READ_RESPONSE'))}
    row = dict(fig, **base)
    for s in SYNDROMES:
        row['nak_' + s] = fig['naks'][s]
    yield row
    for op in fig['opcodes']:
        yield {'src': src, 'dst': dst, 'dest_qp': qp, 'opcode': op['opcode'],
               'opcode_name': op['name'], 'packets': op['packets'], 'bytes': op['bytes'],
               'payload_bytes': op['payload_bytes']}


def print_csv(doc, f):
    """The header row and the rows, nothing else, so that any CSV reader
    takes it with its defaults; the metadata, the --result check and the
    status are in --json (and the exit status)."""
    f.write(','.join(FLOW_COLUMNS) + '\n')
    groups = [(fl, fl['src'], fl['dst'], fl['dest_qp']) for fl in doc['flows']]
    groups.append((doc['total'], 'all', 'all', 'all'))
    for fig, src, dst, qp in groups:
        for row in csv_rows(fig, src, dst, qp):
            f.write(','.join(csv_cell(row.get(c)) for c in FLOW_COLUMNS) + '\n')


def fmt(v, spec='%.2f'):
    return '-' if v is None else spec % v


def human_flow(title, fig, f):
    f.write('%s\n' % title)
    f.write('  %-40s %10s %12s %12s\n' % ('opcode', 'packets', 'bytes', 'payload'))
    for op in fig['opcodes']:
        f.write('  %-40s %10d %12d %12d\n' % (op['name'], op['packets'], op['bytes'], op['payload_bytes']))
    f.write('  %-40s %10d %12d %12d\n' % ('all', fig['packets'], fig['bytes'], fig['payload_bytes']))
    msgs = ', '.join('%s %s' % (fam.replace('_', ' '), ' '.join('%sx%s B' % (n, s) for s, n in sizes.items()))
                     for fam, sizes in fig['message_sizes'].items())
    f.write('  messages: %s\n' % (msgs or 'none'))
    mtu = fig['path_mtu_bytes'] or (fig['path_mtu_at_least_bytes'] and
                                    '>= %d (no multi-packet message)' % fig['path_mtu_at_least_bytes'])
    if fig['incomplete_messages']:
        f.write('  incomplete messages (a PSN missing from the capture): %d\n' % fig['incomplete_messages'])
    f.write('  packets/message %s, path MTU %s, ACKs %d, messages/ACK %s\n'
            % (fmt(fig['packets_per_message']), mtu or '-', fig['acks'], fmt(fig['messages_per_ack'])))
    naks = ', '.join('%s %d' % (k, v) for k, v in fig['naks'].items() if v) or 'none'
    f.write('  retransmitted %d packets (%d PSNs), NAKs: %s, CNPs %d, ECN CE %d\n'
            % (fig['retransmitted_packets'], fig['retransmitted_psns'], naks, fig['cnp'], fig['ecn_ce']))
    f.write('  UDP source ports %s, TTL/hop limit %s%s\n'
            % (' '.join('%d' % p for p in fig['udp_source_ports']) or '-',
               ' '.join('%d' % t for t in fig['ttl']) or '-',
               ', IPv6 flow labels %s' % ' '.join('0x%x' % x for x in fig['ipv6_flow_labels'])
               if fig['ipv6_flow_labels'] else ''))
    f.write('  wire efficiency %s (payload / frame bytes), %.6f s\n'
            % (fmt(fig['wire_efficiency'], '%.4f'), fig['duration_s']))


def print_human(doc, status, error, f):
    m = doc['meta']
    f.write('%s: %s (%s, %s): %d RoCE v2 packets of %d frames\n'
            % (PROG, m['capture'], m['format'], m['link_types'] or '-', m['roce_packets'], m['frames']))
    for fl in doc['flows']:
        human_flow('%s -> %s%s, dest QP %s%s' % (fl['src'], fl['dst'],
                   ' (multicast group)' if fl['multicast'] else '', fl['dest_qp'],
                   ', ACKed on QP %s' % fl['acked_by_qp'] if fl['acked_by_qp'] else ''), fl, f)
    human_flow('total', doc['total'], f)
    chk = doc.get('result_check')
    if chk:
        f.write('%s (%s): benchmark vs wire\n' % (chk['file'], chk['test']))
        for c in chk['rows']:
            f.write('  %-6s %8d B: %8d vs %8d messages, %12d vs %12d bytes  %s\n'
                    % (c['operation'], c['size_bytes'], c['bench_messages'], c['wire_messages'],
                       c['bench_bytes'], c['wire_bytes'], 'match' if c['match'] else 'MISMATCH'))
    f.write('Status: %s%s\n' % (status, ' (%s)' % error if error else ''))


def emit(doc, fmt_, status, error):
    f = sys.stdout
    if fmt_ == 'json':
        doc = dict(doc or {'schema_version': 1, 'title': 'RoCE v2 wire summary'})
        doc['status'], doc['error'] = status, error
        json.dump(doc, f, separators=(',', ':'))
        f.write('\n')
    elif doc is None:
        if fmt_ == 'csv':
            f.write(','.join(FLOW_COLUMNS) + '\n')
    elif fmt_ == 'csv':
        print_csv(doc, f)
    else:
        print_human(doc, status, error, f)

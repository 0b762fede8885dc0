#!/usr/bin/env python3
"""results/wire: one table of the captures in runs/, next to the benchmarks'
own figures.  For each runs/NAME.pcap: rb-wire analyse --json --result
runs/NAME.csv (kept as runs/NAME.wire.json), then one Markdown row.
    summarise.py [RB_WIRE]   (default: scripts/tools/rb-wire.in of this tree)
"""
import glob
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
rb_wire = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, 'scripts', 'tools', 'rb-wire.in')
sys.path.insert(0, os.path.join(top, 'scripts'))
sys.dont_write_bytecode = True
import rbresults  # noqa: E402

ORDER = ['send_lat', 'send_bw', 'write_lat', 'write_bw', 'read_lat', 'read_bw', 'atomic_lat', 'atomic_bw']


def key(path):
    name = os.path.basename(path)[:-5]
    bench, _, rest = name.partition('-')
    size, _, extra = rest.partition('-')
    return (extra != '', ORDER.index(bench), int(size), extra)


def figure(res):
    r = res.rows[0]
    if res.kind == 'bw':
        return '%.3g MiB/s' % r['bw_avg_mibps']
    return '%.1f us p50' % r['lat_p50_us']


def row(pcap):
    name = os.path.basename(pcap)[:-5]
    csv = pcap[:-5] + '.csv'
    p = subprocess.run([rb_wire, 'analyse', pcap, '--json', '--result', csv],
                       capture_output=True, text=True)
    with open(pcap[:-5] + '.wire.json', 'w') as f:
        f.write(p.stdout)
    d = json.loads(p.stdout)
    t = d['total']
    chk = d['result_check']['rows'][0]
    ops = ', '.join('%s %d' % (o['name'].replace('RC ', '').replace('RDMA ', ''), o['packets'])
                    for o in t['opcodes'])
    least = t['path_mtu_at_least_bytes']
    mtu = t['path_mtu_bytes'] or ('>=%d' % least if least else '-')
    naks = sum(t['naks'].values())
    return ('| %s | %s | %s | %d/%d %s | %s | %.2f | %s | %s | %d (%d PSNs) | %d | %.3f |'
            % (name, figure(rbresults.read(csv)), ops, chk['wire_messages'], chk['bench_messages'],
               'ok' if chk['match'] else 'MISMATCH', mtu, t['packets_per_message'] or 0,
               t['acks'], '%.2f' % t['messages_per_ack'] if t['messages_per_ack'] else '-',
               t['retransmitted_packets'], t['retransmitted_psns'], naks, t['wire_efficiency']))


print('| run | benchmark says | packets by opcode (both ways) | messages wire/bench | path MTU '
      '| packets/msg | ACKs | msgs/ACK | resent | NAKs | efficiency |')
print('|---|---|---|---|---|---|---|---|---|---|---|')
for pcap in sorted(glob.glob(os.path.join(here, 'runs', '*.pcap')), key=key):
    print(row(pcap))

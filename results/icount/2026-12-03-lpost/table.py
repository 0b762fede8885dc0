#!/usr/bin/env python3
"""The BEFORE/AFTER table of results/icount/2026-12-03-lpost: each case's
instructions per message (corrected = total) and our own code's bucket
(tool), before (results/icount/2026-12-03-house/after: the figures issue
#34 says no case may exceed) and after (this folder's run, branch lpost),
beside perftest's: from this run where it measured perftest, else from
2026-12-03-house's run (perftest 6.06, the same guest image; marked *).  Reads ../2026-12-03-house/after/icount.csv
and after/icount.csv (written by rb-icount); prints Markdown."""
import csv
import os
import sys

CASES = ['write_bw', 'send_bw', 'send_bw_recv', 'read_bw', 'atomic_bw', 'send_lat', 'write_lat',
         'read_lat', 'atomic_lat', 'write_bw_l32', 'send_bw_l32', 'read_bw_l32', 'atomic_bw_l32']


def load(path):
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            out[(r['case'], r['tool'], r['bucket'])] = float(r['instr_per_msg'])
    return out


def cell(d, key):
    return '%.1f' % d[key] if key in d else '-'


def main(top):
    b = load(os.path.join(top, '..', '2026-12-03-house', 'after', 'icount.csv'))
    a = load(os.path.join(top, 'after', 'icount.csv'))
    print('| case | before | after | after - before | perftest | after / perftest | before tool | after tool | perftest tool |')
    print('|---|--:|--:|--:|--:|--:|--:|--:|--:|')
    for c in CASES:
        ours, theirs = (c, 'rdmabench', 'total'), (c, 'perftest', 'total')
        p, mark = (a, '') if theirs in a else (b, '*')
        ratio = '%.3f' % (a[ours] / p[theirs]) if ours in a and theirs in p else '-'
        diff = '%+.1f' % (a[ours] - b[ours]) if ours in a and ours in b else '-'
        print('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            c, cell(b, ours), cell(a, ours), diff, cell(p, theirs) + mark, ratio,
            cell(b, (c, 'rdmabench', 'tool')), cell(a, (c, 'rdmabench', 'tool')),
            cell(p, (c, 'perftest', 'tool')) + mark))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))

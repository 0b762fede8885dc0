#!/usr/bin/env python3
"""The BEFORE/AFTER table of results/icount/2026-12-03-house: each case's
instructions per message (corrected = total; raw beside it) and our own
code's bucket (tool), before (main at 306163e) and after (branch hotloop),
beside perftest's from the after boot.  Reads before/icount.csv and
after/icount.csv (written by rb-icount); prints Markdown."""
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
    b, a = load(os.path.join(top, 'before', 'icount.csv')), load(os.path.join(top, 'after', 'icount.csv'))
    print('| case | before | after | perftest | after / perftest | before tool | after tool | perftest tool |')
    print('|---|--:|--:|--:|--:|--:|--:|--:|')
    for c in CASES:
        ours, theirs = (c, 'rdmabench', 'total'), (c, 'perftest', 'total')
        ratio = '%.2f' % (a[ours] / a[theirs]) if ours in a and theirs in a else '-'
        print('| %s | %s | %s | %s | %s | %s | %s | %s |' % (
            c, cell(b, ours), cell(a, ours), cell(a, theirs), ratio, cell(b, (c, 'rdmabench', 'tool')),
            cell(a, (c, 'rdmabench', 'tool')), cell(a, (c, 'perftest', 'tool'))))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))

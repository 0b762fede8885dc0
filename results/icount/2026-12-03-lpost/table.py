#!/usr/bin/env python3
"""The BEFORE/MAIN/AFTER table of results/icount/2026-12-03-lpost: each case's
instructions per message (corrected = total) and our own code's bucket
(tool), before (results/icount/2026-12-03-house/after: the figures issue
#34 says no case may exceed) main (main/: main's build, measured in the same
boot as after where one boot measured both) and after (after/: branch lpost),
beside perftest's: from this run where it measured perftest, else from
2026-12-03-house's run (perftest 6.06, the same guest image; marked *).  Reads ../2026-12-03-house/after/icount.csv
and after/icount.csv (written by rb-icount); prints Markdown."""
import csv
import os
import sys

CASES = ['write_bw', 'send_bw', 'send_bw_recv', 'read_bw', 'atomic_bw', 'send_lat', 'write_lat',
         'read_lat', 'atomic_lat', 'write_bw_l32', 'send_bw_l32', 'read_bw_l32', 'atomic_bw_l32']


def load(path):
    """{(case, tool, bucket): {boot: instructions per message}}"""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            out.setdefault((r['case'], r['tool'], r['bucket']), {})[int(r['boot'])] = float(r['instr_per_msg'])
    return out


# the boots that ran main's and lpost's programs side by side, one case
# after the other (/tmp/lpost-icount.sh in README.md); main/'s boot 1 and
# after/'s boots 1..4 were boots of their own
SHARED_BOOTS = {5, 6}


def pick(a, m, key):
    """(after, main, boot, same): the latest shared boot that measured both,
    else each one's latest boot (same False)."""
    both = sorted(set(a.get(key, {})) & set(m.get(key, {})) & SHARED_BOOTS)
    if both:
        return a[key][both[-1]], m[key][both[-1]], both[-1], True
    last = lambda d: d[key][max(d[key])] if key in d else None  # noqa: E731
    return last(a), last(m), max(a[key]) if key in a else None, False


def fmt(x, f='%.1f'):
    return '-' if x is None else f % x


def main(top):
    b = {k: v[max(v)] for k, v in load(os.path.join(top, '..', '2026-12-03-house', 'after', 'icount.csv')).items()}
    a = load(os.path.join(top, 'after', 'icount.csv'))
    m = load(os.path.join(top, 'main', 'icount.csv'))
    print('| case | before | main | after | after - main | after - before | perftest | after / perftest |'
          ' boot | main tool | after tool | perftest tool |')
    print('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|')
    for c in CASES:
        ours, theirs = (c, 'rdmabench', 'total'), (c, 'perftest', 'total')
        tool = (c, 'rdmabench', 'tool')
        at, mt, boot, same = pick(a, m, ours)
        atool, mtool = pick(a, m, tool)[:2]
        p = b.get(theirs)
        print('| %s | %s | %s%s | %s | %s | %s | %s* | %s | %s | %s | %s | %s* |' % (
            c, fmt(b.get(ours)), fmt(mt), '' if same or mt is None else ' (other boot)', fmt(at),
            fmt(at - mt if same and at is not None else None, '%+.1f'),
            fmt(at - b[ours] if at is not None and ours in b else None, '%+.1f'), fmt(p),
            fmt(at / p if at is not None and p else None, '%.3f'), fmt(boot, '%d'),
            fmt(mtool), fmt(atool), fmt(b.get((c, 'perftest', 'tool')))))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))

#!/usr/bin/env python3
"""write_bw 2 B (-t 128 -Q 100 -I 0 -n 5000): ours (the default build) against
perftest in five boots of the test bed, each boot's paired runs, then pooled.
Message rates in thousands of messages/s; a run above 25 is in the fast mode."""
import csv, os, random, statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))
FAST = 25.0
boots = {}


def add(boot, tool, v):
    boots.setdefault(boot, {}).setdefault(tool, []).append(v)


rows = [r for r in csv.reader(open(os.path.join(HERE, '..', 'runs-bw20w.csv')))
        if r and not r[0].startswith('#')]
for r in rows[1:]:
    d = dict(zip(rows[0], r))
    if d['size_bytes'] == '2':
        add('runs-bw20w.csv', 'ours' if d['tool'] == 'rdmabench' else 'perftest',
            float(d['msg_rate_mpps']) * 1000)
for name in ('placement-1.out', 'placement-2.out'):
    for line in open(os.path.join(HERE, name)):
        f = line.split()
        if f[1] in ('default', 'ib'):
            add(name, 'ours' if f[1] == 'default' else 'perftest', float(f[2]))
for line in open(os.path.join(HERE, 'probe.out')):
    if line.startswith('R '):
        f = line.split()
        add('probe.out', 'ours', float(f[4]))
        add('probe.out', 'perftest', float(f[8]))
for name in ('polling-1.out', 'polling-3.out'):      # polling-2.out has no write_bw 2 B
    for line in open(os.path.join(HERE, name)):
        f = line.split()
        if f[1:3] == ['write_bw', '2'] and f[3] in ('old', 'ib') and len(f) > 4:
            add(name, 'ours' if f[3] == 'old' else 'perftest', float(f[4]))

def ci(a, b):
    random.seed(2)
    rs = sorted(st.median(random.choices(a, k=len(a))) / st.median(random.choices(b, k=len(b)))
                for _ in range(3000))
    return rs[75], rs[2925]


A, B = [], []
print('%-28s %5s %7s  %-11s %s' % ('boot', 'pairs', 'ratio', '95% CI', 'fast runs ours/perftest'))
for boot, d in boots.items():
    a, b = d['ours'], d['perftest']
    A += a
    B += b
    lo, hi = ci(a, b)
    print('%-28s %5d %7.3f  %.2f..%.2f   %d/%d' % (boot, len(a), st.median(a) / st.median(b), lo, hi,
                                                 sum(x > FAST for x in a), sum(x > FAST for x in b)))
lo, hi = ci(A, B)
print('%-28s %5d %7.3f  %.2f..%.2f   %d/%d' % ('pooled', len(A), st.median(A) / st.median(B), lo, hi,
                                             sum(x > FAST for x in A), sum(x > FAST for x in B)))
sa, sb = [x for x in A if x <= FAST], [x for x in B if x <= FAST]
lo, hi = ci(sa, sb)
print('%-28s %5s %7.3f  %.2f..%.2f   (%d and %d runs)' % ('pooled, slow mode only', '', st.median(sa) / st.median(sb),
                                                         lo, hi, len(sa), len(sb)))

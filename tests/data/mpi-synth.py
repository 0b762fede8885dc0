#!/usr/bin/env python3
"""mpi-synth.py TEMPLATE.csv OUT.csv N [SWITCH_SIZE]: an rb_mpi matrix of N
ranks for tests/scripts.sh, made from TEMPLATE (its columns and sidecar):
every ordered pair at 1000 MiB/s, but link 7 -> 200 at 100 and 3 -> 5 at
400; with SWITCH_SIZE, ranks in blocks of that many on switches sw0, sw1...,
and the links leaving sw1 at 500 MiB/s.  Writes OUT and OUT's sidecar."""
import csv, json, os, sys

tpl, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
per = int(sys.argv[4]) if len(sys.argv) > 4 else 0
with open(tpl) as f:
    head = next(csv.reader(f))
if not per:
    head = [c for c in head if c not in ('src_switch', 'dst_switch')]
first = dict(zip(head, next(csv.reader([l for l in open(tpl) if not l.startswith('#')][1:]))))
with open(out, 'w', newline='') as f:
    w = csv.DictWriter(f, head, extrasaction='ignore')
    w.writeheader()
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            bw = {(7, 200): 100.0, (3, 5): 400.0}.get((s, d), 1000.0)
            if per and s // per == 1 and d // per != 1:
                bw = min(bw, 500.0)
            r = dict(first, src_rank=s, dst_rank=d, src_host='h%d' % s, dst_host='h%d' % d,
                     bw_avg_mibps=bw, bw_peak_mibps=bw, link_status='ok', link_error='', round=0)
            if per:
                r.update(src_switch='sw%d' % (s // per), dst_switch='sw%d' % (d // per))
            w.writerow(r)
side = json.load(open(os.path.splitext(tpl)[0] + '.meta.json'))
side['meta'].update(ranks=str(n), topology='synthetic' if per else 'none', note='made by tests/data/mpi-synth.py')
json.dump(side, open(os.path.splitext(out)[0] + '.meta.json', 'w'))

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
# csv.writer on a list per row (a DictWriter and a dict per row took most of
# the ~0.6 s of CPU a 256-rank file cost): the same bytes
col = {c: i for i, c in enumerate(head)}
with open(out, 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(head)
    row = [first.get(c, '') for c in head]
    for c, v in (('link_status', 'ok'), ('link_error', ''), ('round', 0)):
        if c in col:
            row[col[c]] = v
    i_sr, i_dr, i_sh, i_dh, i_avg, i_peak = (col[c] for c in (
        'src_rank', 'dst_rank', 'src_host', 'dst_host', 'bw_avg_mibps', 'bw_peak_mibps'))
    i_ss, i_ds = (col['src_switch'], col['dst_switch']) if per else (None, None)
    slow = {(7, 200): 100.0, (3, 5): 400.0}
    rows = []
    for s in range(n):
        row[i_sr], row[i_sh] = s, 'h%d' % s
        if per:
            row[i_ss] = 'sw%d' % (s // per)
        for d in range(n):
            if s == d:
                continue
            bw = slow.get((s, d), 1000.0)
            if per and s // per == 1 and d // per != 1:
                bw = min(bw, 500.0)
            row[i_dr], row[i_dh], row[i_avg], row[i_peak] = d, 'h%d' % d, bw, bw
            if per:
                row[i_ds] = 'sw%d' % (d // per)
            rows.append(tuple(row))
    w.writerows(rows)
side = json.load(open(os.path.splitext(tpl)[0] + '.meta.json'))
side['meta'].update(ranks=str(n), topology='synthetic' if per else 'none', note='made by tests/data/mpi-synth.py')
json.dump(side, open(os.path.splitext(out)[0] + '.meta.json', 'w'))

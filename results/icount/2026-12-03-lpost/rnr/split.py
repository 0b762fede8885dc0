#!/usr/bin/env python3
"""The receiving loop's instructions per message split into what each
receive costs and what each poll costs, from two callgrind files of
rb_send_bw's server (N1 and N2 messages; differenced as rb-icount does).

    split.py LABEL/RECEIVER N1:FILE1 N2:FILE2 [LABEL/RECEIVER N1:FILE1 N2:FILE2 ...]

Per message: polls (calls of recv_reap), empty polls (its calls of
watch_idle), then the instructions of
  receive  recv_complete, inclusive: the completion's check and count, the
           next receive's post (recv_post, the provider's post_recv);
  poll     everything else under recv_reap and loop_bw_recv's own: the
           provider's poll_cq, recv_reap's own, watch_idle, the loop;
and total (the whole program, rb-icount's corrected total).  Then the
least-squares fit of every run's total as R + e x (empty polls per message)
+ c x (non-empty polls per message), R one figure per receiving program
(RECEIVER: the label's part after '/'), each run's fitted total, and its
total less the empty polls (e x empty).  Prints Markdown."""

import lzma
import os
import sys
import tempfile

sys.path.insert(1, os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', '..', '..', '..',
                                'scripts', 'dev'))
sys.dont_write_bytecode = True
from icount.callgrind import bucket_rows, parse_callgrind  # noqa: E402


def load(path):
    if path.endswith('.xz'):
        with tempfile.NamedTemporaryFile(delete=False) as t, lzma.open(path) as f:
            t.write(f.read())
        try:
            return parse_callgrind(t.name)
        finally:
            os.remove(t.name)
    return parse_callgrind(path)


def edge(p, src, dst):
    """(calls, inclusive Ir) of the edges SRC -> DST (names; DST may be a
    predicate)."""
    n = ir = 0
    for (s, d), k in p.call_n.items():
        if s[1] == src and (dst(d[1]) if callable(dst) else d[1] == dst):
            n += k
            ir += p.call_ir[(s, d)]
    return n, ir


def self_ir(p, fn):
    return sum(v for k, v in p.self_ir.items() if k[1] == fn)


def figures(p):
    polls, reap = edge(p, 'loop_bw_recv', 'recv_reap')
    _, recv = edge(p, 'recv_reap', 'recv_complete')
    idle_n, idle = edge(p, 'recv_reap', 'watch_idle')
    prov_n, prov = edge(p, 'recv_reap', lambda f: f.startswith('0x'))
    loop = self_ir(p, 'loop_bw_recv')
    return {'polls': polls, 'empty': idle_n, 'recv': recv, 'idle': idle, 'prov': prov,
            'reap_self': reap - recv - idle - prov, 'loop': loop}


def per_message(a, b):
    """The figures of two runs (N, profile), per message."""
    (n1, p1), (n2, p2) = sorted([a, b], key=lambda x: x[0])
    f1, f2 = figures(p1), figures(p2)
    d = float(n2 - n1)
    per = {k: (f2[k] - f1[k]) / d for k in f1}
    per['total'] = [x[1] for x in bucket_rows(p1, p2, n1, n2, 'rb_send_bw') if x[0] == 'total'][0]
    per['nonempty'] = per['polls'] - per['empty']
    per['poll'] = per['prov'] + per['reap_self'] + per['loop'] + per['idle']
    return per


def msgs_per(nonempty):
    return 1.0 / nonempty if nonempty > 0 else 0.0


def solve(rows, ys):
    """Least squares by the normal equations (a few unknowns)."""
    n = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * y for r, y in zip(rows, ys))]
         for i in range(n)]
    for i in range(n):
        piv = m[i][i]
        m[i] = [x / piv for x in m[i]]
        for k in range(n):
            if k != i:
                f = m[k][i]
                m[k] = [x - f * y for x, y in zip(m[k], m[i])]
    return [m[i][n] for i in range(n)]


def fit(runs):
    """total = receive[binary] + e * empty + c * non-empty polls per message,
    one receive figure per receiving program: the least-squares fit."""
    bins = sorted({b for _, b, _ in runs})
    rows = [[1.0 if b == x else 0.0 for x in bins] + [p['empty'], p['nonempty']] for _, b, p in runs]
    c = solve(rows, [p['total'] for _, _, p in runs])
    return dict(zip(bins, c)), c[-2], c[-1]


def main(argv):
    if len(argv) % 3 or not argv:
        print(__doc__, file=sys.stderr)
        return 2
    runs = []
    for i in range(0, len(argv), 3):
        got = []
        for x in argv[i + 1:i + 3]:
            n, _, path = x.partition(':')
            got.append((int(n), load(path)))
        label, _, binary = argv[i].rpartition('/')
        runs.append((label, binary, per_message(*got)))
    base, e, c = fit(runs)
    print('| run | receiver | polls/msg | empty/msg | msgs per non-empty poll | receive | poll | '
          'total | fit | total - empty x %.1f |' % e)
    print('|---|---|--:|--:|--:|--:|--:|--:|--:|--:|')
    for label, b, p in runs:
        print('| %s | %s | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |' % (
            label, b, p['polls'], p['empty'], msgs_per(p['nonempty']), p['recv'], p['poll'],
            p['total'], base[b] + e * p['empty'] + c * p['nonempty'], p['total'] - e * p['empty']))
    print()
    print('Fit: total = R + %.1f x empty polls + %.1f x non-empty polls per message, R = %s'
          % (e, c, ', '.join('%.1f (%s)' % (v, k) for k, v in sorted(base.items()))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

"""rb-vs-perftest --line: any perftest command line through both tools, side
by side: perftest as given, ours under our name (ib_write_bw ->
rb_write_bw), interleaved (theirs, ours, theirs, ...), the same device,
GID index, port and host substituted in both (vsperftest/line.py), and
the figures printed per size with their ratio, ours / theirs."""

import os
import re
import shlex
import tempfile
from types import SimpleNamespace

import rbresults as rb
import vsperftest as vp
from vsperftest import log
from vsperftest.figures import perftest_rows, read_ours_rows
from vsperftest.line import Line, LineError, rewrite
from vsperftest.pairs import Pair, Ports, rb_ip


def kind_of(line):
    """(kind, unit, ours' column) of LINE's main figure: the average
    bandwidth in perftest's unit (MB/sec, which is MiB/s; Gb/s with
    --report_gbits), or the typical (median) latency in us, the average
    in duration mode, where perftest prints no median."""
    if line.bench.endswith('_bw'):
        gbits = any(it.key == 'report_gbits' for it in line.items)
        return ('bw', 'Gb/s', 'bw_avg_gbps') if gbits else ('bw', 'MiB/s', 'bw_avg_mibps')
    if line.value('duration') is not None:
        return 'lat', 'us (avg)', 'lat_avg_us'
    return 'lat', 'us (median)', 'lat_p50_us'


def theirs(text, kind):
    """{size: figure} from perftest's stdout: its table, or the one number
    that --output=... prints (size 0: the line's only size)."""
    rows = perftest_rows(text)
    if not rows:
        m = re.fullmatch(r'\s*(-?[0-9.]+)\s*', text)
        return {0: float(m.group(1))} if m else {}
    if kind == 'bw':
        return {int(r[0]): r[3] for r in rows if len(r) >= 4}
    # latency: t_typical (5th column); duration mode: #bytes #iters t_avg ...
    return {int(r[0]): (r[4] if len(r) >= 9 else r[2]) for r in rows if len(r) >= 3}


def ours(path, column):
    out = {}
    for r in read_ours_rows(path):
        v = rb.number(r.get(column, ''))
        if v is not None and r.get('size_bytes', '').isdigit():
            out[int(r['size_bytes'])] = v
    return out


def sides(text, tool, port, scratch, shorten):
    """(server argv, client argv) of TOOL for the line TEXT."""
    o = SimpleNamespace(tool=tool, bin=vp.BIN, dev=os.environ.get('RB_DEV', 'rxe0'),
                        gid=os.environ.get('RB_GID_INDEX', '1'), port=port, ip=rb_ip(),
                        dir=scratch, duration=1.0, budget=8 << 20, keep_length=not shorten)
    words = shlex.split(text)
    server = rewrite(Line(words), SimpleNamespace(side='server', **vars(o)))
    client = rewrite(Line(words), SimpleNamespace(side='client', **vars(o)))
    return server, client


def run_tool(text, tool, ports, scratch, shorten, kind):
    csv_path = os.path.join(scratch, 'ours.csv')
    if os.path.exists(csv_path):
        os.unlink(csv_path)
    port = ports.next()
    server, client = sides(text, tool, port, scratch, shorten)
    if tool == 'rdmabench':
        client = client + ['--csv=' + csv_path]
    pair = Pair(server, client, port).run()
    if pair.rc != 0:
        log('%s: exit %s: %s' % (tool, pair.rc, (pair.err or pair.out).strip()[-400:]))
        return {}
    return ours(csv_path, kind[2]) if tool == 'rdmabench' else theirs(pair.out, kind[0])


def show(text, kind, runs):
    """The figures, per size and repetition, then each size's medians."""
    print('line: %s' % text)
    print('%-10s %4s %16s %16s %8s' % ('size[B]', 'rep', 'perftest', 'rdmabench', 'ratio'))
    sizes = sorted({s for t, o in runs for s in list(t) + list(o)})
    for s in sizes:
        for rep, (t, o) in enumerate(runs, 1):
            print('%-10s %4d %16s %16s %8s' % (s or '-', rep, fmt(t.get(s)), fmt(o.get(s)),
                                                ratio(o.get(s), t.get(s))))
    print('figure: %s %s; ratio: rdmabench / perftest' % (kind[0], kind[1]))
    for s in sizes:
        t = rb.median([r[0][s] for r in runs if s in r[0]]) if any(s in r[0] for r in runs) else None
        o = rb.median([r[1][s] for r in runs if s in r[1]]) if any(s in r[1] for r in runs) else None
        print('median %-10s %16s %16s %8s' % (s or '-', fmt(t), fmt(o), ratio(o, t)))


def fmt(v):
    return '-' if v is None else '%.6g' % v


def ratio(a, b):
    return '-' if a is None or not b else '%.3f' % (a / b)


def run_line(opts):
    """Each --line, --reps times each tool, perftest first."""
    failed, ports = 0, Ports()
    for text in opts.line:
        try:
            line = Line(shlex.split(text))
        except (LineError, ValueError) as e:
            log('--line %r: %s' % (text, e))
            return 2
        kind, runs = kind_of(line), []
        scratch = tempfile.mkdtemp(prefix='rb-vs-perftest.')
        for rep in range(opts.reps):
            t = run_tool(text, 'perftest', ports, scratch, opts.shorten, kind)
            o = run_tool(text, 'rdmabench', ports, scratch, opts.shorten, kind)
            if 0 in t and len(o) == 1:     # --output=...: one number, the line's size
                t = {next(iter(o)): t[0]}
            failed += not t or not o
            runs.append((t, o))
        show(text, kind, runs)
    return 1 if failed else 0

"""rb-plot: the charts: bandwidth and message rate, latency, latency under
load, histograms and CDFs, figures over time (--interval)."""

import copy
import re

import rbresults as rb

from . import BINS_PER_DECADE, BW_UNITS
from .gnuplot import gp_str, label_runs, log_y, reps_note
from .items import order, what
from .tables import cdf_rows, histogram_rows, percentile_rows, series, spread_rows


def plot_bandwidth(job, results, place):
    column, y_label = BW_UNITS[job.args.bw_unit]
    data = series(results)
    note = reps_note(data)
    title = what(results, 'RDMA bandwidth') + note + '\n' + place
    tables = [(l, spread_rows(d, column)) for l, d in label_runs(data)]
    job.chart('bw', 'bw.gp', title, tables,
              {'y_label': gp_str(y_label), 'log_y': log_y(job, tables)})
    name = what(results, 'RDMA bandwidth')
    name = name.replace('bandwidth', 'message rate') if 'bandwidth' in name else name + ': message rate'
    title = name + note + '\n' + place
    job.chart('msgrate', 'msgrate.gp', title,
              [(l, spread_rows(d, 'msg_rate_mpps')) for l, d in label_runs(data)])


def plot_latency(job, results, place):
    data = series(results)
    note = reps_note(data, bars=False)
    title = what(results, 'RDMA latency') + ': percentiles' + note + '\n' + place
    job.chart('lat', 'lat.gp', title, [(l, percentile_rows(d)) for l, d in label_runs(data)])


LOAD_PCTS = [('p50', 'lat_p50_us'), ('p90', 'lat_p90_us'), ('p99', 'lat_p99_us'),
             ('p99.9', 'lat_p99_9_us'), ('p99.99', 'lat_p99_99_us'), ('max', 'lat_max_us')]


def load_phase(row):
    """'idle', 'loaded' or None: rb_mpi's role, or --load-compare's phase."""
    phase = row.get('role') if row.get('role') in ('idle', 'loaded') else row.get('phase')
    return phase if phase in ('idle', 'loaded') else None


def load_name(row):
    """rb_mpi's load pattern, or --load's bench and size."""
    if row.get('pattern'):
        return row['pattern']
    if row.get('load'):
        return '%s of %s' % (row['load'], rb.fmt_size(int(row['load_size']), ' '))
    return 'load'


def is_loaded(result):
    return any(load_phase(row) for row in result.rows)


def load_series(results):
    """(legend, {percentile: median latency}) for idle and each load (and
    each size, with several), idle first."""
    groups = {}
    for r in order(results):
        for row in r.rows:
            phase = load_phase(row)
            if not phase:
                continue
            load = 'idle' if phase == 'idle' else 'under %s' % load_name(row)
            key = (r.label, int(row['size_bytes']), phase != 'idle', load)
            groups.setdefault(key, []).append(row)
    sizes = {k[1] for k in groups}
    out = []
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[2])):
        label, size, _, load = key
        meds = {p: rb.median([x[c] for x in groups[key] if isinstance(x.get(c), float)])
                for p, c in LOAD_PCTS if any(isinstance(x.get(c), float) for x in groups[key])}
        name = ' '.join(x for x in (label, load, rb.fmt_size(size, ' ') if len(sizes) > 1 else '') if x)
        out.append((name, meds, (label, size), load == 'idle'))
    return out


def plot_load(job, results, place):
    """The pair's percentiles idle and under each load; p99 ratio in the legend."""
    rows = load_series(results)
    pcts = [p for p, _ in LOAD_PCTS if any(p in m for _, m, _, _ in rows)]
    idle = {k: m for _, m, k, is_idle in rows if is_idle}
    tables = []
    for name, meds, k, is_idle in rows:
        base = idle.get(k, {}).get('p99')
        if base and meds.get('p99') and not is_idle:
            name += ' (p99 x%.2f)' % (meds['p99'] / base)
        tables.append((name, [(i, meds.get(p)) for i, p in enumerate(pcts)]))
    tics = '(%s)' % ', '.join('"%s" %d' % (p, i) for i, p in enumerate(pcts))
    title = what(results, 'RDMA latency') + ': idle and under load\n' + place
    job.chart('load', 'load.gp', title, tables, {'pct_tics': gp_str(tics)})


def pool(hists):
    """One histogram per legend: the buckets of its runs added up
    (repetitions of one run pooled), with the number of runs."""
    out = {}
    for h in order(hists):
        counts, runs = out.setdefault(h.label, ({}, []))
        runs.append(h)
        for lower, upper, count, _ in h.buckets:
            counts[(lower, upper)] = counts.get((lower, upper), 0) + count
    pooled = []
    for label, (counts, runs) in out.items():
        total, seen, buckets = sum(counts.values()), 0, []
        for (lower, upper), count in sorted(counts.items()):
            seen += count
            buckets.append((lower, upper, count, seen / total))
        h = copy.copy(runs[0])
        h.buckets = buckets
        pooled.append((label, len(runs), h))
    return pooled


def plot_histograms(job, hists, place):
    size = {h.size for h in hists}
    at = ' at %s' % rb.fmt_size(size.pop()) if len(size) == 1 and None not in size else ''
    name = what(hists, '')
    pooled = pool(hists)
    runs = {n for _, n, _ in pooled}
    same = len(runs) == 1
    note = ' (%d runs pooled)' % max(runs) if same and max(runs) > 1 else ''
    labels = [l if same else '%s (%s)' % (l, '1 run' if n == 1 else '%d runs pooled' % n)
              for l, n, _ in pooled]
    title = (name + ': distribution' if name else 'Latency distribution') + at + note + '\n' + place
    job.chart('hist', 'hist.gp', title,
              [(l, histogram_rows(h)) for l, (_, _, h) in zip(labels, pooled)],
              {'bins_per_decade': BINS_PER_DECADE})
    title = (name + ': CDF' if name else 'Latency CDF') + at + note + '\n' + place
    job.chart('cdf', 'cdf.gp', title, [(l, cdf_rows(h)) for l, (_, _, h) in zip(labels, pooled)])


def interval_rows(r, column, floor):
    """t_mid value below-floor-value (NaN when not below) of each interval,
    the intervals of every size one after the other."""
    lines = []
    for x in r.intervals:
        t0, t1, v = x.get('t_start_s'), x.get('t_end_s'), x.get(column)
        if isinstance(t0, (int, float)) and isinstance(t1, (int, float)) and v is not None:
            low = floor is not None and r.kind == 'bw' and x.get('bw_avg_mibps', 0) * 2**20 < floor
            lines.append(((t0 + t1) / 2, v, v if low else None))
    return lines


def min_bw_floor(r):
    """--min-bw from the command line in the metadata, in bytes/s (or None)."""
    m = re.search(r'--min-bw[= ](\S+)', str(r.meta.get('command_line', '')))
    units = {'b/s': 1 / 8, 'Kb/s': 1e3 / 8, 'Mb/s': 1e6 / 8, 'Gb/s': 1e9 / 8, 'Tb/s': 1e12 / 8,
             'B/s': 1, 'KB/s': 1e3, 'MB/s': 1e6, 'GB/s': 1e9, 'KiB/s': 2**10, 'MiB/s': 2**20,
             'GiB/s': 2**30}
    u = m and re.fullmatch(r'([0-9.]+)(.*)', m.group(1))
    return float(u.group(1)) * units[u.group(2)] if u and u.group(2) in units else None


def plot_intervals(job, results, place):
    """--interval files: bandwidth (or p50/p99 latency) over time, one line
    per file, the intervals under --min-bw marked."""
    bw = [r for r in results if r.kind == 'bw']
    lat = [r for r in results if r.kind == 'lat']
    column, y_label = BW_UNITS[job.args.bw_unit]
    if bw:
        title = what(bw, 'RDMA bandwidth') + ' over time\n' + place
        job.chart('bw-time', 'series.gp', title,
                  [(r.label, interval_rows(r, column, min_bw_floor(r))) for r in bw],
                  {'y_label': gp_str(y_label), 'log_y': 0})
    for pct in ('lat_p50_us', 'lat_p99_us'):
        if lat:
            title = what(lat, 'RDMA latency') + ' over time: ' + pct[4:-3] + '\n' + place
            job.chart(pct[4:-3] + '-time', 'series.gp', title,
                      [(r.label, interval_rows(r, pct, None)) for r in lat],
                      {'y_label': gp_str('Latency ' + pct[4:-3] + ' [µs]'), 'log_y': 1})

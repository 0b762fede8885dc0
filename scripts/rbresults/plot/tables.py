"""rb-plot: series (the median of the repetitions at each size, their
spread) and the data tables gnuplot reads."""

import math

import rbresults as rb

from . import BINS_PER_DECADE, LAT_COLUMNS
from .items import order


def series(results):
    """label -> {size: [row, ...]}, sorted by order()."""
    out = {}
    for r in order(results):
        sizes = out.setdefault(r.label, {})
        for row in r.rows:
            sizes.setdefault(int(row['size_bytes']), []).append(row)
    return out


def write_table(path, lines):
    with open(path, 'w') as f:
        f.write(''.join(' '.join(fmt_num(x) for x in line) + '\n' for line in lines))


def fmt_num(x):
    return 'NaN' if x is None else repr(float(x))


def spread_rows(data, column):
    """size median min max of column, over the rows at each size."""
    lines = []
    for size in sorted(data):
        vals = [r[column] for r in data[size] if isinstance(r.get(column), float)]
        if vals:
            lines.append((size, rb.median(vals), min(vals), max(vals)))
    return lines


def percentile_rows(data):
    lines = []
    for size in sorted(data):
        meds = [rb.median([r[c] for r in data[size] if isinstance(r.get(c), float)])
                for c in LAT_COLUMNS]
        lines.append((size, *meds))
    return lines


def histogram_rows(h):
    """Regroup the buckets into equal bins on a log axis: low high percent."""
    total = sum(b[2] for b in h.buckets)
    bins = {}
    for lower, upper, count, _ in h.buckets:
        mid = math.sqrt(max(lower, upper / 2) * upper) if upper > 0 else 1
        k = math.floor(math.log10(max(mid, 1)) * BINS_PER_DECADE)
        bins[k] = bins.get(k, 0) + count
    if not bins:
        return []
    edge = lambda k: 10 ** (k / BINS_PER_DECADE) / 1000  # ns -> us
    ks = range(min(bins), max(bins) + 1)
    lines = [(edge(k), edge(k + 1), 100.0 * bins.get(k, 0) / total) for k in ks]
    return lines + [(edge(max(bins) + 1), edge(max(bins) + 2), 0.0)]


def cdf_rows(h):
    first = h.buckets[0] if h.buckets else None
    lines = [(max(first[0], first[1] / 2) / 1000, 0.0)] if first else []
    return lines + [(b[1] / 1000, b[3]) for b in h.buckets]


def size_tics(tables):
    """Tic marks at the sizes measured (every other one when crowded)."""
    sizes = sorted({int(line[0]) for _, lines in tables for line in lines})
    step = 1 + len(sizes) // 12
    return '(%s)' % ', '.join('"%s" %d' % (rb.fmt_size(s, ' '), s) for s in sizes[::step])

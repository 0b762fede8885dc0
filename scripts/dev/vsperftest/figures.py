"""rb-vs-perftest: the figures of one run, ours from its CSV (rbresults),
perftest's from the table it prints."""

import math
import re

import rbresults as rb
from vsperftest import METRICS


def read_ours_rows(path):
    """The rows of one of our CSV files ([] when it is missing)."""
    try:
        return rb.read_rows(path)
    except OSError:
        return []


def read_ours(path, size):
    """The row of SIZE from one of our CSV files ({} when missing)."""
    return next((r for r in read_ours_rows(path) if r.get('size_bytes') == str(size)), {})


def perftest_rows(text):
    """The result rows of perftest's table, as lists of floats.  perftest
    prints warnings and banners on stdout too, so a row is a line right
    after a '#bytes' header (or after another row) made only of numbers."""
    rows, in_table = [], False
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == '#bytes':
            in_table = True
            continue
        if in_table and f and all(re.fullmatch(r'-?[0-9.]+|inf|nan|-nan', x) for x in f):
            rows.append([float(x) for x in f])
            continue
        in_table = in_table and not f
    return rows


def digits_of(value, decimals):
    """Significant digits perftest kept for a figure printed with decimals."""
    return math.log10(value) + decimals if value > 0 else -math.inf


def read_theirs(text, kind, size):
    """{metric: value} from perftest's stdout; {} when there is no row.

    perftest prints BW with 2 decimals and MsgRate with 6: at 2 B under
    emulation the BW is 0.01 MiB/s, at 1 MiB the rate 0.000015 Mpps.  Both
    come from the same iterations and cycles (BW = MsgRate * size), so each
    is derived from whichever column kept more digits.
    """
    row = next((r for r in perftest_rows(text) if int(r[0]) == size), None)
    if row is None:
        return {}
    if kind == 'lat':
        # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
        return {'lat_p50_us': row[4], 'lat_p99_us': row[7]} if len(row) >= 9 else {}
    if len(row) < 5:
        return {}
    bw, rate = row[3], row[4]
    if digits_of(bw, 2) >= digits_of(rate, 6):
        rate = bw * rb.MIB / size / 1e6
    else:
        bw = rate * 1e6 * size / rb.MIB
    return {'bw_avg_mibps': bw, 'msg_rate_mpps': rate}


def usable(fig, kind):
    """A result with every figure finite and above zero.  perftest's clock
    fit fails under emulation now and then and it prints 0.00 (or inf)."""
    vals = [fig.get(m) for m in METRICS[kind]]
    return all(v is not None and math.isfinite(v) and v > 0 for v in vals)

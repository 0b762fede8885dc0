"""rbresults.units: sizes and figures as the binaries print them."""

import statistics

MIB = 1048576.0


def median(xs):
    return statistics.median(xs) if xs else None


def fmt_size(n, sep=''):
    """65536 -> '64KiB' (the units the binaries print)."""
    n = int(n)
    for unit in ('GiB', 'MiB', 'KiB'):
        scale = {'GiB': 1 << 30, 'MiB': 1 << 20, 'KiB': 1 << 10}[unit]
        if n >= scale and n % scale == 0:
            return '%d%s%s' % (n // scale, sep, unit)
    return '%d%sB' % (n, sep)

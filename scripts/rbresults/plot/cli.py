"""rb-plot's options, exit statuses, and what is plotted from what."""

import argparse
import os
import sys
import tempfile

import rbresults as rb

from . import BW_UNITS, LOG_Y_RANGE
from .charts import is_loaded, plot_bandwidth, plot_histograms, plot_intervals, plot_latency, plot_load
from .gnuplot import Job
from .items import load, set_labels, where


def parse_args(argv, version):
    p = argparse.ArgumentParser(prog='rb-plot', description='Charts from rdmabench results.',
                                epilog='Exit status: 0 done, 1 nothing to plot or gnuplot failed, '
                                '2 usage error or a file that is not ours.')
    p.add_argument('files', nargs='+', metavar='FILE', help='result, JSON or histogram file, or folder')
    p.add_argument('--version', action='version', version='rb-plot (rdmabench) %s (commit %s)' % version)
    p.add_argument('-o', '--output', default='.', metavar='DIR', help='folder for the charts')
    p.add_argument('-n', '--name', default='', help='prefix of the chart file names')
    p.add_argument('-f', '--format', default='png,svg', help='png, svg or both (default)')
    p.add_argument('-l', '--label', action='append', default=[],
                   help='legend of the Nth FILE|FOLDER, on every chart (repeat, in order)')
    p.add_argument('-w', '--where', help='where it was measured (default: from the metadata)')
    p.add_argument('--bw-unit', choices=sorted(BW_UNITS), default='gbps', metavar='UNIT',
                   help='gbps (default) or mibps')
    p.add_argument('-y', '--y-scale', choices=['auto', 'linear', 'log'], default='auto',
                   metavar='SCALE', help='bandwidth y axis: linear, log, or auto (default: log '
                   'when the largest value is %dx the least)' % LOG_Y_RANGE)
    a = p.parse_args(argv)
    a.format = [f for f in a.format.split(',') if f]
    if not a.format or set(a.format) - {'png', 'svg'}:
        p.error('--format: png, svg or png,svg')
    return a


def main(argv, data, version, commit):
    """rb-plot ARGV; data: the folder of the gnuplot templates; version and
    commit: the rdmabench it belongs to."""
    args = parse_args(argv, (version, commit))
    args.data = data
    try:
        items = load(args.files)
    except rb.InputError as e:
        print('rb-plot: %s' % e, file=sys.stderr)
        return 2
    if len(args.label) > len(args.files):
        print('rb-plot: %d labels (-l) for %d files or folders' % (len(args.label), len(args.files)),
              file=sys.stderr)
        return 2
    set_labels(items, args.label, args.files)
    for i in items:
        if isinstance(i, rb.Result) and i.status not in (None, 'complete'):
            print('rb-plot: %s: status %s, plotting the rows it has' % (i.path, i.status),
                  file=sys.stderr)
    results = [i for i in items if isinstance(i, rb.Result) and i.rows]
    if not results and any(isinstance(i, rb.Result) and i.intervals for i in items):
        results = [i for i in items if isinstance(i, rb.Result) and i.intervals]
    hists = [i for i in items if isinstance(i, rb.Histogram) and i.buckets]
    if not results and not hists:
        print('rb-plot: nothing to plot: no rows with figures in the files given',
              file=sys.stderr)
        return 1
    os.makedirs(args.output, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix='rb-plot.') as tmp:
        job = Job(args, tmp)
        bw = [r for r in results if r.kind == 'bw']
        lat = [r for r in results if r.kind == 'lat' and not is_loaded(r)]
        loaded = [r for r in results if r.kind == 'lat' and is_loaded(r)]
        if bw:
            plot_bandwidth(job, bw, where(bw, args.where))
        if lat:
            plot_latency(job, lat, where(lat, args.where))
        if loaded:
            plot_load(job, loaded, where(loaded, args.where))
        if hists:
            plot_histograms(job, hists, where(hists, args.where))
        timed = [r for r in items if isinstance(r, rb.Result) and r.intervals]
        if timed:
            plot_intervals(job, timed, where(timed, args.where))
        job.run()
    print('\n'.join(job.written))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

"""rb-plot: the gnuplot job (one section per chart and format, run once),
the legend's layout and the notes on repetitions."""

import os
import re
import shutil
import subprocess
import sys

from . import KEY_BESIDE_MAX, LOG_Y_RANGE, SIZE_TEMPLATES
from .tables import size_tics, write_table


def key_layout(labels):
    """Beside the chart when the legends are short, else below it in as many
    columns as fit; the canvas grows by the rows below, so that the legend
    never covers the data."""
    longest = max(len(l) for l in labels)
    if longest <= KEY_BESIDE_MAX and len(labels) <= 24:
        return ['key_below = 0', 'canvas_h = 600']
    cols = max(1, 900 // (longest * 8 + 50))
    rows = -(-len(labels) // cols)
    return ['key_below = 1', 'key_rows = %d' % rows, 'canvas_h = %d' % (560 + 20 * rows)]


def gp_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


class Job:
    """The gnuplot script: one section per chart and format."""

    def __init__(self, args, tmp):
        self.args, self.tmp, self.parts, self.written = args, tmp, [], []

    def chart(self, name, template, title, tables, extra=None):
        files = []
        for k, (label, lines) in enumerate(tables):
            path = os.path.join(self.tmp, '%s-%d.dat' % (name, k))
            write_table(path, lines)
            files.append((path, label))
        if not files:
            return
        head = ['n = %d' % len(files),
                'array file[%d] = [%s]' % (len(files), ', '.join(gp_str(f) for f, _ in files)),
                'array label[%d] = [%s]' % (len(files), ', '.join(gp_str(l) for _, l in files)),
                'chart_title = ' + gp_str(title)]
        head += ['%s = %s' % kv for kv in (extra or {}).items()]
        head += key_layout([l for _, l in files])
        if template in SIZE_TEMPLATES:
            head.append('size_tics = ' + gp_str(size_tics(tables)))
        for fmt in self.args.format:
            out = os.path.join(self.args.output, '%s%s.%s' % (self.args.name, name, fmt))
            self.parts += head + ['fmt = ' + gp_str(fmt), 'out = ' + gp_str(out),
                                  'load ' + gp_str(os.path.join(self.args.data, 'gnuplot', 'common.gp')),
                                  'load ' + gp_str(os.path.join(self.args.data, 'gnuplot', template)),
                                  'unset output']
            self.written.append(out)

    def run(self):
        script = os.path.join(self.tmp, 'job.gp')
        with open(script, 'w') as f:
            f.write('\n'.join(self.parts) + '\n')
        gnuplot = shutil.which('gnuplot')
        if not gnuplot:
            sys.exit('rb-plot: gnuplot not found (Debian: apt-get install gnuplot-nox)')
        run = subprocess.run([gnuplot, script], stderr=subprocess.PIPE, text=True)
        # pass gnuplot's complaints on, but not that one point makes an
        # empty range (it widens the range itself)
        for line in run.stderr.splitlines():
            if line.strip() and not re.search(r'empty [xy]2? range', line):
                sys.stderr.write('rb-plot: gnuplot: %s\n' % line)
        if run.returncode:
            sys.exit(1)


def run_counts(data):
    """label -> the runs of that series (its most at one size)."""
    return {l: max((len(rows) for rows in d.values()), default=0) for l, d in data.items()}


def reps_note(data, bars=True):
    """The title's note when every series has as many runs; else ''
    (label_runs then puts each series' count in its legend)."""
    counts = set(run_counts(data).values())
    most = counts.pop() if len(counts) == 1 else None
    if most is None:
        return ' (median of each series\' runs%s)' % (', bars: lowest to highest' if bars else '')
    if most > 1:
        return ' (median of %d runs%s)' % (most, ', bars: lowest to highest' if bars else '')
    return ''


def label_runs(data):
    """Legends with the runs of each series when the series differ in it."""
    counts = run_counts(data)
    if len(set(counts.values())) <= 1:
        return list(data.items())
    return [('%s (%d run%s)' % (l, counts[l], 's' if counts[l] != 1 else ''), d)
            for l, d in data.items()]


def log_y(job, tables):
    """-y: log or linear; auto: log when the medians span LOG_Y_RANGE or more."""
    if job.args.y_scale != 'auto':
        return int(job.args.y_scale == 'log')
    meds = [line[1] for _, lines in tables for line in lines if line[1] and line[1] > 0]
    return int(bool(meds) and max(meds) >= LOG_Y_RANGE * min(meds))

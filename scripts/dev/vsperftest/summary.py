"""rb-vs-perftest --summarize: comparison.csv from every runs*.csv (the
median of the paired ratios ours/theirs) and comparison.png and .svg."""

import csv
import glob
import os
import shutil
import statistics
import subprocess

import rbresults as rb
from vsperftest import BETTER, METRICS, TESTS, log


def summarize(opts):
    """comparison.csv: per (test, size, metric) the median of the paired
    ratios ours/theirs (repetition k of ours against repetition k of
    theirs, run back to back), with their range and each tool's median."""
    meta, runs = {}, []
    for path in sorted(glob.glob(os.path.join(opts.out, 'runs*.csv'))):
        m, r = rb.read_table(path)
        for k, v in m.items():
            if meta.get(k, v) != v and k != 'reps':
                v = meta[k] + ' | ' + v
            meta[k] = v
        runs += r
    by = {}
    for r in runs:
        by.setdefault((r['test'], int(r['size_bytes'])), {}).setdefault(r['tool'], {})[int(r['rep'])] = r
    out = []
    for (test, size), tools in sorted(by.items(), key=lambda x: (list(TESTS).index(x[0][0]), x[0][1])):
        for m in METRICS[TESTS[test][2]]:
            ours = {k: float(r[m]) for k, r in tools.get('rdmabench', {}).items() if r.get(m)}
            theirs = {k: float(r[m]) for k, r in tools.get('perftest', {}).items() if r.get(m)}
            reps = sorted(set(ours) & set(theirs))
            if not reps:
                continue
            ratios = [ours[k] / theirs[k] for k in reps]
            med = statistics.median(ratios)
            goal_met = med >= 1 if BETTER[m] == 'higher' else med <= 1
            out.append({
                'test': test, 'size_bytes': size, 'metric': m, 'better': BETTER[m], 'reps': len(reps),
                'rdmabench_median': '%.6g' % statistics.median(ours.values()),
                'perftest_median': '%.6g' % statistics.median(theirs.values()),
                'ratio_median': '%.4f' % med, 'ratio_min': '%.4f' % min(ratios),
                'ratio_max': '%.4f' % max(ratios),
                'ours_wins_reps': sum(1 for x in ratios if (x >= 1) == (BETTER[m] == 'higher')),
                'goal_met': 'yes' if goal_met else 'no',
                'perftest_zero_retries': sum(int(r['zero_retries']) for r in tools.get('perftest', {}).values()),
            })
    path = os.path.join(opts.out, 'comparison.csv')
    with open(path, 'w', newline='') as f:
        rb.write_sidecar(path, 'rb-vs-perftest', meta, 'ratio = rdmabench / perftest, paired by repetition (run back to back); '
                      'goal: >= 1 for bandwidth and message rate, <= 1 for latency')
        w = csv.DictWriter(f, list(out[0]) if out else ['test'])
        w.writeheader()
        w.writerows(out)
    print_table(out)
    counts = sorted({r['reps'] for r in out}) or [0]     # boots may differ in repetitions
    plot(opts.out, path, counts[0] if counts[0] == counts[-1] else '%d-%d' % (counts[0], counts[-1]))
    return 0


def print_table(rows):
    print('%-9s %8s %-14s %10s %10s %7s %7s %7s %s' %
          ('test', 'size', 'metric', 'ours', 'perftest', 'ratio', 'min', 'max', 'goal'))
    for r in rows:
        print('%-9s %8s %-14s %10s %10s %7s %7s %7s %s' %
              (r['test'], r['size_bytes'], r['metric'], r['rdmabench_median'], r['perftest_median'],
               r['ratio_median'], r['ratio_min'], r['ratio_max'], r['goal_met']))


GNUPLOT = r'''
set terminal @TERM@
set output OUT
set datafile separator ","
set logscale xy 2
set format x "%%.0b%%B"
set format y "%%g"
set ytics (0.25, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 4, 8, 16, 32)
set xlabel "message size [bytes]"
set grid
set key outside right top
set multiplot layout 2,1 title "rdmabench / perftest, median of %(reps)s paired runs (bars: min..max); one rxe device, qemu TCG guest"
sel(t, m) = sprintf("< awk -F, '$1==\"%%s\" && $3==\"%%s\"' %%s", t, m, CSV)
set ylabel "ratio (higher: ours faster)"
set title "bandwidth and message rate (goal >= 1)"
set xrange [1.4:1.5*2**20]
plot 1 notitle lw 2 lc "black", \
  sel("send_bw", "bw_avg_mibps") u ($2*0.97):8:9:10 w yerrorlines t "send\\_bw bandwidth", \
  sel("send_bw", "msg_rate_mpps") u ($2*0.99):8:9:10 w yerrorlines t "send\\_bw message rate", \
  sel("write_bw", "bw_avg_mibps") u ($2*1.01):8:9:10 w yerrorlines t "write\\_bw bandwidth", \
  sel("write_bw", "msg_rate_mpps") u ($2*1.03):8:9:10 w yerrorlines t "write\\_bw message rate"
set ylabel "ratio (lower: ours faster)"
set title "latency (goal <= 1)"
set xrange [1.4:24000]
plot 1 notitle lw 2 lc "black", \
  sel("send_lat", "lat_p50_us") u ($2*0.97):8:9:10 w yerrorlines t "send\\_lat p50", \
  sel("send_lat", "lat_p99_us") u ($2*0.99):8:9:10 w yerrorlines t "send\\_lat p99", \
  sel("read_lat", "lat_p50_us") u ($2*1.01):8:9:10 w yerrorlines t "read\\_lat p50", \
  sel("read_lat", "lat_p99_us") u ($2*1.03):8:9:10 w yerrorlines t "read\\_lat p99", \
  sel("write_lat", "lat_p50_us") u ($2*1.05):8:9:10 w yerrorlines t "write\\_lat p50", \
  sel("write_lat", "lat_p99_us") u ($2*1.07):8:9:10 w yerrorlines t "write\\_lat p99"
unset multiplot
'''


def plot(out, csv_path, reps):
    if not shutil.which('gnuplot'):
        log('no gnuplot: skipping the plot')
        return
    for ext, term in (('png', 'pngcairo size 1100,900 font ",10"'),
                      ('svg', 'svg size 1100,900 dynamic font ",10"')):
        path = os.path.join(out, 'comparison.' + ext)
        script = GNUPLOT.replace('@TERM@', term) % {'reps': reps}
        r = subprocess.run(['gnuplot', '-e', 'OUT="%s"; CSV="%s"' % (path, csv_path), '-'],
                           input=script, text=True, capture_output=True)
        if r.returncode:
            log('gnuplot failed: ' + r.stderr.strip())
        else:
            log('wrote ' + path)

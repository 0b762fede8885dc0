"""The summary on the host: DIR/raw/boot*-*.csv merged into icount.csv,
functions.csv and runs.csv, and README.md: the table of the first boot, the
cases and runs missing, the movement between boots, what ran."""

import glob
import os

from icount import (CALIBRATION, CASES, FUNC_FIELDS, ICOUNT_FIELDS, META_FIELDS, RB_CLOCK,
                    RUN_FIELDS, log, read_csv, write_csv)


def gather(opts):
    """Merges DIR/raw/boot*-*.csv into icount.csv, functions.csv, runs.csv."""
    raw = os.path.join(opts.out, 'raw')
    for name, fields in (('icount', ICOUNT_FIELDS), ('functions', FUNC_FIELDS), ('runs', RUN_FIELDS)):
        rows = []
        for path in sorted(glob.glob(os.path.join(raw, 'boot*-%s.csv' % name))):
            rows += read_csv(path)
        write_csv(os.path.join(opts.out, name + '.csv'), fields, rows)


def figure(rows, boot, case, tool, bucket):
    for r in rows:
        if (r['boot'], r['case'], r['tool'], r['bucket']) == (boot, case, tool, bucket):
            return float(r['instr_per_msg'])
    return None


def cell(x, f='%.1f'):
    return '—' if x is None else f % x


def raw_figure(rows, boot, case, tool):
    """The raw total: its own row, or (older folders, no raw row) the
    corrected total plus the calibration left out of it."""
    raw = figure(rows, boot, case, tool, 'raw')
    if raw is not None:
        return raw
    total, cal = figure(rows, boot, case, tool, 'total'), figure(rows, boot, case, tool, CALIBRATION)
    return None if total is None or cal is None else total + cal


def table_lines(rows, boot):
    out = ['| case | side | rdmabench raw | rdmabench corrected | perftest raw | perftest corrected |'
           ' ratio (corrected) | rdmabench tool | perftest tool |',
           '|---|---|--:|--:|--:|--:|--:|--:|--:|']
    for case in CASES:
        ours = figure(rows, boot, case, 'rdmabench', 'total')
        theirs = figure(rows, boot, case, 'perftest', 'total')
        if ours is None and theirs is None:
            continue
        ratio = ours / theirs if ours is not None and theirs else None
        out.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            case, CASES[case][3], cell(raw_figure(rows, boot, case, 'rdmabench')), cell(ours),
            cell(raw_figure(rows, boot, case, 'perftest')), cell(theirs), cell(ratio, '%.2f'),
            cell(figure(rows, boot, case, 'rdmabench', 'tool')),
            cell(figure(rows, boot, case, 'perftest', 'tool'))))
    return out


def movement_lines(rows, boots):
    """Per case, tool and bucket: the largest difference from boot 1."""
    if len(boots) < 2:
        return ['One boot only: run with --boots 2 to see how the figures move between boots.']
    out = ['Largest difference from boot 1 over boots %s, instructions per message '
           '(total and tool bucket; calibration is excluded from the total):' % ', '.join(boots[1:]), '',
           '| case | rdmabench total | rdmabench tool | perftest total | perftest tool | perftest calibration |',
           '|---|--:|--:|--:|--:|--:|']
    for case in CASES:
        cells = []
        for tool, bucket in (('rdmabench', 'total'), ('rdmabench', 'tool'), ('perftest', 'total'),
                             ('perftest', 'tool'), ('perftest', CALIBRATION)):
            base = figure(rows, boots[0], case, tool, bucket)
            others = [figure(rows, b, case, tool, bucket) for b in boots[1:]]
            d = [abs(x - base) for x in others if x is not None and base is not None]
            cells.append(cell(max(d), '%.3f') if d else '—')
        if any(c != '—' for c in cells):
            out.append('| %s | %s |' % (case, ' | '.join(cells)))
    return out


def missing_lines(opts, rows, boots):
    """The cases without figures and the runs that failed, by boot."""
    out = []
    for b in boots:
        have = {r['case'] for r in rows if r['boot'] == b}
        gone = [c for c in CASES if c not in have]
        if gone:
            out.append('- boot %s has no figures for: %s' % (b, ', '.join(gone)))
    for r in read_csv(os.path.join(opts.out, 'runs.csv')):
        if r['rc'] != '0':
            out.append('- boot %s, %s %s at %s: exit status %s (`%s`)' % (
                r['boot'], r['case'], r['tool'], r['messages'], r['rc'], r['command']))
    return [''] + out if out else []


def meta_lines(opts, boots):
    """Per boot: what ran (raw/bootK-meta.csv: per case; the older
    bootK-meta.txt: one line)."""
    out = []
    for b in boots:
        rows = read_csv(os.path.join(opts.out, 'raw', 'boot%s-meta.csv' % b))
        for k in META_FIELDS[3:]:
            vals = sorted({r.get(k, '') for r in rows})
            if vals:
                out.append('- boot %s, %s: %s' % (b, k, ' / '.join('`%s`' % v for v in vals)))
        if rows:
            out.append('- boot %s, measuring: %s s (%s)' % (b, sum(int(r['measuring_s'] or 0) for r in rows),
                                                         ', '.join(r['case'] for r in rows)))
            continue
        try:
            with open(os.path.join(opts.out, 'raw', 'boot%s-meta.txt' % b)) as f:
                out.append('- ' + ', '.join(l.strip() for l in f if l.strip()))
        except OSError:
            pass
    return out


def summarize(opts):
    gather(opts)
    rows = read_csv(os.path.join(opts.out, 'icount.csv'))
    boots = sorted({r['boot'] for r in rows}, key=int)
    if not boots:
        log('no figures in %s' % opts.out)
        return 1
    n = {r['case']: (r['n1_msgs'], r['n2_msgs']) for r in rows}
    text = ['# Instructions per message, rdmabench and perftest', '',
            'Written by `scripts/dev/rb-icount`: user-space instructions (callgrind Ir) one more message '
            'costs, (Ir(N2) - Ir(N1)) / (N2 - N1), measured side under callgrind, the peer '
            'uninstrumented; 2 B, `-t 128 -Q 100 -I 0` (`-l 32 -Q 32` for the _l32 cases, as perftest '
            'wants the post list a multiple of the CQ moderation), latency cases per iteration. '
            'Boot %s; N1, N2 per case: %s.' % (boots[0], ', '.join(
                '%s %s/%s' % (c, a, b) for c, (a, b) in n.items())), '',
            'Clocks: ours runs with `--clock=%s` (its report says so in every run: runs.csv, '
            'column clock); perftest has no clock option and reads the TSC, calibrated by a timed '
            'busy loop on gettimeofday (get_cpu_mhz) in every run.  *Raw* is callgrind\'s totals '
            'line alone; *corrected* leaves out the calibration bucket (get_cpu_mhz and what it '
            'calls; ours: clock_init_locked), whose count differs from run to run by chance, not '
            'with the message count: raw - corrected is that chance divided by N2 - N1.  perftest '
            'runs with -N: its peak bandwidth search after the run walks every message\'s time '
            'stamps (~1200 instructions per message at 2 B), a cost of its report that ours does '
            'not have.' % RB_CLOCK, '']
    text += table_lines(rows, boots[0]) + missing_lines(opts, rows, boots)
    text += ['', '## Between boots', '']
    text += movement_lines(rows, boots) + ['', '## What ran', ''] + meta_lines(opts, boots)
    text += ['', 'Per bucket: icount.csv (the rows total = corrected, raw); per function: functions.csv '
             '(every function whose count changes, its Ir at N1 and N2: per case, tool and bucket they '
             'add up to icount.csv); every valgrind run: runs.csv (exit status, clock, commit, its '
             'callgrind output under callgrind/, xz-compressed: `rb-icount --parse N1:FILE1 N2:FILE2 '
             '--program NAME` recomputes the buckets from two of them).']
    with open(os.path.join(opts.out, 'README.md'), 'w') as f:
        f.write('\n'.join(text) + '\n')
    print(os.path.join(opts.out, 'README.md'))
    return 0

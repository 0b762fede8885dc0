"""rb-icount's options and what each mode does: --parse (two callgrind
files, buckets on stdout), --summarize, a boot inside the test bed
(--inside), or the boots (here or in the test bed) and then the summary.
Exit status: 0 done, 1 a run or the test bed failed, 2 usage error."""

import argparse
import csv
import datetime
import os
import shutil
import sys
import time

from icount import CASES, DESCRIPTION, TOOLS, TOP, fmt, log, tree_commit, version
from icount.boot import have_device, in_testbed, one_boot
from icount.callgrind import bucket_rows, parse_callgrind
from icount.tables import summarize


def parse_pair(text, ap, what):
    try:
        a, b = (int(x) for x in text.split(','))
    except ValueError:
        ap.error('%s is not N1,N2: %s' % (what, text))
    if not 0 < a < b:
        ap.error('%s needs 0 < N1 < N2: %s' % (what, text))
    return a, b


def parse(argv):
    ap = argparse.ArgumentParser(prog='rb-icount', description=DESCRIPTION,
                                 epilog='Exit status: 0 done, 1 a run or the test bed failed, 2 usage error.')
    ap.add_argument('--bin', default=os.environ.get('RB_BIN') or TOP,
                    help='folder of the built programs (default: $RB_BIN or the source top)')
    ap.add_argument('--out', help='output folder (default results/icount/DATE)')
    ap.add_argument('--cases', default=','.join(CASES), help='comma list of: ' + ', '.join(CASES))
    ap.add_argument('--tools', default=','.join(TOOLS),
                    help='comma list of the tools measured (default rdmabench,perftest; one alone: '
                    'a before/after pair measures perftest once)')
    ap.add_argument('--boots', type=int, default=1, help='test-bed boots, 1..5 (default 1)')
    ap.add_argument('--bw-iters', default='1600,201600', help='N1,N2 messages of the bandwidth cases '
                    '(default 1600,201600: multiples of the post list and of -Q)')
    ap.add_argument('--lat-iters', default='1000,21000',
                    help='N1,N2 iterations of the latency cases (default 1000,21000)')
    ap.add_argument('--top', type=int, default=0,
                    help='functions per case and tool in functions.csv (default 0: all that change)')
    ap.add_argument('--run-timeout', type=int, default=900, help='limit of one client run in s')
    ap.add_argument('--timeout', type=int, default=3600, help='limit of one test-bed boot in s')
    ap.add_argument('--no-callgrind', dest='keep_raw', action='store_false',
                    help='do not keep the callgrind files (default: DIR/callgrind/*.cg.xz)')
    ap.add_argument('--parse', nargs=2, metavar='N:FILE', help='difference two callgrind files')
    ap.add_argument('--program', help='with --parse: the program\'s file name (its tool bucket)')
    ap.add_argument('--summarize', action='store_true', help='only redo the CSV files and README from DIR/raw')
    ap.add_argument('--version', action='version', version='rb-icount (rdmabench) %s (commit %s)' % (version(), tree_commit()))
    ap.add_argument('--inside', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--boot', type=int, default=1,
                    help='number of the first boot (default 1): with another boot number, a later '
                    'run adds its boots to DIR')
    o = ap.parse_args(argv)
    o.cases = [c for c in o.cases.split(',') if c]
    bad = [c for c in o.cases if c not in CASES]
    if bad or not o.cases:
        ap.error('unknown case: %s (one of %s)' % (','.join(bad) or '(none)', ', '.join(CASES)))
    tools = [x for x in o.tools.split(',') if x]
    if not tools or any(x not in TOOLS for x in tools):
        ap.error('--tools: a comma list of %s, not %s' % (', '.join(TOOLS), o.tools))
    o.tools = [x for x in TOOLS if x in tools]
    if not 1 <= o.boots <= 5:
        ap.error('--boots is out of range: %d (1..5)' % o.boots)
    if not 1 <= o.boot <= 99:
        ap.error('--boot is out of range: %d (1..99)' % o.boot)
    if o.top < 0 or o.run_timeout < 1 or o.timeout < 1:
        ap.error('--top must be at least 0, --run-timeout and --timeout at least 1')
    o.iters = {'bw': parse_pair(o.bw_iters, ap, '--bw-iters'),
               'lat': parse_pair(o.lat_iters, ap, '--lat-iters')}
    if o.parse:
        o.parse = [parse_measured(x, ap) for x in o.parse]
        if not o.program:
            ap.error('--parse needs --program NAME (the file name of the measured program)')
    o.bin = os.path.abspath(o.bin)
    o.out = os.path.abspath(o.out or os.path.join(
        TOP, 'results', 'icount', datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')))
    return o


def parse_measured(text, ap):
    n, sep, path = text.partition(':')
    if not sep or not n.isdigit() or int(n) < 1:
        ap.error('--parse wants N:FILE with N the message count, not %s' % text)
    return int(n), path


def parse_only(opts):
    (n1, f1), (n2, f2) = sorted(opts.parse)
    if n1 == n2:
        log('--parse: the two message counts are equal (%d)' % n1)
        return 2
    try:
        p1, p2 = parse_callgrind(f1), parse_callgrind(f2)
    except (OSError, ValueError) as e:
        log('--parse: %s' % e)
        return 1
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(['bucket', 'instr_per_msg', 'ir_n1', 'ir_n2'])
    for b, v, a, z in bucket_rows(p1, p2, n1, n2, opts.program):
        w.writerow([b, fmt(v), a, z])
    return 0


def check_tools(opts):
    missing = [t for t in ('valgrind', 'ib_write_bw') if not shutil.which(t)]
    missing += [p for p in {CASES[c][0] for c in opts.cases}
                if not os.access(os.path.join(opts.bin, p), os.X_OK)]
    if missing:
        log('missing: %s (install valgrind and perftest; build ours, or point --bin at a build)'
            % ', '.join(missing))
        return 1
    return 0


def main(argv):
    opts = parse(argv)
    if opts.parse:
        return parse_only(opts)
    os.makedirs(opts.out, exist_ok=True)
    if opts.summarize:
        return summarize(opts)
    if check_tools(opts):
        return 1
    # perftest's loops have no pause between empty polls: ours run the same
    # bare loop here (the test bed's guests set RB_POLL_PAUSE=1).
    os.environ['RB_POLL_PAUSE'] = '0'
    if opts.inside:
        return one_boot(opts, opts.boot)
    t0, rc = time.monotonic(), 0
    for boot in range(opts.boot, opts.boot + opts.boots):
        b0 = time.monotonic()
        r = one_boot(opts, boot) if have_device() else in_testbed(opts, boot)
        log('boot %d: exit %d in %.0f s' % (boot, r, time.monotonic() - b0))
        rc = rc or (1 if r else 0)
    summarize(opts)
    log('done in %.0f s' % (time.monotonic() - t0))
    return rc

"""rb-vs-perftest's options, the test bed it runs itself in when the host
has no RDMA device, and its exit statuses."""

import argparse
import glob
import os
import subprocess
import sys

import vsperftest as vp
from vsperftest import TESTS, TOP, log, source_commit
from vsperftest.compare import compare
from vsperftest.oneline import run_line
from vsperftest.pairs import Pair
from vsperftest.speed import speed
from vsperftest.summary import summarize


def have_device():
    return bool(os.environ.get('RB_DEV')) or bool(glob.glob('/sys/class/infiniband/*'))


def in_testbed(argv, timeout):
    """Run this script, with the same options, inside one test-bed boot."""
    testbed = os.environ.get('RB_VS_TESTBED') or os.path.join(TOP, 'scripts', 'testbed', 'rb-testbed')
    cmd = [testbed, '--timeout', str(timeout),
           '--', sys.executable if sys.executable.startswith('/usr/') else '/usr/bin/python3',
           vp.SCRIPT, '--inside', '--bin', vp.BIN, '--commit', source_commit()] + argv
    log('no RDMA device here: running in the test bed (%s)' % ' '.join(cmd[:3]))
    return subprocess.run(cmd, cwd=TOP).returncode


def version():
    """The source tree's VERSION (rb-vs-perftest runs from the tree only)."""
    try:
        with open(os.path.join(TOP, 'VERSION')) as f:
            return f.read().split()[0]
    except (OSError, IndexError):
        return 'unknown'


def parse(argv):
    ap = argparse.ArgumentParser(prog='rb-vs-perftest', description=vp.DESCRIPTION)
    ap.add_argument('--version', action='version', version='rb-vs-perftest (rdmabench) ' + version())
    ap.add_argument('--reps', type=int, default=None,
                    help='repetitions per size (default 5; 3 with --line; at least 1)')
    ap.add_argument('--tests', default=','.join(TESTS), help='comma list of: ' + ', '.join(TESTS))
    ap.add_argument('--sizes', default='', help='comma list: only these of each test\'s sizes')
    ap.add_argument('--bin', default=os.environ.get('RB_BIN') or TOP,
                    help='folder of the built programs (default: $RB_BIN or the source top)')
    ap.add_argument('--out', default=os.path.join(TOP, 'results', 'perftest'), help='output folder')
    ap.add_argument('--speed', action='store_true', help='measure the tools instead (speed.csv)')
    ap.add_argument('--speed-parts', default='clock,setup,memory,sweep',
                    help='with --speed: comma list of clock, setup, memory, sweep')
    ap.add_argument('--speed-reps', type=int, default=1, help='with --speed: sweeps per tool')
    ap.add_argument('--setup-reps', type=int, default=3, help='with --speed: setup runs per tool')
    ap.add_argument('--sweep-bw-iters', type=int, default=20)
    ap.add_argument('--sweep-lat-iters', type=int, default=20)
    ap.add_argument('--mem-runs', default='-n 1000;-n 20000;-D 10;-D 60',
                    help='with --speed: ";"-separated run lengths for the RSS runs')
    ap.add_argument('--run-timeout', type=int, default=300, help='limit for one client run in s (default 300)')
    ap.add_argument('--line', action='append', default=[],
                    help='a perftest command line, e.g. \'ib_write_bw -d mlx5_0 -s 65536 -D 5 -q 2 '
                    '--report_gbits\': run it through both tools, side by side (repeatable; '
                    '--reps times each, default 3 here)')
    ap.add_argument('--shorten', action='store_true',
                    help='with --line: cut each run short as the compatibility test does '
                    '(-D 2 or less, a few iterations)')
    ap.add_argument('--summarize', action='store_true', help='only redo comparison.csv and the plot')
    ap.add_argument('--tag', default='', help='write runs-TAG.csv (one boot\'s runs) instead of runs.csv')
    ap.add_argument('--timeout', type=int, default=7200, help='test-bed limit in s (default 7200)')
    ap.add_argument('--inside', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--commit', default='', help=argparse.SUPPRESS)
    o = ap.parse_args(argv)
    o.reps = o.reps if o.reps is not None else (3 if o.line else 5)
    o.tests = [t for t in o.tests.split(',') if t]
    bad = [t for t in o.tests if t not in TESTS]
    if bad or o.reps < 1:
        ap.error('unknown test %s' % bad if bad else '--reps must be at least 1')
    o.sizes = [int(x) for x in o.sizes.split(',') if x]
    o.speed_parts = [p for p in o.speed_parts.split(',') if p]
    o.mem_runs = [r.strip() for r in o.mem_runs.split(';') if r.strip()]
    o.out = os.path.abspath(o.out)
    Pair.timeout_s = o.run_timeout
    o.bin = os.path.abspath(o.bin)
    return o


def main(argv):
    opts = parse(argv)
    vp.BIN = opts.bin
    os.makedirs(opts.out, exist_ok=True)
    if opts.summarize:
        return summarize(opts)
    if not opts.inside and not have_device():
        rc = in_testbed(argv, opts.timeout)
        if rc == 0 and not opts.speed and not opts.line:
            summarize(opts)
        return rc
    # perftest's loops have no pause between empty polls: rdmabench's run
    # the same bare loop here (the test bed's guests set RB_POLL_PAUSE=1).
    os.environ['RB_POLL_PAUSE'] = '0'
    if opts.line:
        return run_line(opts)
    return speed(opts) if opts.speed else compare(opts)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

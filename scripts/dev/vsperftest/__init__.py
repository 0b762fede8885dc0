"""vsperftest: rb-vs-perftest, rdmabench against perftest on one rxe device
(the usage is the script's: scripts/dev/rb-vs-perftest).  Results are read
and written with rbresults (scripts/rbresults/).

Each file uses only those above it:
  __init__.py  the pairs compared, their sizes and iterations, the source tree
  line.py      a perftest command line read as perftest reads it and rewritten
               for a test bed (standalone: the compatibility test runs it too)
  pairs.py     one server/client pair of either tool, with the same parameters
  figures.py   the figures of a run: ours from its CSV, perftest's from its table
  compare.py   the comparison inside the test bed: runs.csv
  summary.py   comparison.csv (paired ratios) and its plot, on the host
  speed.py     the speed of the tools themselves: speed.csv
  oneline.py   --line: any perftest command line through both tools
  cli.py       options, the test bed around it, exit statuses"""

import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
SCRIPT = os.path.join(TOP, 'scripts', 'dev', 'rb-vs-perftest')
DESCRIPTION = 'rb-vs-perftest: rdmabench against perftest, side by side, on one rxe device.'
BIN = TOP                   # the build folder: --bin (cli.main sets it)

# What each pair compares.  Sizes: powers of 4 from 2 B to 1 MiB, thinned
# so that 5 repetitions of every pair fit one boot of the test bed (a pair
# costs 3-7 s there, most of it start-up): --sizes picks others.
TESTS = {
    'send_bw': ('rb_send_bw', 'ib_send_bw', 'bw', [2, 1024, 65536, 1048576]),
    'write_bw': ('rb_write_bw', 'ib_write_bw', 'bw', [2, 1024, 65536, 1048576]),
    'send_lat': ('rb_send_lat', 'ib_send_lat', 'lat', [2, 1024, 16384]),
    'read_lat': ('rb_read_lat', 'ib_read_lat', 'lat', [2, 1024, 16384]),
    'write_lat': ('rb_write_lat', 'ib_write_lat', 'lat', [2, 1024, 16384]),
}
# Iterations per size: long enough to measure, short enough that a run under
# qemu's software emulation (~0.005 Mpps, ~20 MiB/s) lasts well under a second.
BW_ITERS = {2: 5000, 8: 5000, 32: 5000, 128: 5000, 256: 5000, 512: 5000, 1024: 5000,
            4096: 2000, 16384: 1000, 65536: 500, 262144: 200, 1048576: 100}
LAT_ITERS = 1000
METRICS = {'bw': ['bw_avg_mibps', 'msg_rate_mpps'], 'lat': ['lat_p50_us', 'lat_p99_us']}
BETTER = {'bw_avg_mibps': 'higher', 'msg_rate_mpps': 'higher',
          'lat_p50_us': 'lower', 'lat_p99_us': 'lower'}
RUN_FIELDS = ['test', 'size_bytes', 'rep', 'tool', 'tries', 'zero_retries', 'rc', 'wall_s',
              'bw_avg_mibps', 'msg_rate_mpps', 'lat_p50_us', 'lat_p99_us', 'command']
PORT0 = 18600


def log(msg):
    print('rb-vs-perftest: ' + msg, file=sys.stderr, flush=True)


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ''


def source_commit():
    """The source tree's commit (git describe), '' where git cannot say
    (inside the test bed's guest the host passes it with --commit)."""
    return sh('git -C %s describe --always --dirty --tags 2>/dev/null' % TOP)

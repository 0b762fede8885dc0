"""icount: rb-icount, user-space instructions per message under callgrind,
ours and perftest's (the usage is the script's: scripts/dev/rb-icount).

Each file uses only those above it:
  __init__.py   the cases, the buckets, the CSV files' columns, the source tree
  callgrind.py  reading callgrind's output; the buckets, the calibration apart
  runs.py       one pair of one case under valgrind: its command lines, its run
  boot.py       every case in one boot (here, or in the test bed): DIR/raw/
  tables.py     the summary: icount.csv, functions.csv, runs.csv, README.md
  cli.py        options, --parse, exit statuses"""

import collections
import csv
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
SCRIPT = os.path.join(TOP, 'scripts', 'dev', 'rb-icount')
DESCRIPTION = 'rb-icount: user-space instructions per message, ours and perftest\'s.'
VERSION_FILE = os.path.join(TOP, 'VERSION')
# the first run's port, +1 per run (RB_ICOUNT_PORT: another; the tests use it)
PORT0 = int(os.environ.get('RB_ICOUNT_PORT') or 18700)
# ours: --timeout for a silent peer; the peer of a callgrind run waits long
# for it on a loaded host (the test bed under load: minutes per run).
RB_TIMEOUT_S = 600
# ours: the one clock that cannot change between runs (no calibration)
RB_CLOCK = 'monotonic'
RB_CLOCK_NAME = 'CLOCK_MONOTONIC'
PERFTEST_CLOCK = 'TSC (get_cycles; no option), get_cpu_mhz calibration'
BUCKETS = ['tool', 'libibverbs', 'provider', 'libc', 'other']
CALIBRATION = 'calibration'
TIME_OF_DAY = {'gettimeofday', '__gettimeofday', '__gettimeofday_syscall', '__vdso_gettimeofday'}
# perftest's clock calibration, ours (src/lib/clock.c: timed TSC against
# CLOCK_MONOTONIC pairs), and the time-of-day calls: what they call counts
# with them.
CALIBRATION_NAMES = {'get_cpu_mhz', 'sample_get_cpu_mhz', 'proc_get_cpu_mhz',
                     'clock_init_locked'} | TIME_OF_DAY

# case: (ours, perftest's, kind, measured side, post list)
CASES = collections.OrderedDict([
    ('write_bw', ('rb_write_bw', 'ib_write_bw', 'bw', 'client', 1)),
    ('send_bw', ('rb_send_bw', 'ib_send_bw', 'bw', 'client', 1)),
    ('send_bw_recv', ('rb_send_bw', 'ib_send_bw', 'bw', 'server', 1)),
    ('read_bw', ('rb_read_bw', 'ib_read_bw', 'bw', 'client', 1)),
    ('atomic_bw', ('rb_atomic_bw', 'ib_atomic_bw', 'bw', 'client', 1)),
    ('send_lat', ('rb_send_lat', 'ib_send_lat', 'lat', 'client', 1)),
    ('write_lat', ('rb_write_lat', 'ib_write_lat', 'lat', 'client', 1)),
    ('read_lat', ('rb_read_lat', 'ib_read_lat', 'lat', 'client', 1)),
    ('atomic_lat', ('rb_atomic_lat', 'ib_atomic_lat', 'lat', 'client', 1)),
    ('write_bw_l32', ('rb_write_bw', 'ib_write_bw', 'bw', 'client', 32)),
    ('send_bw_l32', ('rb_send_bw', 'ib_send_bw', 'bw', 'client', 32)),
    ('read_bw_l32', ('rb_read_bw', 'ib_read_bw', 'bw', 'client', 32)),
    ('atomic_bw_l32', ('rb_atomic_bw', 'ib_atomic_bw', 'bw', 'client', 32)),
])
TOOLS = ['rdmabench', 'perftest']
RUN_FIELDS = ['boot', 'case', 'tool', 'side', 'messages', 'rc', 'wall_s', 'ir_total', 'clock',
              'commit', 'callgrind', 'command']
ICOUNT_FIELDS = ['boot', 'case', 'tool', 'program', 'side', 'bucket', 'instr_per_msg',
                 'ir_n1', 'ir_n2', 'n1_msgs', 'n2_msgs']
FUNC_FIELDS = ['boot', 'case', 'tool', 'bucket', 'object', 'function', 'instr_per_msg', 'ir_n1', 'ir_n2']
META_FIELDS = ['boot', 'case', 'measuring_s', 'tree_commit', 'rdmabench', 'rdmabench_clock', 'perftest',
               'perftest_clock', 'valgrind', 'kernel', 'device', 'testbed']


def log(msg):
    print('rb-icount: ' + msg, file=sys.stderr, flush=True)


def version():
    try:
        with open(VERSION_FILE) as f:
            return f.read().strip()
    except OSError:
        return 'unknown'


def tree_commit():
    """scripts/dev/commit.sh: git describe --always --dirty of this tree."""
    try:
        r = subprocess.run(['sh', os.path.join(TOP, 'scripts', 'dev', 'commit.sh'), TOP],
                           capture_output=True, text=True, timeout=30)
        return r.stdout.strip() or 'unknown'
    except (OSError, subprocess.SubprocessError):
        return 'unknown'


def fmt(x):
    return '%.3f' % x


def write_csv(path, fields, rows):
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fields, lineterminator='\n')
        w.writeheader()
        w.writerows(rows)


def read_csv(path):
    try:
        with open(path, newline='') as f:
            return list(csv.DictReader(f))
    except OSError:
        return []

"""Every case of one boot: measured here when there is an RDMA device, else
by this script run again inside one boot of the Soft-RoCE test bed.  A boot
writes DIR/raw/bootK-{icount,functions,runs,meta}.csv after each case."""

import glob
import os
import shutil
import subprocess
import tempfile
import time

from icount import (CASES, FUNC_FIELDS, ICOUNT_FIELDS, META_FIELDS, PERFTEST_CLOCK, RB_CLOCK,
                    RUN_FIELDS, SCRIPT, TOP, log, read_csv, tree_commit, write_csv)
from icount.runs import Runner, measure_case


def boot_csv(opts, boot, name):
    return os.path.join(opts.out, 'raw', 'boot%d-%s.csv' % (boot, name))


def others(opts, boot, name, cases):
    """DIR's rows of boot BOOT's NAME.csv for the cases not in CASES: a
    run of some cases replaces their rows and keeps the rest."""
    return [r for r in read_csv(boot_csv(opts, boot, name)) if r.get('case') not in cases]


def one_boot(opts, boot):
    """Measures every case in this boot; writes DIR/raw/bootK-*.csv after
    each case, so that a boot cut short keeps the cases it finished."""
    os.makedirs(os.path.join(opts.out, 'raw'), exist_ok=True)
    scratch = tempfile.mkdtemp(prefix='rb-icount.')
    runner, rows, frows, metas, failed = Runner(opts, boot, scratch), [], [], [], 0
    keep = {n: others(opts, boot, n, opts.cases) for n in ('icount', 'functions', 'runs', 'meta')}
    for case in opts.cases:
        t0 = time.monotonic()
        for tool in opts.tools:
            got = measure_case(runner, case, tool)
            failed += got is None
            if got:
                rows += got[0]
                frows += got[1]
        metas.append(boot_meta(opts, boot, case, time.monotonic() - t0))
        write_csv(boot_csv(opts, boot, 'icount'), ICOUNT_FIELDS, keep['icount'] + rows)
        write_csv(boot_csv(opts, boot, 'functions'), FUNC_FIELDS, keep['functions'] + frows)
        write_csv(boot_csv(opts, boot, 'runs'), RUN_FIELDS, keep['runs'] + runner.runs)
        write_csv(boot_csv(opts, boot, 'meta'), META_FIELDS, keep['meta'] + metas)
    shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


def sh(cmd):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    return (r.stdout or r.stderr).strip().splitlines()[0] if (r.stdout or r.stderr).strip() else ''


def boot_meta(opts, boot, case, seconds):
    """What measured CASE: the tree's commit, the programs' versions (ours
    with the commit it was built from) and clocks, valgrind, the kernel."""
    return {'boot': boot, 'case': case, 'measuring_s': '%.0f' % seconds, 'tree_commit': tree_commit(),
            'rdmabench': sh(os.path.join(opts.bin, CASES[case][0]) + ' --version'),
            'rdmabench_clock': '--clock=' + RB_CLOCK,
            'perftest': sh(CASES[case][1] + ' --version').replace('Version: ', ''),
            'perftest_clock': PERFTEST_CLOCK,
            'valgrind': sh('valgrind --version'), 'kernel': sh('uname -r'),
            'device': os.environ.get('RB_DEV', ''), 'testbed': os.environ.get('RB_TESTBED', 'host')}


def have_device():
    return bool(os.environ.get('RB_DEV')) or bool(glob.glob('/sys/class/infiniband/*'))


def in_testbed(opts, boot):
    testbed = os.environ.get('RB_ICOUNT_TESTBED') or os.path.join(TOP, 'scripts', 'testbed', 'rb-testbed')
    argv = ['--inside', '--boot', str(boot), '--bin', opts.bin, '--out', opts.out,
            '--cases', ','.join(opts.cases), '--bw-iters', '%d,%d' % opts.iters['bw'],
            '--lat-iters', '%d,%d' % opts.iters['lat'], '--top', str(opts.top),
            '--run-timeout', str(opts.run_timeout), '--tools', ','.join(opts.tools)] + \
        ([] if opts.keep_raw else ['--no-callgrind'])
    cmd = [testbed, '--timeout', str(opts.timeout), '--share', TOP]
    if not os.path.realpath(opts.out).startswith(TOP + os.sep):
        cmd += ['--share', opts.out]
    cmd += ['--', '/usr/bin/python3', SCRIPT] + argv
    log('boot %d: no RDMA device here, running in the test bed' % boot)
    return subprocess.run(cmd, cwd=TOP).returncode

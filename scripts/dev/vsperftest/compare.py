"""rb-vs-perftest: the comparison inside the test bed, every (test, size)
reps times, ours then theirs: runs.csv and its sidecar."""

import csv
import os
import shutil
import tempfile
import time

import rbresults as rb
import vsperftest as vp
from vsperftest import METRICS, RUN_FIELDS, TESTS, log, sh, source_commit
from vsperftest.pairs import Pair, Ports, common_args, pair_cmds
from vsperftest.figures import read_ours, read_theirs, usable


def run_one(test, size, tool, ports, scratch):
    """Run one pair until it gives usable figures (4 tries); the run's row."""
    ours_prog, theirs_prog, kind, _ = TESTS[test]
    args = common_args(test, size)
    row = {'test': test, 'size_bytes': size, 'tool': tool, 'zero_retries': 0}
    for tries in range(1, 5):
        port = ports.next()
        csv_path = os.path.join(scratch, 'client.csv')
        if os.path.exists(csv_path):
            os.unlink(csv_path)
        prog = ours_prog if tool == 'rdmabench' else theirs_prog
        pair = Pair(*pair_cmds(tool, prog, args, port, csv_path), port).run()
        if tool == 'rdmabench':
            got = {m: float(v) for m, v in read_ours(csv_path, size).items()
                   if m in METRICS[kind] and v not in ('', None)}
        else:
            got = read_theirs(pair.out, kind, size)
        row.update(tries=tries, rc=pair.rc, wall_s='%.3f' % pair.wall_s,
                   command=' '.join([prog] + args))
        if pair.rc == 0 and usable(got, kind):
            row.update({m: '%.9g' % got[m] for m in METRICS[kind]})
            return row
        if pair.rc == 0 and got:
            row['zero_retries'] += 1
        log('%s %s %d B try %d: rc %s, figures %s; stderr: %s' %
            (tool, test, size, tries, pair.rc, got, (pair.err or pair.out).strip()[-300:]))
    return row


def clock_warning():
    """Say when the kernel's clock is not the TSC: clock_gettime is then a
    system call (about 1-10 us in the test bed's guest with hpet, against
    0.03 us with tsc), which our latency samples would pay (--clock=auto
    reads the calibrated TSC instead: see the 'clock' metadata) and
    perftest's rdtsc does not; and perftest's clock fit, which busy-waits on
    gettimeofday, fails far more often."""
    src = sh('cat /sys/devices/system/clocksource/clocksource0/current_clocksource')
    if src and src != 'tsc':
        log('warning: clocksource is %s, not tsc: clock_gettime is a system call here '
            '(rdmabench reads the TSC instead; boot the guest with tsc=reliable to compare '
            'on the vDSO)' % src)


def compare(opts):
    """Inside the test bed: every (test, size), reps times, ours then theirs."""
    clock_warning()
    scratch = tempfile.mkdtemp(prefix='rb-vs-perftest.')
    ports, failed = Ports(), 0
    with open(os.path.join(opts.out, runs_name(opts)), 'w', newline='') as f:
        write_run_meta(f, opts)
        w = csv.DictWriter(f, RUN_FIELDS, extrasaction='ignore')
        w.writeheader()
        for test in opts.tests:
            for size in [x for x in TESTS[test][3] if not opts.sizes or x in opts.sizes]:
                for rep in range(1, opts.reps + 1):
                    for tool in ('rdmabench', 'perftest'):
                        row = run_one(test, size, tool, ports, scratch)
                        row['rep'] = rep
                        failed += row['rc'] != 0
                        w.writerow(row)
                        f.flush()
                log('%s %d B: %d repetitions done' % (test, size, opts.reps))
    shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


def write_run_meta(f, opts):
    meta = {
        'tool': 'rb-vs-perftest',
        'date_utc': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
        'kernel': os.uname().release,
        'test_bed': os.environ.get('RB_TESTBED', 'host'),
        'cpus': os.cpu_count(),
        'device': os.environ.get('RB_DEV', ''),
        'active_mtu': sh("ibv_devinfo -d %s | awk '/active_mtu/ {print $2; exit}'" %
                         os.environ.get('RB_DEV', 'rxe0')),
        'perftest': sh('ib_send_bw --version').replace('Version: ', ''),
        'rdmabench': sh(os.path.join(vp.BIN, 'rb_send_bw') + ' --version').splitlines()[0:1],
        'rdmabench_commit': opts.commit or source_commit(),
        'clocksource': sh('cat /sys/devices/system/clocksource/clocksource0/current_clocksource'),
        'reps': opts.reps,
        'order': 'per size and repetition: rdmabench, then perftest',
    }
    rb.write_sidecar(f.name, 'rb-vs-perftest', {k: (v[0] if isinstance(v, list) and v else v) for k, v in meta.items()})


def runs_name(opts):
    """runs.csv, or runs-TAG.csv: one boot's runs; --summarize reads them all."""
    return 'runs-%s.csv' % opts.tag if opts.tag else 'runs.csv'

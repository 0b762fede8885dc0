"""rb-vs-perftest --speed: the tools themselves: wall time of a sweep,
connection setup, peak RSS, the clock's cost (speed.csv)."""

import csv
import os
import re
import shutil
import subprocess
import tempfile
import threading

import vsperftest as vp
from vsperftest import log, sh
from vsperftest.pairs import Pair, Ports, pair_cmds
from vsperftest.figures import perftest_rows, read_ours_rows
from vsperftest.compare import write_run_meta


def rss_kb(path):
    try:
        with open(path) as f:
            m = re.search(r'Maximum resident set size \(kbytes\): (\d+)', f.read())
            return int(m.group(1)) if m else None
    except OSError:
        return None


def data_time_ours(csv_path):
    """Seconds our run spent measuring, summed over sizes (window_s)."""
    return sum(float(r['window_s']) for r in read_ours_rows(csv_path) if r.get('window_s'))


def data_time_theirs(text, kind, rtt_factor):
    """Seconds perftest spent measuring, from its table: bw rows give
    iterations / MsgRate, latency rows iterations * t_avg * rtt_factor."""
    total = 0.0
    for r in perftest_rows(text):
        if kind == 'bw' and len(r) >= 5 and r[4] > 0:
            total += r[1] / (r[4] * 1e6)
        elif kind == 'lat' and len(r) >= 6:
            total += r[1] * r[5] * 1e-6 * rtt_factor
    return total


def speed_row(w, what, tool, pair, extra=None):
    row = {'what': what, 'tool': tool, 'rc': pair.rc, 'wall_s': '%.3f' % pair.wall_s}
    row.update(extra or {})
    w.writerow(row)
    log('%s %s: rc %s, wall %.2f s %s' % (what, tool, pair.rc, pair.wall_s, extra or ''))


def speed_sweeps(w, ports, scratch, opts):
    """-a sweeps: wall time, and wall time less the measured data time,
    which is what each tool spends on itself (perftest recalibrates its
    clock at every size)."""
    for prog, kind, iters, rtt in (('send_bw', 'bw', opts.sweep_bw_iters, 1),
                                   ('send_lat', 'lat', opts.sweep_lat_iters, 2)):
        args = ['-a', '-n', str(iters)] + (['-t', '128', '-Q', '100', '-I', '0'] if kind == 'bw'
                                           else ['-I', '0'])
        for rep in range(1, opts.speed_reps + 1):
            for tool in ('rdmabench', 'perftest'):
                csv_path = os.path.join(scratch, 'sweep.csv')
                port = ports.next()
                p = Pair(*pair_cmds(tool, ('rb_' if tool == 'rdmabench' else 'ib_') + prog,
                                    args, port, csv_path), port).run()
                if tool == 'rdmabench':
                    data, sizes = data_time_ours(csv_path), len(read_ours_rows(csv_path))
                else:
                    data, sizes = data_time_theirs(p.out, kind, rtt), len(perftest_rows(p.out))
                speed_row(w, '%s -a -n %d' % (prog, iters), tool, p,
                          {'rep': rep, 'data_s': '%.3f' % data, 'sizes': sizes,
                           'overhead_s': '%.3f' % (p.wall_s - data)})


# strace -f -o FILE lines: "PID SECONDS.USEC call(...)"
STRACE_LINE = re.compile(r'^\d+ +(\d+\.\d+) (\w+)\((.*)')


POST_SEND_DOORBELL = re.compile(r'\d+</dev/infiniband/uverbs\d+>, "\\20\\0\\0\\0')


def first_post_s(strace_path):
    """Seconds from execve to the first ibv_post_send, from strace -ttt.
    rxe's provider rings its doorbell with write(cmd_fd) of a command whose
    first word is IB_USER_VERBS_CMD_POST_SEND (16): the first such write is
    the first post."""
    t0 = None
    try:
        with open(strace_path) as f:
            for line in f:
                m = STRACE_LINE.match(line)
                if not m:
                    continue
                if m.group(2) == 'execve' and t0 is None:
                    t0 = float(m.group(1))
                elif m.group(2) == 'write' and t0 is not None and POST_SEND_DOORBELL.match(m.group(3)):
                    return float(m.group(1)) - t0
    except OSError:
        pass
    return None


def speed_setup(w, ports, scratch, opts):
    """Connection setup: a 5-iteration 2-byte run (perftest's minimum -n),
    whose data part is well under a millisecond: the client's wall time,
    and, in a second run under strace, the time from execve to the first
    post."""
    strace = shutil.which('strace')
    trace = os.path.join(scratch, 'strace.txt')
    args = ['-s', '2', '-n', '5', '-I', '0']
    for prog in ('send_bw', 'send_lat'):
        for rep in range(1, opts.setup_reps + 1):
            for tool in ('rdmabench', 'perftest'):
                name = ('rb_' if tool == 'rdmabench' else 'ib_') + prog
                port = ports.next()
                p = Pair(*pair_cmds(tool, name, args, port), port).run()
                extra = {'rep': rep}
                if strace:
                    port = ports.next()
                    wrap = [strace, '-f', '-ttt', '-y', '-e', 'trace=execve,write', '-s', '8', '-o', trace]
                    Pair(*pair_cmds(tool, name, args, port), port, wrap).run()
                    fp = first_post_s(trace)
                    extra['first_post_s'] = '%.3f' % fp if fp is not None else ''
                speed_row(w, '%s -s 2 -n 5 (setup)' % prog, tool, p, extra)


def speed_memory(w, ports, scratch, opts):
    """Peak RSS of the latency client: -n 1000 and -n 20000, one after the
    other (ours keeps every sample, 8 B each), then -D 10 and -D 60 (ours
    keeps a fixed histogram there) all at once, each pair on its own port:
    memory does not depend on speed, so the longest sets the time."""
    jobs = []
    for runlen in opts.mem_runs:
        args = ['-s', '2', '-I', '0'] + runlen.split()
        for tool in ('rdmabench', 'perftest'):
            port = ports.next()
            name = 'rb_send_lat' if tool == 'rdmabench' else 'ib_send_lat'
            rss_path = os.path.join(scratch, 'rss-%d.txt' % port)
            pair = Pair(*pair_cmds(tool, name, args, port), port, ['/usr/bin/time', '-v', '-o', rss_path])
            jobs.append((runlen, tool, pair, rss_path, threading.Thread(target=pair.run)))
    for j in jobs:
        if '-D' not in j[0]:
            j[4].start()
            j[4].join()
    for j in jobs:
        if '-D' in j[0]:
            j[4].start()
    for runlen, tool, pair, rss_path, t in jobs:
        t.join()
        speed_row(w, 'send_lat %s (peak RSS)' % runlen, tool, pair,
                  {'max_rss_kb': rss_kb(rss_path) or ''})


def speed_clock(w):
    """The suite's clock cost here, one row per clock the unit test measured
    (CLOCK_MONOTONIC, and the TSC where it calibrates), from its TAP
    diagnostics."""
    prog = os.path.join(vp.BIN, 'tests', 'unit', 'test_clock')
    if not os.access(prog, os.X_OK):
        log('no %s (make check builds it): skipping the clock cost' % prog)
        return
    out = subprocess.run([prog], capture_output=True, text=True).stdout
    src = sh('cat /sys/devices/system/clocksource/clocksource0/current_clocksource')
    found = re.findall(r'^# (\S+) clock_cost_ns: median ([0-9.]+) ns.*min ([0-9.]+), max ([0-9.]+)', out, re.M)
    auto = re.search(r'--clock=auto chose (\S+)', out)
    for clock, med, lo, hi in found:
        row = {'what': 'clock_cost_ns %s (test_clock)' % clock, 'tool': 'rdmabench',
               'rc': 0, 'clock_cost_ns': med,
               'note': 'min %s max %s; clocksource %s%s' % (lo, hi, src,
                       '; --clock=auto uses it' if auto and auto.group(1) == clock else '')}
        w.writerow(row)
        log('clock: %s' % row)
    if not found:
        w.writerow({'what': 'clock_cost_ns (test_clock)', 'tool': 'rdmabench', 'rc': 0,
                    'clock_cost_ns': '', 'note': out[-200:]})


SPEED_FIELDS = ['what', 'tool', 'rep', 'rc', 'wall_s', 'data_s', 'overhead_s', 'sizes',
                'first_post_s', 'max_rss_kb', 'clock_cost_ns', 'note']


def speed(opts):
    scratch = tempfile.mkdtemp(prefix='rb-vs-perftest.')
    ports = Ports()
    with open(os.path.join(opts.out, 'speed.csv'), 'w', newline='') as f:
        write_run_meta(f, opts)
        w = csv.DictWriter(f, SPEED_FIELDS, extrasaction='ignore')
        w.writeheader()
        for part in opts.speed_parts:
            {'clock': lambda: speed_clock(w), 'setup': lambda: speed_setup(w, ports, scratch, opts),
             'memory': lambda: speed_memory(w, ports, scratch, opts),
             'sweep': lambda: speed_sweeps(w, ports, scratch, opts)}[part]()
            f.flush()
    shutil.rmtree(scratch, ignore_errors=True)
    return 0

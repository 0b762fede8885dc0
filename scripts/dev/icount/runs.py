"""One case's pair under valgrind: the explicit parameters of either tool,
the server started and waited for, the client run with a deadline, the
measured side's callgrind output read and kept.  Runner numbers the ports
and records every run (runs.csv's rows); measure_case runs a case at N1 and
N2 messages and returns its rows of icount.csv and functions.csv."""

import json
import lzma
import os
import shutil
import subprocess
import time

from icount import (CASES, PERFTEST_CLOCK, PORT0, RB_CLOCK, RB_CLOCK_NAME, RB_TIMEOUT_S,
                    fmt, log)
from icount.callgrind import bucket_rows, parse_callgrind, per_function


def case_args(case, tool, n):
    """The explicit parameters of CASE for TOOL at N messages: perftest's
    bandwidth defaults (TX depth 128, CQ moderation 100, no inline: perftest
    cannot inline on rxe), and with a post list of 32 a CQ moderation of 32,
    as perftest wants the list a multiple of it."""
    ours, theirs, kind, side, plist = CASES[case]
    bench = ours[3:]
    args = [] if bench.startswith('atomic') else ['-s', '2']
    args += ['-n', str(n)]
    if kind == 'bw':
        args += ['-t', '128', '-Q', str(100 if plist == 1 else plist), '-l', str(plist)]
        args += [] if bench.startswith(('read', 'atomic')) else ['-I', '0']
        args += ['-r', '512'] if bench.startswith('send') else []
    elif bench in ('send_lat', 'write_lat'):
        args += ['-I', '0']
    if tool == 'rdmabench':
        return args + ['--timeout', str(RB_TIMEOUT_S), '--clock=' + RB_CLOCK, '--json'] + \
            (['--warmup=0'] if kind == 'lat' else [])
    return args + ['-F'] + (['-N'] if kind == 'bw' else [])


def device_args():
    return ['-d', os.environ.get('RB_DEV', 'rxe0'), '-x', os.environ.get('RB_GID_INDEX', '1')]


def listening(port):
    """True when a TCP socket listens on PORT (read from /proc: perftest's
    server accepts exactly one connection, so no probe)."""
    for name in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(name) as f:
                for line in f.readlines()[1:]:
                    p = line.split()
                    if p[3] == '0A' and int(p[1].rsplit(':', 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


def valgrind_argv(outfile):
    return ['valgrind', '--tool=callgrind', '--dump-instr=no', '--callgrind-out-file=' + outfile]


def run_pair(server, client, port, timeout):
    """Runs SERVER, waits until it listens, runs CLIENT; returns (rc, wall
    seconds, stderr of both, (server's stdout, client's stdout)).  Every
    wait has a deadline."""
    t0 = time.monotonic()
    srv = subprocess.Popen(server, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True)
    deadline = t0 + 120
    while not listening(port) and time.monotonic() < deadline and srv.poll() is None:
        time.sleep(0.1)
    try:
        cli = subprocess.run(client, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, timeout=timeout)
        rc, err, cout = cli.returncode, cli.stderr, cli.stdout
    except subprocess.TimeoutExpired:
        rc, err, cout = 124, 'client timed out after %d s' % timeout, ''
    try:
        sout, serr = srv.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        srv.kill()
        sout, serr = srv.communicate()
        serr += '\nserver killed: still running 120 s after the client'
        rc = rc or 124
    rc = rc or srv.returncode
    return rc, time.monotonic() - t0, err + serr, (sout, cout)


def report_meta(stdout):
    """The meta of the first --json document on STDOUT ({} when none)."""
    dec, i = json.JSONDecoder(), 0
    while True:
        i = stdout.find('{', i)
        if i < 0:
            return {}
        try:
            doc, end = dec.raw_decode(stdout, i)
        except ValueError:
            i += 1
            continue
        if isinstance(doc, dict) and isinstance(doc.get('meta'), dict):
            return doc['meta']
        i = end


def keep_callgrind(src, dest):
    """Compresses callgrind's output SRC into DEST (xz); '' when it fails."""
    try:
        with open(src, 'rb') as f, lzma.open(dest, 'wb', preset=9) as g:
            shutil.copyfileobj(f, g)
        return dest
    except OSError as e:
        log('cannot keep %s: %s' % (src, e))
        return ''


class Runner:
    def __init__(self, opts, boot, scratch):
        self.opts, self.boot, self.scratch, self.port = opts, boot, scratch, PORT0
        self.runs = []

    def program(self, case, tool):
        ours, theirs = CASES[case][:2]
        return os.path.join(self.opts.bin, ours) if tool == 'rdmabench' else theirs

    def measure(self, case, tool, n):
        """One run at N messages; returns its profile (None on failure)."""
        self.port += 1
        side = CASES[case][3]
        prog = self.program(case, tool)
        base = [prog] + device_args() + case_args(case, tool, n) + ['-p', str(self.port)]
        out = os.path.join(self.scratch, '%s-%s-%d.cg' % (case, tool, n))
        vg = valgrind_argv(out)
        server = (vg if side == 'server' else []) + base
        client = (vg if side == 'client' else []) + base + [os.environ.get('RB_IP', '192.0.2.1')]
        rc, wall, err, stdouts = run_pair(server, client, self.port, self.opts.run_timeout)
        meta = report_meta(stdouts[side == 'client']) if tool == 'rdmabench' else {}
        clock = meta.get('clock', '?') if tool == 'rdmabench' else PERFTEST_CLOCK
        prof = None
        if rc == 0 and tool == 'rdmabench' and clock != RB_CLOCK_NAME:
            rc, err = 1, 'the run used the clock %s, not %s (--clock=%s)' % (clock, RB_CLOCK_NAME, RB_CLOCK)
        if rc == 0:
            try:
                prof = parse_callgrind(out)
            except (OSError, ValueError) as e:
                rc, err = 1, str(e)
        kept = ''
        if prof and self.opts.keep_raw:
            os.makedirs(os.path.join(self.opts.out, 'callgrind'), exist_ok=True)
            kept = keep_callgrind(out, os.path.join(self.opts.out, 'callgrind', 'boot%d-%s-%s-%d.cg.xz'
                                                    % (self.boot, case, tool, n)))
        cmd = ' '.join(server if side == 'server' else client)
        self.runs.append({'boot': self.boot, 'case': case, 'tool': tool, 'side': side,
                          'messages': n, 'rc': rc, 'wall_s': '%.1f' % wall,
                          'ir_total': prof.total if prof else '', 'clock': clock,
                          'commit': meta.get('commit', ''),
                          'callgrind': os.path.relpath(kept, self.opts.out) if kept else '',
                          'command': cmd})
        log('boot %d %s %s n=%d: rc %d, %.1f s%s' % (self.boot, case, tool, n, rc, wall,
            ', Ir %d' % prof.total if prof else ''))
        if rc != 0:
            log('failed: %s\n%s' % (cmd, err.strip()[-2000:]))
        if os.path.exists(out):
            os.remove(out)
        return prof


def measure_case(runner, case, tool):
    """(icount rows, function rows) of one case and tool, or None."""
    n1, n2 = runner.opts.iters[CASES[case][2]]
    p1 = runner.measure(case, tool, n1)
    p2 = runner.measure(case, tool, n2) if p1 else None
    if not p2:
        return None
    c1, c2 = runner.runs[-2]['commit'], runner.runs[-1]['commit']
    if c1 != c2:
        runner.runs[-1]['rc'] = 1
        log('boot %d %s %s: the program changed between its two runs (commit %s, then %s): no figures'
            % (runner.boot, case, tool, c1, c2))
        return None
    prog = os.path.basename(runner.program(case, tool))
    head = {'boot': runner.boot, 'case': case, 'tool': tool, 'program': prog,
            'side': CASES[case][3], 'n1_msgs': n1, 'n2_msgs': n2}
    rows = [dict(head, bucket=b, instr_per_msg=fmt(v), ir_n1=a, ir_n2=z)
            for b, v, a, z in bucket_rows(p1, p2, n1, n2, prog)]
    funcs = [(k, (v[1] - v[0]) / float(n2 - n1), v) for k, v in per_function(p1, p2, prog).items()
             if round(v[0]) != round(v[1])]
    top = sorted(funcs, key=lambda f: -abs(f[1]))
    top = top[:runner.opts.top] if runner.opts.top else top
    frows = [{'boot': runner.boot, 'case': case, 'tool': tool, 'bucket': k[2],
              'object': os.path.basename(k[0] or '???'), 'function': k[1],
              'instr_per_msg': fmt(v), 'ir_n1': round(ir[0]), 'ir_n2': round(ir[1])}
             for k, v, ir in top]
    return rows, frows

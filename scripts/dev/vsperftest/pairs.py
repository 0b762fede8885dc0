"""rb-vs-perftest: one server/client pair of either tool, run with the same
explicit parameters, each pair on a port of its own."""

import os
import subprocess
import time

import vsperftest as vp
from vsperftest import BW_ITERS, LAT_ITERS, PORT0, TESTS


def common_args(test, size):
    """perftest's defaults (reference/perftest.md section 2), passed to both.

    bw: TX depth 128; CQ moderation 100, or 1 above 8 KiB as perftest forces
    it when -Q is not given; inline 0, since perftest cannot inline on rxe
    (unknown vendor: "Device not recognized to implement inline feature"),
    so ours must not either; send: RX depth 512.  lat: TX depth 1, and for
    send and write, inline 0 for the same reason.  read_lat accepts no -I.
    """
    kind = TESTS[test][2]
    if kind == 'bw':
        args = ['-s', str(size), '-n', str(BW_ITERS[size]), '-t', '128',
                '-Q', '1' if size > 8192 else '100', '-I', '0']
        return args + (['-r', '512'] if test == 'send_bw' else [])
    args = ['-s', str(size), '-n', str(LAT_ITERS), '-t', '1']
    return args + (['-I', '0'] if test in ('send_lat', 'write_lat') else [])


def device_args():
    return ['-d', os.environ.get('RB_DEV', 'rxe0'), '-x', os.environ.get('RB_GID_INDEX', '1')]


def pair_cmds(tool, prog, args, port, csv_path=None):
    """(server argv, client argv) of one run of tool's prog.  Ours: perftest
    has no warm-up, ours would skip 100 latency iterations first, so
    --warmup=0 (latency programs only, and not with -D, whose warm-up is
    --warmup-time); the client writes csv_path.  perftest: -F, as its CPU
    frequency check only prints a warning under emulation."""
    if tool == 'rdmabench':
        warmup = ['--warmup=0'] if prog.endswith('_lat') and '-D' not in args else []
        server = [os.path.join(vp.BIN, prog)] + device_args() + args + ['-p', str(port)] + warmup
        client = server + (['--csv=' + csv_path] if csv_path else [])
    else:
        server = client = [prog] + device_args() + args + ['-p', str(port), '-F']
    return server, client + [rb_ip()]


def rb_ip():
    return os.environ.get('RB_IP', '192.0.2.1')


def listening(port):
    """True when a TCP socket listens on port (from /proc, so no probe
    connection: perftest's server accepts exactly one client)."""
    for f in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(f) as fh:
                for line in fh.readlines()[1:]:
                    p = line.split()
                    if p[3] == '0A' and int(p[1].rsplit(':', 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


class Pair:
    """Runs SERVER then CLIENT (the same argv plus the server's address)."""

    timeout_s = 300         # one client's limit (--run-timeout)

    def __init__(self, server, client, port, wrap=None):
        self.server, self.client, self.port, self.wrap = server, client, port, wrap or []
        self.rc = self.wall_s = None
        self.out = self.err = self.server_out = ''

    def run(self):
        srv = subprocess.Popen(self.server, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + 20
        while not listening(self.port) and time.monotonic() < deadline and srv.poll() is None:
            time.sleep(0.05)
        t0 = time.monotonic()
        try:
            cli = subprocess.run(self.wrap + self.client, capture_output=True, text=True,
                                 timeout=self.timeout_s, stdin=subprocess.DEVNULL)
            self.rc, self.out, self.err = cli.returncode, cli.stdout, cli.stderr
        except subprocess.TimeoutExpired:
            self.rc, self.err = 124, 'client timed out'
        self.wall_s = time.monotonic() - t0
        try:
            self.server_out = srv.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            srv.kill()
            self.server_out = srv.communicate()[0]
            self.rc = self.rc or 124
        return self


class Ports:
    """A new TCP port per pair, so no pair waits on the last one's TIME_WAIT."""

    def __init__(self):
        self.n = 0

    def next(self):
        self.n += 1
        return PORT0 + self.n % 200

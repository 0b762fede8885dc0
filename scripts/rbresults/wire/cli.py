"""rb-wire's two commands: capture (tcpdump around a command, then the
analysis) and analyse (a capture file); options and exit statuses."""

import argparse
import os
import signal
import subprocess
import sys
import threading
import time

from . import PROG
from .ib import ROCE_PORT
from .pcap import CaptureError
from .analyse import analyse
from .report import check_result, emit, load_result, report

def warn(msg):
    sys.stderr.write('%s: %s\n' % (PROG, msg))


def run_analysis(a):
    """Analyse a.pcap and print; the exit status (0 or 1)."""
    try:
        reader, flows, seen = analyse(a.pcap)
        if not seen['roce']:
            raise CaptureError('%s: no RoCE v2 packet (UDP port %d) among its %d frames%s'
                               % (a.pcap, ROCE_PORT, seen['frames'],
                                  '; %s' % reader.truncated if reader.truncated else ''))
        doc = report(flows, seen, reader, None, a.build)
        if a.result:
            doc['result_check'] = check_result(load_result(a.result), doc['total'])
    except CaptureError as e:
        warn(str(e))
        emit(None, a.format, 'failed', str(e))
        return 1
    status, error = 'complete', None
    problems = notes(doc, reader, seen)
    for p in problems:
        warn(p)
    if reader.truncated:
        status, error = 'partial', reader.truncated
    elif any(not c['match'] for c in (doc.get('result_check') or {}).get('rows', [])):
        status, error = 'mismatch', 'the wire does not hold the messages the benchmark counted'
    emit(doc, a.format, status, error)
    return 0 if status == 'complete' else 1


def notes(doc, reader, seen):
    out = []
    if reader.truncated:
        out.append('%s: %s; the figures cover what comes before' % (reader.path, reader.truncated))
    if seen['short']:
        out.append('%d RoCE v2 frames cut before their headers ended (snap length too small?): '
                   'left out of the figures' % seen['short'])
    if doc['total']['incomplete_messages']:
        out.append('%d messages with a PSN missing from the capture: not counted as messages'
                   % doc['total']['incomplete_messages'])
    if doc['total']['unknown_opcode_packets']:
        out.append('%d packets with an opcode this tool does not know (counted, not decoded)'
                   % doc['total']['unknown_opcode_packets'])
    for c in (doc.get('result_check') or {}).get('rows', []):
        if not c['match']:
            out.append('mismatch at %d B: the benchmark counted %d %s messages, the wire holds %d'
                       % (c['size_bytes'], c['bench_messages'], c['operation'], c['wire_messages']))
    return out


def start_tcpdump(a):
    """tcpdump, once it says it is listening; raises CaptureError."""
    # --immediate-mode: else the packets of a partly filled ring block are
    # still in the kernel when SIGINT ends the capture (seen: 104 of 240)
    cmd = ['tcpdump', '-i', a.interface, '-w', a.output, '-s', str(a.snaplen), '-U', '-n',
           '--immediate-mode']
    if os.geteuid() == 0:
        cmd += ['-Z', 'root']  # else it drops to user tcpdump before opening -w
    cmd.append('udp port %d' % ROCE_PORT)
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise CaptureError('cannot run tcpdump: %s (Debian: apt-get install tcpdump)' % e.strerror)
    lines, ready, listening = [], threading.Event(), []

    def pump():
        for line in p.stderr:
            lines.append(line.rstrip('\n'))
            if 'listening on' in line:
                listening.append(True)
                ready.set()
        ready.set()
    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    if not ready.wait(a.capture_timeout) or not listening:
        stop(p, 1)
        raise CaptureError('tcpdump on %s did not start (deadline %g s): %s'
                           % (a.interface, a.capture_timeout, '; '.join(lines) or 'no message'))
    return p, lines, reader


def drain(path, deadline, quiet=0.5):
    """Wait until the capture file has not grown for quiet seconds (at most
    deadline): tcpdump may lag behind the kernel's ring, e.g. on one CPU the
    benchmark kept busy, and SIGINT drops what it has not read yet (seen:
    the last 40 % of a run)."""
    end, last, since = time.time() + deadline, -1, time.time()
    while time.time() < end:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = -1
        if size != last:
            last, since = size, time.time()
        elif time.time() - since >= quiet:
            return
        time.sleep(0.05)


def stop(p, deadline):
    """SIGINT, then SIGKILL after deadline seconds; its exit status or None."""
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        return p.wait(deadline)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


def check_counts(lines, iface):
    """tcpdump's closing counts: a packet the filter took but the file lacks
    is a hole in the figures, said on stderr."""
    counts = {}
    for line in lines:
        words = line.split()
        if len(words) > 2 and words[0].isdigit():
            counts[' '.join(words[1:])] = int(words[0])
    got = counts.get('packets captured')
    took = counts.get('packets received by filter')
    lost = counts.get('packets dropped by kernel', 0) + counts.get('packets dropped by interface', 0)
    if got is None:
        warn('tcpdump did not say how many packets it captured: %s' % '; '.join(lines[-3:]))
    elif lost:
        warn('tcpdump: %d packets captured, %d dropped by the kernel or the interface: '
             'the capture misses packets' % (got, lost))
    elif took is not None and took > got and iface != 'lo':
        # (on lo the filter sees each packet twice, going out and coming in)
        warn('tcpdump: %d packets captured of %d the filter took: the capture misses the '
             'rest (still in the kernel when tcpdump stopped)' % (got, took))


def run_capture(a):
    """Capture around the command, analyse; the command's exit status or 1."""
    try:
        tcpdump, lines, reader = start_tcpdump(a)
    except CaptureError as e:
        warn(str(e))
        emit(None, a.format, 'failed', str(e))
        return 1
    t0 = time.time()
    warn('tcpdump listening on %s after %.2f s' % (a.interface, t0 - a.t_start))
    try:
        # the command's own output goes to stderr: stdout is the summary's
        rc = subprocess.call(a.command, stdout=sys.stderr.fileno())
    except OSError as e:
        warn('cannot run %s: %s' % (a.command[0], e.strerror))
        rc = 127
    except KeyboardInterrupt:
        rc = 130
    took = time.time() - t0
    t1 = time.time()
    drain(a.output, a.capture_timeout)
    st = stop(tcpdump, a.capture_timeout)
    reader.join(2)  # its last words: the packet counts
    warn('tcpdump stopped %.2f s after the command' % (time.time() - t1))
    if st is None or st not in (0, 130, -2):
        warn('tcpdump on %s did not end cleanly (status %s): %s'
             % (a.interface, st, '; '.join(lines[-3:])))
        emit(None, a.format, 'failed', 'tcpdump failed')
        return 1
    check_counts(lines, a.interface)
    warn('%s ran %.2f s (exit status %d); captured into %s' % (a.command[0], took, rc, a.output))
    a.pcap = a.output
    got = run_analysis(a)
    return rc if rc else got


def parse_args(argv, build):
    command = []
    if '--' in argv:
        i = argv.index('--')
        argv, command = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(
        prog=PROG, description='What a run put on the wire: a RoCE v2 capture, summarised.',
        usage='%(prog)s capture -i IFACE -o FILE [options] -- COMMAND...\n'
              '       %(prog)s analyse FILE [options]',
        epilog='Exit status: capture: the command\'s, or 1 when the capture failed; '
        'analyse: 0, or 1 when the file cannot be read, holds no RoCE v2 packet, is cut '
        'short or does not match --result; 2 usage error.')
    p.add_argument('mode', choices=['capture', 'analyse', 'analyze'], metavar='capture|analyse')
    p.add_argument('pcap', nargs='?', metavar='FILE', help='(analyse) the pcap or pcapng file')
    p.add_argument('--version', action='version', version='%s (rdmabench) %s (commit %s)' % (PROG, build[0], build[1]))
    p.add_argument('-i', '--interface', metavar='IFACE', help='(capture) the interface to listen on')
    p.add_argument('-o', '--output', metavar='FILE', help='(capture) the pcap file to write')
    p.add_argument('-s', '--snaplen', type=int, default=128, metavar='BYTES',
                   help='(capture) bytes kept of each frame (default 128: the headers)')
    p.add_argument('--capture-timeout', type=float, default=10.0, metavar='SECONDS',
                   help='(capture) deadline for tcpdump to start and to stop (default 10)')
    p.add_argument('--csv', dest='format', action='store_const', const='csv', help='CSV on stdout')
    p.add_argument('--json', dest='format', action='store_const', const='json', help='JSON on stdout')
    p.add_argument('--result', metavar='FILE',
                   help="the benchmark's CSV or JSON: its message counts against the wire's")
    a = p.parse_args(argv)
    a.command, a.build = command, build
    check_args(p, a)
    return a


def check_args(p, a):
    if a.mode == 'capture':
        if not a.interface or not a.output:
            p.error('capture needs -i IFACE and -o FILE (e.g. -i eth0 -o run.pcap)')
        if a.pcap:
            p.error('capture takes no FILE (it writes -o FILE); the command goes after --')
        if not a.command:
            p.error('capture needs a command after -- (e.g. -- rb_send_lat ... HOST)')
        if not 64 <= a.snaplen <= 262144:
            p.error('--snaplen %d: 64..262144 bytes' % a.snaplen)
        if not 0 < a.capture_timeout <= 3600:
            p.error('--capture-timeout %g: more than 0, at most 3600 seconds' % a.capture_timeout)
    else:
        if not a.pcap:
            p.error('analyse needs a FILE (a pcap or pcapng capture)')
        if a.command or a.interface or a.output:
            p.error('analyse takes a FILE only: -i, -o and a command are for capture')


def main(argv, version, commit):
    """rb-wire ARGV; version and commit: the rdmabench it belongs to."""
    t_start = time.time()
    a = parse_args(argv, (version, commit))
    a.t_start = t_start
    try:
        return run_capture(a) if a.mode == 'capture' else run_analysis(a)
    except BrokenPipeError:
        return 1

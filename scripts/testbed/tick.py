#!/usr/bin/python3
"""rb-testbed guest: an interrupt every PERIOD_US of a running process.

    python3 tick.py PERIOD_US STATUS_FILE PID

qemu's single TCG thread (rb-testbed --tcg single) runs one vCPU at a time
and moves to the next only when the running one halts or takes an
interrupt.  Two processes busy-polling on two vCPUs (a latency ping-pong:
each waits for the other's message) then see each other only at the
kernel's tick, every 4 ms (HZ=250): rb_send_lat's median was 3993 us
one-way, against 70 us with completion events.  An interrupt every
PERIOD_US of a running process hands the thread over that often.

The interrupt is a perf task-clock event on PID (the test bed's stage 2),
inherited by every process it starts from then on, sampling every
PERIOD_US into no ring buffer: an hrtimer that runs only while one of them
runs, handled in the kernel.  (A cpu-clock event per CPU fires in idle
too: 13 % of a host core for an idle guest; a process woken every 250 us
made process starts 4.6 times slower.)  Each context switch of a process
carrying the event reprograms the timer, which is dear under emulation:
rb-testbed leaves it off unless asked (--tick).

Writes "tick=PERIOD_US us ..." or "tick failed: REASON" to STATUS_FILE,
then sleeps, holding the event, until the guest powers off.
"""
import ctypes
import os
import signal
import struct
import sys

SYS_PERF_EVENT_OPEN = 298  # x86_64, the test bed's only architecture
PERF_TYPE_SOFTWARE = 1
PERF_COUNT_SW_TASK_CLOCK = 1
INHERIT = 1 << 1  # perf_event_attr's flags: disabled is bit 0, inherit bit 1
ATTR_SIZE = 64  # PERF_ATTR_SIZE_VER0


def attr(period_ns):
    """A perf_event_attr: task-clock, a sample each period_ns, inherited."""
    head = struct.pack("IIQQQQQ", PERF_TYPE_SOFTWARE, ATTR_SIZE,
                       PERF_COUNT_SW_TASK_CLOCK, period_ns, 0, 0, INHERIT)
    return ctypes.create_string_buffer(head.ljust(ATTR_SIZE, b"\0"), ATTR_SIZE)


def open_event(period_us, pid):
    """The event on pid, any CPU; returns its descriptor (kept open)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.syscall(SYS_PERF_EVENT_OPEN, attr(period_us * 1000), pid, -1, -1, 0)
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, "perf_event_open on pid %d: %s" % (pid, os.strerror(err)))
    return fd


def main():
    period_us, status, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    try:
        open_event(period_us, pid)
    except OSError as e:
        with open(status, "w") as f:
            f.write("tick failed: %s\n" % e.strerror)
        return 1
    with open(status, "w") as f:
        f.write("tick=%d us of each process's CPU\n" % period_us)
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())

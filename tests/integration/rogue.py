#!/usr/bin/env python3
"""rogue.py CASE HOST PORT: a client that breaks the rdmabench OOB protocol
one way (CASE), for robust/rogue.sh.  Prints one line saying what it did and
how the server answered.

The wire format (src/lib/wire.h): a 12-byte big-endian header, u32 magic
0x52444D42 ("RDMB"), u16 version 1, u16 type (1 HELLO, 2 QP, 3 READY,
4 DONE, 5 ERROR, 6 BUSY, 7 RESULT), u32 payload length <= 65536; then the
payload.  The server sends its HELLO first; the echo cases send it back, so
that the server goes on to the step they break."""
import socket
import struct
import sys
import time

MAGIC, VERSION = 0x52444D42, 1
HELLO, QP, READY, DONE, ERROR = 1, 2, 3, 4, 5
QP_LEN = 44


def hdr(type_, length, magic=MAGIC, version=VERSION):
    return struct.pack(">IHHI", magic, version, type_, length)


def frame(type_, payload=b""):
    return hdr(type_, len(payload)) + payload


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("server closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def recv_frame(s):
    magic, version, type_, length = struct.unpack(">IHHI", recv_exact(s, 12))
    if magic != MAGIC or version != VERSION:
        raise ValueError("server sent a bad header")
    return type_, recv_exact(s, length)


def until_closed(s, limit=20):
    """Wait for the server to hang up; what it sent meanwhile, and when."""
    t0, got = time.monotonic(), b""
    s.settimeout(limit)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    return "server closed after %.1f s (%d more bytes)" % (time.monotonic() - t0, len(got))


def hello_echo(s):
    """Read the server's HELLO and send it back unchanged."""
    type_, payload = recv_frame(s)
    assert type_ == HELLO, type_
    s.sendall(frame(HELLO, payload))
    return payload


def qp_of_server(s):
    type_, payload = recv_frame(s)
    assert type_ == QP, type_
    return payload


def main():
    case, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with socket.create_connection((host, port), timeout=20) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        play(case, s)


def play(case, s):
    """Break the protocol one way on the connection s, print what happened."""
    if case == "garbage":
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    elif case == "magic":
        s.sendall(hdr(HELLO, 0, magic=0xDEADBEEF))
    elif case == "version":
        s.sendall(hdr(HELLO, 0, version=2))
    elif case == "length-4g":
        s.sendall(hdr(HELLO, 0xFFFFFFFF) + b"\0" * 1000)
    elif case == "type":
        s.sendall(hdr(99, 0))
    elif case == "truncated":
        s.sendall(hdr(HELLO, 100) + b"\1" * 10)     # ... and the rest never comes
    elif case == "disconnect":
        s.sendall(hdr(HELLO, 100) + b"\1" * 10)
        s.close()
        print("sent 10 of 100 payload bytes, then closed")
        return
    elif case == "silent":
        pass
    elif case == "header-half":
        s.sendall(hdr(HELLO, 0)[:6])
        time.sleep(0.2)
        s.close()
        print("sent 6 of 12 header bytes, then closed")
        return
    elif case == "hello-count":
        s.sendall(frame(HELLO, struct.pack(">H", 65535)))
    elif case == "hello-big":
        s.sendall(frame(HELLO, b"\xff" * 65536))
    elif case == "hello-name":
        payload = bytearray(recv_frame(s)[1])
        count = struct.unpack(">H", payload[:2])[0]
        at = 2 + 10 * count
        name = b"rb_\x1b[31mevil"
        s.sendall(frame(HELLO, bytes(payload[:at]) + bytes([len(name)]) + name))
    elif case == "hello-params":
        payload = bytearray(recv_frame(s)[1])
        count = struct.unpack(">H", payload[:2])[0]
        for i in range(count):      # every value + 1; the first id unknown
            off = 2 + 10 * i + 2
            v = struct.unpack(">Q", payload[off:off + 8])[0]
            payload[off:off + 8] = struct.pack(">Q", (v + 1) & (2**64 - 1))
        payload[2:4] = struct.pack(">H", 999)
        s.sendall(frame(HELLO, bytes(payload)))
    elif case == "error-frame":
        msg = b"\x1b[2Jgo away"
        s.sendall(frame(ERROR, struct.pack(">H", len(msg)) + msg))
    elif case in ("qp-count", "qp-length", "qp-values", "ready-then-close"):
        hello_echo(s)
        qp = bytearray(qp_of_server(s))
        if case == "qp-count":          # two QPs for a server that has one
            s.sendall(frame(QP, struct.pack(">H", 2) + bytes(qp[2:]) * 2))
        elif case == "qp-length":       # one QP and 100 stray bytes
            s.sendall(frame(QP, bytes(qp) + b"\0" * 100))
        elif case == "qp-values":       # 32-bit QPN and PSN, an MTU of 1000
            qp[2:6] = struct.pack(">I", 0xFFFFFFFF)
            qp[6:10] = struct.pack(">I", 0xFFFFFFFF)
            qp[2 + 38:2 + 42] = struct.pack(">I", 1000)
            s.sendall(frame(QP, bytes(qp)))
        else:                           # its own QP back, READY, then gone
            s.sendall(frame(QP, bytes(qp)))
            s.sendall(frame(READY))
            time.sleep(0.5)
            s.close()
            print("echoed HELLO and QP, sent READY, closed")
            return
    else:
        sys.exit("rogue.py: unknown case " + case)
    print(until_closed(s))


if __name__ == "__main__":
    main()

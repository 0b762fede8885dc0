"""rb-wire: frames out of a pcap or pcapng file, and from a frame (Ethernet,
Linux cooked) through IPv4/IPv6 and UDP to the BTH."""

import struct

from .ib import ETH_HDR, ICRC, opcode_info

class CaptureError(Exception):
    """A file that cannot be read as a capture."""


class Frame:
    __slots__ = ('ts', 'link', 'data', 'orig_len')

    def __init__(self, ts, link, data, orig_len):
        self.ts, self.link, self.data, self.orig_len = ts, link, data, orig_len


class Reader:
    """Frames of a pcap or pcapng file; .truncated says the file ended mid-record."""

    def __init__(self, path):
        self.path, self.truncated, self.format = path, None, None
        try:
            with open(path, 'rb') as f:
                self.buf = f.read()
        except OSError as e:
            raise CaptureError('%s: %s' % (path, e.strerror))

    def frames(self):
        head = self.buf[:4]
        if len(self.buf) < 4:
            raise CaptureError('%s: %d bytes: too short for a pcap file' % (self.path, len(self.buf)))
        if head == b'\x0a\x0d\x0d\x0a':
            self.format = 'pcapng'
            return self.pcapng()
        for endian in ('<', '>'):
            magic = struct.unpack(endian + 'I', head)[0]
            if magic in (0xA1B2C3D4, 0xA1B23C4D):
                self.format = 'pcap'
                return self.pcap(endian, 1e-9 if magic == 0xA1B23C4D else 1e-6)
        raise CaptureError('%s: not a pcap or pcapng file (magic %s)' % (self.path, head.hex()))

    def cut(self, what, at):
        self.truncated = '%s cut short at byte %d of %d' % (what, at, len(self.buf))

    def pcap(self, e, tick):
        buf = self.buf
        if len(buf) < 24:
            raise CaptureError('%s: the pcap header is cut short (%d of 24 bytes)' % (self.path, len(buf)))
        link = struct.unpack(e + 'I', buf[20:24])[0] & 0xFFFF
        pos = 24
        while pos < len(buf):
            if pos + 16 > len(buf):
                self.cut('a record header', pos)
                return
            sec, frac, incl, orig = struct.unpack(e + 'IIII', buf[pos:pos + 16])
            if pos + 16 + incl > len(buf):
                self.cut('a record of %d bytes' % incl, pos)
                return
            if incl > 262144 * 4:
                raise CaptureError('%s: a record of %d bytes at byte %d: the file is corrupt'
                                   % (self.path, incl, pos))
            yield Frame(sec + frac * tick, link, buf[pos + 16:pos + 16 + incl], orig)
            pos += 16 + incl

    def pcapng(self):
        buf, pos, e, ifaces = self.buf, 0, '<', []
        while pos < len(buf):
            if pos + 12 > len(buf):
                self.cut('a block header', pos)
                return
            btype = struct.unpack(e + 'I', buf[pos:pos + 4])[0]
            if btype == 0x0A0D0D0A:
                bom = buf[pos + 8:pos + 12]
                e = {b'\x4d\x3c\x2b\x1a': '<', b'\x1a\x2b\x3c\x4d': '>'}.get(bom)
                if e is None:
                    raise CaptureError('%s: pcapng section at byte %d: bad byte-order magic' % (self.path, pos))
                ifaces = []
            blen = struct.unpack(e + 'I', buf[pos + 4:pos + 8])[0]
            if blen < 12 or blen % 4:
                raise CaptureError('%s: pcapng block of %d bytes at byte %d: the file is corrupt'
                                   % (self.path, blen, pos))
            if pos + blen > len(buf):
                self.cut('a block of %d bytes' % blen, pos)
                return
            body = buf[pos + 8:pos + blen - 4]
            frame = self.ng_block(btype, body, e, ifaces)
            if frame is not None:
                yield frame
            pos += blen

    def ng_block(self, btype, body, e, ifaces):
        if btype == 1 and len(body) >= 8:
            link = struct.unpack(e + 'H', body[0:2])[0]
            ifaces.append((link, ng_resolution(body[8:], e)))
        elif btype == 6 and len(body) >= 20:
            iface, hi, lo, cap, orig = struct.unpack(e + 'IIIII', body[:20])
            if iface >= len(ifaces) or 20 + cap > len(body):
                raise CaptureError('%s: a pcapng packet block names interface %d or overruns its block'
                                   % (self.path, iface))
            link, tick = ifaces[iface]
            return Frame(((hi << 32) | lo) * tick, link, body[20:20 + cap], orig)
        elif btype == 3 and len(body) >= 4 and ifaces:
            orig = struct.unpack(e + 'I', body[:4])[0]
            return Frame(0.0, ifaces[0][0], body[4:4 + orig], orig)
        return None


def ng_resolution(opts, e):
    """The if_tsresol option of an interface block (default microseconds)."""
    pos = 0
    while pos + 4 <= len(opts):
        code, length = struct.unpack(e + 'HH', opts[pos:pos + 4])
        if code == 0:
            break
        if code == 9 and length >= 1:
            v = opts[pos + 4]
            return 2.0 ** -(v & 0x7F) if v & 0x80 else 10.0 ** -v
        pos += 4 + (length + 3) // 4 * 4
    return 1e-6


# --- from a frame to the BTH ------------------------------------------------------

LINK_NAMES = {1: 'Ethernet', 113: 'Linux cooked (SLL)', 276: 'Linux cooked v2 (SLL2)',
              101: 'raw IP', 12: 'raw IP', 228: 'raw IPv4', 229: 'raw IPv6'}


class Packet:
    __slots__ = ('ts', 'src', 'dst', 'ecn', 'bytes', 'roce', 'snap', 'sport', 'ttl', 'flow_label')


def link_payload(link, d):
    """(ethertype, offset of the IP header, L2 bytes on an Ethernet wire), or None."""
    if link == 1:
        off, etype = 12, None
        while off + 2 <= len(d):
            etype = struct.unpack('>H', d[off:off + 2])[0]
            if etype not in (0x8100, 0x88A8, 0x9100):
                return etype, off + 2, off + 2
            off += 4
        return None
    if link == 113 and len(d) >= 16:
        return struct.unpack('>H', d[14:16])[0], 16, ETH_HDR
    if link == 276 and len(d) >= 20:
        return struct.unpack('>H', d[0:2])[0], 20, ETH_HDR
    if link in (101, 12, 228, 229) and d:
        return (0x0800 if d[0] >> 4 == 4 else 0x86DD), 0, ETH_HDR
    return None


def ip_udp(etype, d, off):
    """(src, dst, ecn, IP bytes, UDP offset, TTL or hop limit, IPv6 flow label
    or None) or None (not UDP)."""
    if etype == 0x0800 and len(d) >= off + 20:
        ihl = (d[off] & 0x0F) * 4
        total = struct.unpack('>H', d[off + 2:off + 4])[0]
        frag = struct.unpack('>H', d[off + 6:off + 8])[0]
        if d[off + 9] != 17 or frag & 0x3FFF:
            return None
        src, dst = ipv4(d[off + 12:off + 16]), ipv4(d[off + 16:off + 20])
        return src, dst, d[off + 1] & 3, total, off + ihl, d[off + 8], None
    if etype == 0x86DD and len(d) >= off + 40:
        plen = struct.unpack('>H', d[off + 4:off + 6])[0]
        nxt, pos = d[off + 6], off + 40
        while nxt in (0, 43, 60) and len(d) >= pos + 2:
            nxt, pos = d[pos], pos + (d[pos + 1] + 1) * 8
        if nxt != 17:
            return None
        word = struct.unpack('>I', d[off:off + 4])[0]
        ecn = (word >> 20) & 3
        return (ipv6(d[off + 8:off + 24]), ipv6(d[off + 24:off + 40]), ecn, 40 + plen, pos,
                d[off + 7], word & 0xFFFFF)
    return None


def ipv4(b):
    return '.'.join(str(x) for x in b)


def ipv6(b):
    words = struct.unpack('>8H', b)
    best, run = (0, 0), None
    for i, w in enumerate(words + (1,)):
        if w == 0 and run is None:
            run = i
        elif w != 0 and run is not None:
            if i - run > best[1] - best[0] and i - run > 1:
                best = (run, i)
            run = None
    text = [format(w, 'x') for w in words]
    if best[1]:
        return ':'.join(text[:best[0]]) + '::' + ':'.join(text[best[1]:])
    return ':'.join(text)


class Bth:
    __slots__ = ('opcode', 'pad', 'dqp', 'ackreq', 'psn', 'info', 'syndrome', 'dma_len',
                 'payload')


def parse_bth(d, off, udp_len):
    """The BTH and what follows it; raises ValueError when cut or inconsistent."""
    if len(d) < off + 12:
        raise ValueError('cut')
    b = Bth()
    b.opcode, flags = d[off], d[off + 1]
    b.pad = (flags >> 4) & 3
    b.dqp = struct.unpack('>I', d[off + 4:off + 8])[0] & 0xFFFFFF
    word = struct.unpack('>I', d[off + 8:off + 12])[0]
    b.ackreq, b.psn = bool(word >> 31), word & 0xFFFFFF
    b.info = opcode_info(b.opcode)
    ext = b.info[3] if b.info else 0
    b.payload = udp_len - 8 - 12 - ext - ICRC - b.pad
    if b.payload < 0:
        raise ValueError('UDP length %d too short for %s' % (udp_len, b.info[0] if b.info else 'BTH'))
    b.syndrome, b.dma_len = None, None
    fam = b.info[1] if b.info else None
    h = off + 12
    if fam in ('ACK', 'ATOMIC_ACK') or (fam == 'READ_RESPONSE' and b.info[2] != 'middle'):
        if len(d) < h + 1:
            raise ValueError('cut')
        b.syndrome = d[h]
    if b.info and b.info[2] in ('first', 'only', 'request') and fam in ('WRITE', 'READ'):
        if len(d) < h + 16:
            raise ValueError('cut')
        b.dma_len = struct.unpack('>I', d[h + 12:h + 16])[0]
    return b

"""rb-wire: the InfiniBand transport headers RoCE v2 carries (IBA vol. 1,
9.2 and annex A17): opcodes, their extended headers, NAK syndromes."""

ROCE_PORT = 4791
ICRC = 4
PSN_MASK = 0xFFFFFF
ETH_HDR = 14

# extended headers after the BTH, by the opcode's low 5 bits (RC/UC/RD/XRC)
RETH, AETH, IMM, IETH, ATOMIC, ATOMIC_ACK, DETH = 16, 4, 4, 4, 28, 8, 8
OPS = {
    0x00: ('SEND First', 'SEND', 'first', 0),
    0x01: ('SEND Middle', 'SEND', 'middle', 0),
    0x02: ('SEND Last', 'SEND', 'last', 0),
    0x03: ('SEND Last with Immediate', 'SEND', 'last', IMM),
    0x04: ('SEND Only', 'SEND', 'only', 0),
    0x05: ('SEND Only with Immediate', 'SEND', 'only', IMM),
    0x06: ('RDMA WRITE First', 'WRITE', 'first', RETH),
    0x07: ('RDMA WRITE Middle', 'WRITE', 'middle', 0),
    0x08: ('RDMA WRITE Last', 'WRITE', 'last', 0),
    0x09: ('RDMA WRITE Last with Immediate', 'WRITE', 'last', IMM),
    0x0A: ('RDMA WRITE Only', 'WRITE', 'only', RETH),
    0x0B: ('RDMA WRITE Only with Immediate', 'WRITE', 'only', RETH + IMM),
    0x0C: ('RDMA READ Request', 'READ', 'request', RETH),
    0x0D: ('RDMA READ Response First', 'READ_RESPONSE', 'first', AETH),
    0x0E: ('RDMA READ Response Middle', 'READ_RESPONSE', 'middle', 0),
    0x0F: ('RDMA READ Response Last', 'READ_RESPONSE', 'last', AETH),
    0x10: ('RDMA READ Response Only', 'READ_RESPONSE', 'only', AETH),
    0x11: ('Acknowledge', 'ACK', 'ack', AETH),
    0x12: ('Atomic Acknowledge', 'ATOMIC_ACK', 'ack', AETH + ATOMIC_ACK),
    0x13: ('CmpSwap', 'ATOMIC', 'request', ATOMIC),
    0x14: ('FetchAdd', 'ATOMIC', 'request', ATOMIC),
    0x16: ('SEND Last with Invalidate', 'SEND', 'last', IETH),
    0x17: ('SEND Only with Invalidate', 'SEND', 'only', IETH),
}
TRANSPORTS = {0: 'RC', 1: 'UC', 2: 'RD', 3: 'UD', 5: 'XRC'}
UD_OPS = {0x04: ('SEND Only', 'SEND', 'only', DETH),
          0x05: ('SEND Only with Immediate', 'SEND', 'only', DETH + IMM)}
CNP_OPCODE = 0x81
CNP_RESERVED = 16
# AETH syndrome: bits 7..5 the kind, 4..0 the credit, timer or NAK code
NAK_CODES = {0: 'psn_sequence_error', 1: 'invalid_request', 2: 'remote_access_error',
             3: 'remote_operational_error', 4: 'invalid_rd_request'}
SYNDROMES = ['rnr_nak'] + [NAK_CODES[c] for c in sorted(NAK_CODES)] + ['nak_reserved']
FAMILIES = ('SEND', 'WRITE', 'READ', 'READ_RESPONSE', 'ATOMIC')


def opcode_info(op):
    """(name, family, position, extended header bytes), or None if unknown."""
    if op == CNP_OPCODE:
        return ('CNP', 'CNP', 'cnp', CNP_RESERVED)
    kind, low = op >> 5, op & 0x1F
    tr = TRANSPORTS.get(kind)
    if tr is None:
        return None
    info = (UD_OPS if tr == 'UD' else OPS).get(low)
    if info is None or (tr == 'UC' and low > 0x0B):
        return None
    extra = 0
    if tr == 'RD':
        extra = 4 + (8 if low not in (0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12) else 0)  # RDETH, DETH
    if tr == 'XRC':
        extra = 4  # XRCETH
    return ('%s %s' % (tr, info[0]), info[1], info[2], info[3] + extra)


def syndrome_name(s):
    kind = s >> 5
    if kind == 0:
        return 'ack'
    if kind == 1:
        return 'rnr_nak'
    if kind == 3:
        return NAK_CODES.get(s & 0x1F, 'nak_reserved')
    return 'nak_reserved'

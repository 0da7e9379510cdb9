# A Cohort client in Python, written from docs/PROTOCOL.md alone (aioquic for QUIC): it joins,
# acknowledges every bundle (it runs no sim, so it sends Ack, not TurnHash), answers pings,
# sends one command and one chat line, and leaves after TURNS turns. Every message it receives
# is decoded field by field and must use up its frame exactly.
#
#   pip install aioquic
#   python3 docs/examples/python_client.py HOST PORT FINGERPRINT TOKEN RULESET_HEX TURNS
#
# FINGERPRINT is the one cohort-server prints; RULESET_HEX is the ruleset's hash
# (`cohort sim --default-map --ticks 0 --json` prints the default's as "ruleset").
import asyncio, hashlib, ssl, struct, sys
from cryptography.hazmat.primitives import serialization
from aioquic.asyncio import connect
from aioquic.quic.configuration import QuicConfiguration

host, port, fingerprint, token, ruleset_hex, turns = (
    sys.argv[1], int(sys.argv[2]), sys.argv[3].replace(':', '').lower(), sys.argv[4], sys.argv[5],
    int(sys.argv[6]))

def varint(v):
    if v < 251: return bytes([v])
    if v <= 0xFFFF: return b'\xfb' + struct.pack('<H', v)
    if v <= 0xFFFFFFFF: return b'\xfc' + struct.pack('<I', v)
    return b'\xfd' + struct.pack('<Q', v)

def zig(v, bits=64): return (v << 1) ^ (v >> (bits - 1))
def string(s): b = s.encode(); return varint(len(b)) + b
def frame(p): return struct.pack('>I', len(p)) + p

class R:
    def __init__(s, b): s.b, s.i = b, 0
    def u8(s): v = s.b[s.i]; s.i += 1; return v
    def var(s):
        m = s.u8()
        if m < 251: return m
        n = {251: 2, 252: 4, 253: 8}[m]; v = int.from_bytes(s.b[s.i:s.i+n], 'little'); s.i += n; return v
    def ivar(s): v = s.var(); return (v >> 1) ^ -(v & 1)
    def raw(s, n): v = s.b[s.i:s.i+n]; s.i += n; return v
    def str(s): return s.raw(s.var()).decode()
    def opt(s, f): return f() if s.u8() == 1 else None
    def vec(s, f): return [f() for _ in range(s.var())]

def read_command(r):
    idx = r.var()
    units = lambda: r.vec(r.var)
    if idx in (0, 1, 3): return (idx, units(), (r.ivar() / 65536, r.ivar() / 65536))
    if idx in (2, 4, 5, 6): return (idx, units(), r.var())
    if idx == 7: return (idx, r.str(), (r.ivar(), r.ivar()), r.u8(), r.vec(r.var))
    if idx == 10: return (idx, units(), r.var())
    return (idx, units())

def server_message(p):
    r = R(p); idx = r.var()
    if idx == 0:
        cfg = dict(match_id=r.str(), ruleset=r.raw(32).hex())
        kind = r.var(); assert kind in (0, 1)  # Generated, Armies
        cfg['map'] = (r.var(), r.ivar()) + ((r.var(),) if kind == 1 else ())
        cfg['players'] = r.vec(lambda: (r.u8(), r.str(), r.u8()))
        cfg['tick_ms'], cfg['turn_ticks'], cfg['input_delay'] = r.var(), r.var(), r.var()
        role = r.var(); player = r.u8() if role == 0 else None
        out = ('JoinAccepted', cfg, role, player, r.var(), r.var(), r.u8(), r.var())
    elif idx == 1:
        out = ('TurnBundle', r.var(), r.opt(r.var), r.vec(lambda: (r.u8(), r.var())),
               r.vec(lambda: (r.u8(), read_command(r))), r.opt(lambda: r.raw(32).hex()))
    elif idx == 2: out = ('Rescheduled', r.var(), r.var(), r.var())
    elif idx == 6: out = ('Ping', r.var())
    elif idx == 7: out = ('Pong', r.var())
    elif idx == 8:
        role = r.var(); pl = r.u8() if role == 0 else None
        out = ('Chat', role, pl, r.str(), r.str())
    elif idx == 11: out = ('MatchEnded', r.var(), r.var())
    elif idx == 12: out = ('Error', r.var(), r.str())
    else: out = ('other', idx)
    assert r.i == len(p), f"{len(p) - r.i} bytes left over in {out}"
    return out

async def main():
    cfg = QuicConfiguration(is_client=True, alpn_protocols=['cohort/1'])
    cfg.verify_mode = ssl.CERT_NONE  # no CA: the certificate is pinned by its fingerprint below
    async with connect(host, port, configuration=cfg) as conn:
        # aioquic keeps the server's certificate on its TLS context once the handshake is done.
        cert = conn._quic.tls._peer_certificate
        der = cert.public_bytes(serialization.Encoding.DER)
        if hashlib.sha256(der).hexdigest() != fingerprint:
            sys.exit('the server certificate does not have the expected fingerprint')
        reader, writer = await conn.create_stream()
        hello = varint(0) + varint(4) + bytes.fromhex(ruleset_hex) + string(token) + string('py')
        writer.write(frame(hello))
        sent_cmd = False
        while True:
            n = struct.unpack('>I', await reader.readexactly(4))[0]
            m = server_message(await reader.readexactly(n))
            if m[0] != 'Ping': print(m if m[0] != 'JoinAccepted' else m[:2] + m[2:], flush=True)
            if m[0] == 'Ping': writer.write(frame(varint(6) + varint(m[1])))
            if m[0] in ('Error', 'MatchEnded'):
                return
            if m[0] == 'TurnBundle':
                t = m[1]
                writer.write(frame(varint(3) + varint(t)))  # Ack
                if not sent_cmd and t >= 2:
                    # Move unit 1 (maybe not ours: ignored by every sim alike) to (40.5, -2).
                    cmd = varint(0) + varint(1) + varint(1) + varint(zig(int(40.5 * 65536))) + varint(zig(-2 * 65536))
                    writer.write(frame(varint(1) + varint(t + 2) + varint(1) + cmd))
                    writer.write(frame(varint(7) + string('hello from python')))
                    sent_cmd = True
                if t + 1 >= turns:
                    writer.write(frame(varint(10) + b'\x00'))  # Leave, not resigning
                    await asyncio.sleep(0.5)
                    return

asyncio.run(main())

#!/usr/bin/env python3
"""A Cohort player in Python, over the C ABI with ctypes (docs/EMBEDDING.md).

It loads libcohort_ffi, joins a match, runs every turn the server sends (the sim runs inside
the library, so the hashes it sends are real), gives orders to its own units every few turns,
prints one line per turn -- `turn N hash HEX` -- and leaves after TURNS turns, or when the
match ends (TURNS 0). Only the standard library is needed.

    cargo build --release -p cohort-ffi
    python3 docs/examples/cohort_ctypes.py --lib target/release/libcohort_ffi.so \
        --server 127.0.0.1:7676 --fingerprint HEX --token TOKEN [--turns 300]

Exit status: 0 when it played to the end with every hash agreeing, 1 on a desync, 2 on an
error.
"""

import argparse
import ctypes
import sys
from ctypes import (POINTER, Structure, byref, c_char_p, c_double, c_int32, c_int64, c_size_t,
                    c_uint8, c_uint32, c_uint64)

# Values from ffi/include/cohort.h.
STATUS_OK = 0
STATUS_BUFFER_TOO_SMALL = 6
EVENT_NONE, EVENT_JOINED, EVENT_TURN_RUN = 0, 1, 4
EVENT_HASH_DISAGREES, EVENT_DESYNC = 6, 7
EVENT_LAG_WARNING, EVENT_ERROR, EVENT_REFUSED, EVENT_CONNECTION_LOST, EVENT_MATCH_ENDED = (
    12, 13, 14, 15, 16)
EVENT_SERVER_NOT_TRUSTED = 17
COMMAND_MOVE, COMMAND_FORMATION_MOVE, COMMAND_ATTACK_MOVE = 0, 1, 3
COMMAND_HOLD, COMMAND_SET_FORMATION = 9, 10
FORMATION_STAGGERED = 1
FX_ONE = 1 << 16
Handle = c_uint64


# How long a lost connection is tried again (what `cohort play` does).
RECONNECT_SECS = 120


class ConnectOptions(Structure):
    _fields_ = [(name, t) for field in
                ("server", "fingerprint", "ca_file", "server_name", "token", "name",
                 "ruleset_toml")
                for name, t in ((field, c_char_p),
                                ("ruleset_len" if field == "ruleset_toml" else field + "_len",
                                 c_size_t))]


class Event(Structure):
    _fields_ = [("kind", c_int32), ("turn", c_uint64), ("asked_turn", c_uint64),
                ("count", c_uint32), ("input_delay", c_uint32), ("player", c_int32),
                ("agrees", c_int32), ("continuing", c_uint8), ("closes", c_uint8),
                ("code", c_int32), ("players", c_uint32), ("rtt_us", c_int64),
                ("resumes_in_ms", c_uint64), ("hash", c_uint8 * 32), ("other_hash", c_uint8 * 32),
                ("name_len", c_uint32), ("name", c_uint8 * 64),
                ("text_len", c_uint32), ("text", c_uint8 * 1024)]

    def text_str(self):
        return bytes(self.text[:self.text_len]).decode("utf-8", "replace")

    def name_str(self):
        return bytes(self.name[:self.name_len]).decode("utf-8", "replace")


class Order(Structure):
    _fields_ = [("kind", c_int32), ("units", POINTER(c_uint64)), ("unit_count", c_size_t),
                ("x_fx", c_int64), ("y_fx", c_int64), ("target", c_uint64),
                ("tile_x", c_int32), ("tile_y", c_int32), ("turned", c_uint8),
                ("formation", c_int32), ("building", c_char_p), ("building_len", c_size_t)]


class Unit(Structure):
    _fields_ = [("id", c_uint64), ("owner", c_uint32), ("kind", c_uint32), ("state", c_int32),
                ("order", c_int32), ("hit_points", c_uint32), ("formation", c_uint32),
                ("x_fx", c_int64), ("y_fx", c_int64), ("x", c_double), ("y", c_double),
                ("previous_x_fx", c_int64), ("previous_y_fx", c_int64),
                ("previous_x", c_double), ("previous_y", c_double),
                ("order_x_fx", c_int64), ("order_y_fx", c_int64), ("order_target", c_uint64),
                ("fighting", c_uint64), ("carrying_good", c_int32),
                ("carrying_amount", c_uint32), ("walking", c_uint8)]


class ClientStatus(Structure):
    _fields_ = [("phase", c_int32), ("player", c_int32), ("spectator", c_uint8),
                ("paused", c_uint8), ("may_rejoin", c_uint8), ("next_turn", c_uint64),
                ("order_turn", c_uint64), ("input_delay", c_uint32), ("rtt_us", c_int64),
                ("turns_run", c_uint64), ("hashes_agreed", c_uint64),
                ("hashes_disagreed", c_uint64), ("desync_notices", c_uint64),
                ("commands_sent", c_uint64), ("rescheduled", c_uint64)]


class WorldInfo(Structure):
    _fields_ = [("width", c_int32), ("height", c_int32), ("tick", c_uint64),
                ("next_turn", c_uint64), ("turn_ticks", c_uint32), ("tick_ms", c_uint32)] + [
                    (n, c_uint32) for n in ("players", "units", "buildings", "resources",
                                            "terrain_kinds", "unit_kinds", "building_kinds",
                                            "resource_kinds")]


class Cohort:
    """The library, its functions typed."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        sig = {
            "cohort_abi_version": ([], c_uint32),
            "cohort_last_error": ([POINTER(c_uint8), c_size_t], c_size_t),
            "cohort_client_connect": ([POINTER(ConnectOptions), POINTER(Handle)], c_int32),
            "cohort_client_poll": ([Handle, POINTER(Event)], c_int32),
            "cohort_client_wait": ([Handle, c_uint32], c_int32),
            "cohort_client_reconnect_for": ([Handle, c_uint32], c_int32),
            "cohort_client_status": ([Handle, POINTER(ClientStatus)], c_int32),
            "cohort_client_order": ([Handle, POINTER(Order), c_size_t], c_int32),
            "cohort_client_leave": ([Handle, c_uint8], c_int32),
            "cohort_client_free": ([Handle], c_int32),
            "cohort_world_info": ([Handle, POINTER(WorldInfo)], c_int32),
            "cohort_world_unit": ([Handle, c_uint64, POINTER(Unit)], c_int32),
            "cohort_world_units": ([Handle, POINTER(Unit), c_size_t, POINTER(c_size_t)],
                                   c_int32),
            "cohort_world_player_units": ([Handle, c_uint32, POINTER(c_uint64), c_size_t,
                                           POINTER(c_size_t)], c_int32),
        }
        for name, (args, ret) in sig.items():
            f = getattr(lib, name)
            f.argtypes, f.restype = args, ret
            setattr(self, "_" + name.removeprefix("cohort_"), f)

    def __getattr__(self, name):
        return self.__dict__["_" + name]

    def last_error(self):
        """The last failing call's message (this thread's)."""
        buf = (c_uint8 * 1024)()
        n = self._last_error(buf, 1024)
        return bytes(buf[:min(n, 1024)]).decode("utf-8", "replace")

    def check(self, status, what):
        if status != STATUS_OK:
            raise RuntimeError(f"{what}: status {status}: {self.last_error()}")


def give_orders(c, client, turn, seed):
    """Orders for two of this player's units: a move near the first, now and then in formation."""
    status = ClientStatus()
    c.check(c.client_status(client, byref(status)), "status")
    if status.player < 0:
        return
    info = WorldInfo()
    c.check(c.world_info(client, byref(info)), "world info")
    ids = (c_uint64 * 64)()
    count = c_size_t()
    c.check(c.world_player_units(client, status.player, ids, 64, byref(count)), "player units")
    if count.value == 0:
        return
    first = Unit()
    c.check(c.world_unit(client, ids[0], byref(first)), "unit")
    seed = (seed * 1103515245 + 12345) % (1 << 31)
    x = min(max(first.x_fx // FX_ONE + seed % 13 - 6, 1), info.width - 2)
    y = min(max(first.y_fx // FX_ONE + (seed // 13) % 13 - 6, 1), info.height - 2)
    n = min(count.value, 2)
    kind = [COMMAND_MOVE, COMMAND_ATTACK_MOVE, COMMAND_FORMATION_MOVE, COMMAND_HOLD][(turn // 10) % 4]
    orders = (Order * 2)()
    for o in orders:
        o.units, o.unit_count = ctypes.cast(ids, POINTER(c_uint64)), n
        o.x_fx, o.y_fx = x * FX_ONE, y * FX_ONE + FX_ONE // 4
    given = 1
    orders[0].kind = kind
    if kind == COMMAND_FORMATION_MOVE:
        orders[0].kind, orders[0].formation = COMMAND_SET_FORMATION, FORMATION_STAGGERED
        orders[1].kind = COMMAND_FORMATION_MOVE
        given = 2
    c.check(c.client_order(client, orders, given), "order")
    return seed


def draw(c, client, t):
    """What a renderer does each frame: every unit between its previous and current place."""
    count = c_size_t()
    s = c.world_units(client, None, 0, byref(count))
    if s not in (STATUS_OK, STATUS_BUFFER_TOO_SMALL):
        c.check(s, "units")
    units = (Unit * max(count.value, 1))()
    c.check(c.world_units(client, units, count.value, byref(count)), "units")
    return [(u.previous_x + (u.x - u.previous_x) * t, u.previous_y + (u.y - u.previous_y) * t)
            for u in units[:count.value]]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", required=True, help="path to libcohort_ffi (.so, .dylib or .dll)")
    p.add_argument("--server", default="127.0.0.1:7676")
    p.add_argument("--fingerprint", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--name", default="py-client")
    p.add_argument("--turns", type=int, default=0, help="leave after this many turns (0: play on)")
    a = p.parse_args()
    c = Cohort(a.lib)
    fields = {"server": a.server, "fingerprint": a.fingerprint, "token": a.token, "name": a.name}
    options = ConnectOptions()
    for k, v in fields.items():
        raw = v.encode()
        setattr(options, k, raw)
        setattr(options, k + "_len", len(raw))
    client = Handle()
    c.check(c.client_connect(byref(options), byref(client)), "connect")
    # A lost connection (a link that fails, a server restarted or the match moved) is taken
    # back by the client itself for up to 120 s, inside client_poll (docs/EMBEDDING.md).
    c.check(c.client_reconnect_for(client, RECONNECT_SECS), "reconnect_for")
    status, over, turns, seed = 0, False, 0, 11
    event = Event()
    try:
        while not over:
            c.client_wait(client, 100)
            while True:
                c.check(c.client_poll(client, byref(event)), "poll")
                k = event.kind
                if k == EVENT_NONE:
                    break
                if k == EVENT_JOINED:
                    print(f"joined {event.name_str()} as player {event.player}", flush=True)
                elif k == EVENT_TURN_RUN:
                    print(f"turn {event.turn} hash {bytes(event.hash).hex()}", flush=True)
                    turns += 1
                    draw(c, client, 0.5)
                    if event.turn % 5 == 2:
                        seed = give_orders(c, client, event.turn, seed) or seed
                    if a.turns and turns >= a.turns:
                        c.client_leave(client, 0)
                        over = True
                elif k in (EVENT_HASH_DISAGREES, EVENT_DESYNC):
                    print(f"desync after turn {event.turn}", file=sys.stderr)
                    status = 1
                elif k in (EVENT_ERROR, EVENT_LAG_WARNING):
                    print(f"server error {event.code}: {event.text_str()}", file=sys.stderr)
                    if event.closes:
                        status, over = 2, True
                elif k == EVENT_REFUSED:
                    print(f"refused: {event.text_str()}", file=sys.stderr)
                elif k == EVENT_CONNECTION_LOST:
                    print(f"connection lost: {event.text_str()}", file=sys.stderr)
                    status, over = 2, True
                elif k == EVENT_SERVER_NOT_TRUSTED:
                    # Permanent: trying again meets the same certificate.
                    print(f"server not trusted: {event.text_str()}", file=sys.stderr)
                    status, over = 2, True
                elif k == EVENT_MATCH_ENDED:
                    print(f"match ended after turn {event.turn} (reason {event.code})", flush=True)
                    over = True
                if over:
                    break
        final = ClientStatus()
        c.check(c.client_status(client, byref(final)), "status")
        print(f"turns {final.turns_run} agreed {final.hashes_agreed} "
              f"disagreed {final.hashes_disagreed} commands {final.commands_sent}", flush=True)
        if final.hashes_disagreed:
            status = 1
    finally:
        c.client_free(client)
    return status


if __name__ == "__main__":
    sys.exit(main())

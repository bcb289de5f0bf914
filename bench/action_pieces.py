"""What each piece of the server's work for one action costs, outside any socket (not a test).

Plays random legal moves in a real 8-seat Number Swap room through the server's own functions,
one after another in one process, and times each piece the hub and the service run per
accepted action: decode and validate the message, the command (rules ``apply`` and the
exactly-once bookkeeping), the move-log entry, the room record for the store, the room info,
the eight seats' views (in their two parts) and their frames, the acknowledgement.

    python -m bench.action_pieces --actions 3000
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from rules.codec import pack
from server import rooms
from server.rooms import commands
from server.rooms.commands import Context, Limits
from server.transport import state_messages
from server.transport.protocol import client_message
from server.transport.wire import Format, decode
from server.web import dispatch

SEATS = 8


def measure(actions: int, seed: int = 1) -> dict[str, float]:
    room = rooms.new_room("ABCDE", "numberswap", {}, 0.0, 0.0)
    for i in range(SEATS):
        room = commands.join(room, f"P{i}", f"h{i}", 0.0, name_max=24).room
    host = room.seats[0].id
    room = commands.start(room, host, commands.Context(now=0.0, seed=seed)).room
    ctx = Context(now=1.0, seed=seed, limits=Limits())
    rnd = random.Random(seed)
    spent: dict[str, float] = {}

    def timed(name: str, work: Callable[..., Any], *args: Any) -> Any:
        started = time.perf_counter()
        result = work(*args)
        spent[name] = spent.get(name, 0.0) + time.perf_counter() - started
        return result

    seqs = {s.id: 0 for s in room.seats}
    done = 0
    while done < actions:
        if room.phase.value != "playing":
            seqs[host] += 1
            room = commands.rematch(
                room, host, commands.Context(now=1.0, seed=rnd.randrange(1 << 30))
            ).room
            continue
        state = room.state
        index = rnd.choice(sorted(room.game.to_act(state)))
        seat_id = room.seats[index].id
        action = rnd.choice(room.game.legal_view(state, index))
        seqs[seat_id] = max(seqs[seat_id], room.seats[index].last_seq) + 1
        frame = pack({"type": "act", "seq": seqs[seat_id], "action": action})
        raw = timed("decode", decode, frame, Format.MSGPACK)
        message = timed("validate", client_message.validate_python, raw)
        change = timed("command", dispatch.seated, room, seat_id, message, ctx)
        new = change.room
        timed("log entry", pack, {**(change.entry or {}), "at": 1.0})
        timed("archive", lambda entries: [pack(e) for e in entries], change.archive)
        timed("room record", rooms.encode, new)
        connected = frozenset(s.id for s in new.seats)
        info = timed("room info", state_messages.room_info, new, connected, 1.0)
        seats: list[int | None] = list(range(SEATS))
        parts = timed("views", state_messages.seat_view_parts, new, seats)
        events = state_messages.events_since(new, new.version - 1)
        wanted = [(i, events) for i in seats]
        timed("frames", state_messages.state_frames, new, info, parts, wanted, Format.MSGPACK)
        ack = {"type": "ack", "seq": 1, "version": new.version, "duplicate": False}
        timed("ack", pack, ack)
        room = new
        done += 1
    result = {name: round(1e6 * seconds / actions, 1) for name, seconds in spent.items()}
    result["total"] = round(sum(result.values()), 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name, us in measure(args.actions, args.seed).items():
        print(f"{name:15} {us:7.1f} µs per action")


if __name__ == "__main__":
    main()

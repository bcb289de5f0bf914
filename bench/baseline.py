"""A bare room server: the floor Parlor's room server is measured against (issue 15).

The same design as Parlor's with everything but the plumbing taken out. Rooms live in Redis,
and per accepted action this server does exactly:

1. one read of the room record (``HMGET`` of its version and its msgpack record);
2. one Lua compare-and-set (``EVALSHA``) that checks the version, writes the new record and
   ``PUBLISH``es a notice, atomically;
3. one small msgpack view (~0.6 KB) per seat, sent over ``websockets`` (compression off).

No rules and no validation: the "game" hands the turn to the next seat after every action, the
seat to act is offered a few dummy actions, and a game ends after ``--game-length`` actions
(default 240, about the median of random 8-seat Number Swap games in
``docs/benchmarks.md``), so the host's rematch comes about as often as in Parlor's load test.

It speaks only the part of Parlor's protocol that ``bench/load.py`` uses, so the same unchanged
load generator drives both servers: ``POST /api/rooms`` answers ``{"code"}``, ``GET /healthz``
answers 200, and on ``/ws/{code}`` a ``join`` gets ``welcome {seat}`` and state frames;
``start``, ``act`` and ``rematch`` (each with the seat's ``seq``) get ``ack {seq, version,
duplicate}`` or ``error``. State frames have Parlor's shape: ``type, version, you, last_seq,
room {phase, ...}, view {to_act, legal, over, ...}, events``.

**Where the fan-out happens, and why there.** Directly after the compare-and-set's reply, while
a pub/sub connection receives every notice as well and drops this process's own. That is what
Parlor does with its own changes (``Hub.on_saved`` fans out on the reply; ``Hub.on_notice``
drops the notice of a save it made), so both servers pay for the same Redis round trips and
parse the same notices; fanning out on receipt of the notice instead would add a hop to every
action that Parlor does not take. A notice from another process (none in the benchmark) is met
with one read and a fan-out, so several of these servers could share rooms.

Kept because Parlor has them and they are cheap: one asyncio lock per room (a process's own
changes queue up instead of racing each other through the compare-and-set, and a lost race is
retried on a fresh read), the seat's ``seq`` (a resend is acknowledged as a duplicate, never
applied twice), and the event loop: uvloop, which uvicorn picks for ``parlor serve``. Not kept:
Parlor's move log (``XADD``), time-to-live (``PEXPIRE``), presence, chat, timers, bots,
limits, message validation and the splicing of shared view bytes.

    python -m bench.baseline --port 8100 --redis redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import msgpack
import redis.asyncio as aioredis
import uvloop
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

log = logging.getLogger("bench.baseline")

SEATS = 8
HAND = 4
GAME_LENGTH = 240
CHANNEL = "bare:notices"
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: Reads and compare-and-sets for one command before it is refused as too busy.
RETRIES = 5

# KEYS: room. ARGV: expected version, new version, record, channel, notice.
CAS = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return 0 end
if v ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
"""

Record = dict[str, Any]


def room_key(code: str) -> str:
    return f"bare:room:{{{code}}}"


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


class Refused(Exception):
    """A command answered with an ``error`` frame; nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Conflict(Exception):
    """The compare-and-set found another version: read again and retry."""


# -- the "game": no rules, the turn goes round ---------------------------------------------------


def new_record(code: str) -> Record:
    return {
        "code": code,
        "phase": "lobby",
        "round": 0,
        "moves": 0,
        "to_act": 0,
        "pile": 0,
        "names": [],
        "keys": [],
        "last_seq": [],
        "hands": [],
        "scores": [],
        "totals": [],
        "last": None,
    }


def deal(record: Record) -> None:
    seats, game = len(record["names"]), record["round"]
    record["hands"] = [
        [(game * 31 + s * 7 + i * 3) % 15 - 2 for i in range(HAND)] for s in range(seats)
    ]
    record["scores"] = [sum(hand) for hand in record["hands"]]
    record["totals"] = record.get("totals") or [0] * seats
    record.update(phase="playing", moves=0, to_act=game % seats, pile=game % 13, last=None)


def legal(record: Record, seat: int) -> list[dict[str, Any]]:
    if record["phase"] != "playing" or record["to_act"] != seat:
        return []
    return [*({"kind": "swap", "slot": i} for i in range(HAND)), {"kind": "pass"}]


def play(record: Record, seat: int, action: Any, game_length: int) -> None:
    if record["phase"] != "playing" or record["to_act"] != seat:
        raise Refused("not_your_turn", "It is not your turn")
    slot = action.get("slot") if isinstance(action, dict) else None
    if not isinstance(slot, int) or not 0 <= slot < HAND:
        slot = None  # anything but a swap is a pass: no validation
    else:
        hand = record["hands"][seat]
        hand[slot], record["pile"] = record["pile"], hand[slot]
        record["scores"][seat] = sum(hand)
    record["last"] = {"seat": seat, "kind": "pass" if slot is None else "swap", "slot": slot}
    record["moves"] += 1
    record["to_act"] = (seat + 1) % len(record["names"])
    if record["moves"] >= game_length:
        record["phase"] = "finished"
        record["totals"] = [t + s for t, s in zip(record["totals"], record["scores"], strict=True)]


def state_frame(record: Record, version: int, seat: int, room: Any, table: Any) -> bytes:
    """Seat ``seat``'s state message, in Parlor's shape; ``room`` and ``table`` are the parts
    every seat shares (built once per fan-out)."""
    view = None
    if table is not None:
        view = {
            "game": "bare",
            "seat": seat,
            "hand": record["hands"][seat],
            "table": table,
            "to_act": [record["to_act"]] if record["phase"] == "playing" else [],
            "legal": legal(record, seat),
            "over": record["phase"] == "finished",
            "result": None,
        }
    message = {
        "type": "state",
        "version": version,
        "you": seat,
        "last_seq": record["last_seq"][seat],
        "room": room,
        "view": view,
        "events": [],
    }
    return pack(message)


def shared_parts(record: Record, version: int) -> tuple[dict[str, Any], Any]:
    room = {
        "code": record["code"],
        "game": "bare",
        "phase": record["phase"],
        "version": version,
        "host": 0,
        "round": record["round"],
        "seats": [
            {"seat": i, "name": name, "bot": False, "away": False, "connected": True}
            for i, name in enumerate(record["names"])
        ],
    }
    if record["phase"] == "lobby":
        return room, None
    # What a card table shows everyone: each seat's face-up cards and scores, the pile.
    table = {
        "face_up": [hand[:2] for hand in record["hands"]],
        "scores": record["scores"],
        "totals": record["totals"],
        "pile": record["pile"],
        "moves": record["moves"],
        "last": record["last"],
    }
    return room, table


# -- the server ---------------------------------------------------------------------------------


@dataclass
class Local:
    """This process's connections to one room."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: dict[int, ServerConnection] = field(default_factory=dict)
    #: The newest version fanned out.
    sent: int = 0


class Baseline:
    def __init__(self, redis_url: str, game_length: int) -> None:
        self.redis: aioredis.Redis = aioredis.Redis.from_url(redis_url)
        self.cas = self.redis.register_script(CAS)
        self.game_length = game_length
        self.origin = secrets.token_hex(4)
        self.rooms: dict[str, Local] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def open(self) -> None:
        ready = asyncio.Event()
        self._background(self._listen(ready))
        await asyncio.wait_for(ready.wait(), timeout=10)

    def _background(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def create(self) -> str:
        for _ in range(20):
            code = "".join(secrets.choice(ALPHABET) for _ in range(5))
            if await self.redis.hsetnx(room_key(code), "v", 1):
                await self.redis.hset(room_key(code), "d", pack(new_record(code)))
                return code
        raise RuntimeError("no free room code")

    async def _load(self, code: str) -> tuple[int, Record]:
        version, data = await self.redis.hmget(room_key(code), ["v", "d"])
        if version is None or data is None:
            raise Refused("no_room", "This room does not exist")
        return int(version), msgpack.unpackb(data, raw=False)

    async def _change(self, code: str, command: Callable[[Record], bool]) -> tuple[int, Record]:
        """Read, apply ``command`` (false: nothing to write), compare-and-set; the caller holds
        the room's lock. Returns the version and record now stored."""
        for _ in range(RETRIES):
            version, record = await self._load(code)
            if not command(record):
                return version, record
            new = version + 1
            notice = f"{code} {new} {self.origin}"
            args: list[bytes | str | int] = [version, new, pack(record), CHANNEL, notice]
            done = await self.cas(keys=[room_key(code)], args=args)
            if done == 1:
                return new, record
            if done == 0:
                raise Refused("no_room", "This room does not exist")
        raise Refused("conflict", "The room is too busy right now; try again")

    async def fan_out(self, code: str, version: int, record: Record) -> None:
        local = self.rooms.get(code)
        if local is None or version <= local.sent:
            return
        local.sent = version
        room, table = shared_parts(record, version)
        for seat, ws in list(local.conns.items()):
            frame = state_frame(record, version, seat, room, table)
            with contextlib.suppress(ConnectionClosed):
                await ws.send(frame)

    async def join(self, ws: ServerConnection, code: str, message: dict[str, Any]) -> int:
        key, name = str(message.get("key")), str(message.get("name"))

        def command(record: Record) -> bool:
            if key in record["keys"]:
                return False
            if len(record["keys"]) >= SEATS or record["phase"] != "lobby":
                raise Refused("room_full", "No free seat")
            record["keys"].append(key)
            record["names"].append(name)
            record["last_seq"].append(0)
            return True

        local = self.rooms.setdefault(code, Local())
        async with local.lock:
            version, record = await self._change(code, command)
            seat: int = record["keys"].index(key)
            await ws.send(pack({"type": "welcome", "code": code, "seat": seat, "id": seat}))
            local.conns[seat] = ws
            local.sent = min(local.sent, version - 1)  # the new seat needs this version too
            await self.fan_out(code, version, record)
        return seat

    async def command(self, ws: ServerConnection, code: str, seat: int, msg: Any) -> None:
        kind, seq = msg.get("type"), msg.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise Refused("bad_seq", "A command needs a seq")
        duplicate = False

        def command(record: Record) -> bool:
            nonlocal duplicate
            if seq <= record["last_seq"][seat]:
                duplicate = True
                return False
            if kind == "act":
                play(record, seat, msg.get("action"), self.game_length)
            elif seat != 0:
                raise Refused("not_host", "Only the host can do that")
            elif kind == "start" and record["phase"] == "lobby":
                deal(record)
            elif kind == "rematch" and record["phase"] == "finished":
                record["round"] += 1
                deal(record)
            else:
                raise Refused("bad_phase", f"Cannot {kind} now")
            record["last_seq"][seat] = seq
            return True

        local = self.rooms[code]
        async with local.lock:
            version, record = await self._change(code, command)
            await self.fan_out(code, version, record)
        ack = {"type": "ack", "seq": seq, "version": version, "duplicate": duplicate}
        await ws.send(pack(ack))

    async def handler(self, ws: ServerConnection) -> None:
        assert ws.request is not None
        code = ws.request.path.removeprefix("/ws/")
        seat: int | None = None
        try:
            async for frame in ws:
                message = msgpack.unpackb(frame, raw=False) if isinstance(frame, bytes) else {}
                try:
                    kind = message.get("type")
                    if kind == "join" and seat is None:
                        seat = await self.join(ws, code, message)
                    elif seat is None:
                        raise Refused("not_joined", "Send join first")
                    elif kind in ("act", "start", "rematch"):
                        await self.command(ws, code, seat, message)
                    else:
                        raise Refused("unknown_type", f"Unknown message type {kind!r}")
                except Refused as exc:
                    error = {"type": "error", "code": exc.code, "message": exc.message}
                    await ws.send(pack({**error, "seq": message.get("seq")}))
        except ConnectionClosed:
            pass
        finally:
            local = self.rooms.get(code)
            if seat is not None and local is not None and local.conns.get(seat) is ws:
                del local.conns[seat]

    async def _listen(self, ready: asyncio.Event) -> None:
        """Every notice: this process's own are dropped (their reply was fanned out), anyone
        else's is met with one read and a fan-out."""
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(CHANNEL)
        ready.set()
        async for message in pubsub.listen():
            code, version, origin = message["data"].decode().split(" ")
            local = self.rooms.get(code)
            if origin != self.origin and local is not None and int(version) > local.sent:
                self._background(self._catch_up(code, local))

    async def _catch_up(self, code: str, local: Local) -> None:
        async with local.lock:
            version, record = await self._load(code)
            await self.fan_out(code, version, record)

    @staticmethod
    def process_request(ws: ServerConnection, request: Request) -> Response | None:
        if request.path == "/healthz":
            return ws.respond(HTTPStatus.OK, "ok\n")
        if not request.path.startswith("/ws/"):
            return ws.respond(HTTPStatus.NOT_FOUND, "Not found\n")
        return None


class _Door(ServerConnection):
    """A WebSocket connection, or one plain HTTP ``POST``: websockets answers only the GET of a
    handshake (it refuses a request body), and room creation is a POST with a JSON body. A
    connection whose first bytes are ``POST`` is answered here and closed; any other is
    websockets' own, untouched."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head: bytearray | None = bytearray()  # the first bytes, until they say which
        self._post: bytearray | None = None
        self._answering: asyncio.Task[None] | None = None

    async def create_room(self) -> str:
        raise NotImplementedError

    def data_received(self, data: bytes) -> None:
        if self._head is not None:
            self._head += data
            if len(self._head) < 5 and b"\n" not in self._head:
                return
            data, self._head = bytes(self._head), None
            if data.startswith(b"POST "):
                self._post = bytearray()
        if self._post is None:
            super().data_received(data)
            return
        self._post += data
        head, end, body = self._post.partition(b"\r\n\r\n")
        if not end:
            return
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if len(body) >= length:
            path = head.split(b" ", 2)[1]
            self._post = bytearray()  # answered once; anything more is ignored
            self._answering = self.loop.create_task(self._answer(bytes(path)))

    async def _answer(self, path: bytes) -> None:
        status, body = HTTPStatus.NOT_FOUND, b'{"error": "not found"}'
        if path == b"/api/rooms":
            status, body = (
                HTTPStatus.CREATED,
                json.dumps({"code": await self.create_room()}).encode(),
            )
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s" % (status, status.phrase.encode(), len(body), body)
        )
        self.transport.close()


def door_for(create: Callable[[], Awaitable[str]]) -> type[ServerConnection]:
    class Door(_Door):
        async def create_room(self) -> str:
            return await create()

    return Door


async def run(port: int, redis_url: str, game_length: int) -> None:
    app = Baseline(redis_url, game_length)
    await app.open()
    async with serve(
        app.handler,
        "127.0.0.1",
        port,
        compression=None,
        process_request=app.process_request,
        create_connection=door_for(app.create),
    ) as server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis", required=True, help="redis:// URL")
    parser.add_argument("--game-length", type=int, default=GAME_LENGTH, help="actions a game")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    uvloop.run(run(args.port, args.redis, args.game_length))


if __name__ == "__main__":
    main()

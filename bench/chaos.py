"""Chaos benchmark: rooms keep playing while instances, Redis and links are killed (not a test).

Starts one ``redis-server`` (append-only file, ``appendfsync always``) and two ``parlor serve``
processes sharing it, then plays ``--rooms`` rooms at once (Number Swap, Warp 99 and Floor in
turn, 2 to 4 seats, players split over both instances). Every player is a client that acts on a
random legal move when its view offers one, resends the same message (same ``seq``) on
``unavailable``/``conflict``, and when its socket closes reconnects to either instance with
``resume`` and resends what was not acknowledged. Hosts send ``rematch`` when a game ends.

Every few seconds a fault, picked at random (``--seed``): SIGKILL an instance and restart it on
the same port, SIGKILL Redis and restart it, SIGSTOP Redis for 0.2 to 1.5 s, or abort one client's
socket. At the end (faults stopped, players stop starting new moves, a settle): acknowledged
moves, lost and doubled ones (checked against the move log), clients behind the stored version,
the longest gap between versions any room's watcher saw, and faults by kind.

    python -m bench.chaos --seconds 120
    python -m bench.chaos --seconds 30 --rooms 3 --seed 7 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import create_room, parlor_serve
from rules.codec import pack, unpack
from server.stores.redis_store import RedisStore
from tests.processes import Process, free_port
from tests.redis_process import RedisProcess
from tests.server.driver import choose
from tests.server.harness import Client

GAMES = ("numberswap", "warp99", "floor")
RESENDABLE = {"unavailable", "conflict"}
REDIS_TIMEOUT = 0.5
#: Seconds without any message before a client checks its link with ``sync``.
QUIET = 2.0
#: Move log entries kept per room: far more than a run makes (about 200 versions/s per room).
LOG_MAX = 1_000_000


def now() -> float:
    return time.monotonic()


# -- processes ------------------------------------------------------------------------------------


def serve_process(redis_url: str, port: int, log: Path) -> Process:
    return parlor_serve(
        port,
        log,
        name=f"parlor:{port}",
        REDIS_URL=redis_url,
        PARLOR_REDIS_TIMEOUT=str(REDIS_TIMEOUT),
        PARLOR_CHECK_INTERVAL="0.5",
        PARLOR_BOT_DELAY="0.05",
        PARLOR_FLOOD_RATE="1000",
        PARLOR_FLOOD_BURST="1000",
        PARLOR_CREATE_BURST="100000",
        # The audit reads every act from the move log: nothing may be trimmed from it.
        PARLOR_LOG_MAX=str(LOG_MAX),
    )


# -- what happened --------------------------------------------------------------------------------


@dataclass
class Fault:
    kind: str
    start: float
    end: float = 0.0
    detail: str = ""


@dataclass
class Stats:
    faults: list[Fault] = field(default_factory=list)
    acked: int = 0
    duplicate_acks: int = 0
    resends: int = 0
    reconnects: int = 0
    refused: Counter[str] = field(default_factory=Counter)

    def active_fault(self) -> Fault | None:
        return next((f for f in reversed(self.faults) if not f.end), None)


@dataclass
class Player:
    room: RoomRun
    name: str
    host: bool
    token: str = ""
    seat_id: int = -1
    index: int = -1
    seq: int = 0
    client: Client | None = None
    state: dict[str, Any] | None = None
    #: The one command sent and not yet answered (seq, message).
    pending: tuple[int, dict[str, Any]] | None = None
    acted_at: int = -1
    #: (seat index, seat id, seq, version) of every acknowledged act. The version (a resend's
    #: duplicate ack carries the first application's) names the log entry, hence the round.
    acks: list[tuple[int, int, int, int]] = field(default_factory=list)

    @property
    def version(self) -> int:
        return -1 if self.state is None else int(self.state["version"])


@dataclass
class RoomRun:
    code: str
    game: str
    seats: int
    players: list[Player] = field(default_factory=list)
    #: (time, version) each time the watcher saw a newer version.
    seen: list[tuple[float, int]] = field(default_factory=list)
    watcher: Client | None = None


# -- clients --------------------------------------------------------------------------------------


class Chaos:
    def __init__(self, addrs: list[str], rnd: random.Random, stats: Stats, deadline: float):
        self.addrs = addrs
        self.rnd = rnd
        self.stats = stats
        self.deadline = deadline
        #: Set when the faults are over: players finish what is pending and start nothing new.
        self.quiet = asyncio.Event()
        self.stop = asyncio.Event()

    async def connect(self, code: str) -> Client:
        addr = self.rnd.choice(self.addrs)
        return await asyncio.wait_for(Client.open(f"ws://{addr}", code), 2.0)

    async def send(self, p: Player, message: dict[str, Any]) -> None:
        assert p.client is not None
        await p.client.send_raw(pack(message))

    async def command(self, p: Player, message: dict[str, Any]) -> None:
        p.seq = max(p.seq, (p.state or {}).get("last_seq", 0)) + 1
        message = {**message, "seq": p.seq}
        p.pending = (p.seq, message)
        await self.send(p, message)

    async def enter(self, p: Player) -> None:
        """Connect to either instance, join (first time) or resume, resend what is pending."""
        client = await self.connect(p.room.code)
        p.client = client
        if not p.token:
            await self.send(p, {"type": "join", "name": p.name, "key": client.join_key})
        else:
            await self.send(p, {"type": "resume", "token": p.token})
        welcome = await client.expect("welcome", 3.0)
        if welcome.get("token"):
            p.token = welcome["token"]
        p.seat_id, p.index = welcome["id"], welcome["seat"]
        state = await client.expect("state", 3.0)
        p.state = state  # the new baseline
        if p.pending is not None:
            self.stats.resends += 1
            await self.send(p, p.pending[1])

    async def step(self, p: Player) -> None:
        """Act or rematch when this seat can and nothing is pending."""
        state = p.state
        if state is None or p.pending is not None or self.quiet.is_set():
            return
        view = state["view"]
        phase = state["room"]["phase"]
        if p.acted_at == state["version"]:
            return
        if phase == "finished" and p.host:
            p.acted_at = state["version"]
            await self.command(p, {"type": "rematch"})
        elif phase == "playing" and view is not None and not view["over"] and view["legal"]:
            p.acted_at = state["version"]
            await self.command(p, {"type": "act", "action": choose(view, self.rnd)})

    async def handle(self, p: Player, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "state":
            if p.state is None or message["version"] >= p.state["version"]:
                p.state = message
        elif kind == "ack" and p.pending is not None and message["seq"] == p.pending[0]:
            seq, sent = p.pending
            p.pending = None
            if message.get("duplicate"):
                self.stats.duplicate_acks += 1
            if sent["type"] == "act":
                self.stats.acked += 1
                p.acks.append((p.index, p.seat_id, seq, message["version"]))
        elif kind == "error" and p.pending is not None and message.get("seq") == p.pending[0]:
            code = message["code"]
            self.stats.refused[code] += 1
            if code in RESENDABLE:
                await asyncio.sleep(0.05)
                self.stats.resends += 1
                await self.send(p, p.pending[1])
            else:
                # Overtaken by another seat's move: choose again from a newer view.
                if code == "bad_seq":
                    p.seq = message.get("last_seq", p.seq)
                p.pending = None
                # The state that overtook it came first; choose again from there (not faster
                # than this, should some move be refused every time).
                p.acted_at = -1
                await asyncio.sleep(0.05)

    async def player(self, p: Player) -> None:
        while not self.stop.is_set() and now() < self.deadline:
            try:
                if p.client is None:
                    await self.enter(p)
                await self.step(p)
                assert p.client is not None
                try:
                    message = await p.client.recv(QUIET)
                except TimeoutError:
                    await self.send(p, {"type": "sync"})
                    continue
                await self.handle(p, message)
            except Exception as exc:
                if not _is_link_error(exc):
                    raise
                if p.client is not None:
                    with contextlib.suppress(Exception):
                        p.client.ws.transport.abort()
                p.client = None
                self.stats.reconnects += 1
                await asyncio.sleep(self.rnd.uniform(0.05, 0.3))

    async def watcher(self, room: RoomRun) -> None:
        while not self.stop.is_set() and now() < self.deadline:
            try:
                if room.watcher is None:
                    room.watcher = await self.connect(room.code)
                    await room.watcher.send({"type": "watch"})
                try:
                    message = await room.watcher.recv(QUIET)
                except TimeoutError:
                    await room.watcher.send({"type": "sync"})
                    continue
                if message["type"] == "state":
                    version = message["version"]
                    if not room.seen or version > room.seen[-1][1]:
                        room.seen.append((now(), version))
            except Exception as exc:
                if not _is_link_error(exc):
                    raise
                room.watcher = None
                await asyncio.sleep(self.rnd.uniform(0.05, 0.3))


def _is_link_error(exc: BaseException) -> bool:
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    return isinstance(exc, ConnectionClosed | InvalidHandshake | OSError | TimeoutError)


# -- faults ---------------------------------------------------------------------------------------


async def inject(
    chaos: Chaos,
    redis: RedisProcess,
    servers: list[Process],
    players: list[Player],
    until: float,
    rnd: random.Random,
) -> None:
    stats = chaos.stats
    while now() < until:
        await asyncio.sleep(rnd.uniform(2.0, 5.0))
        if now() >= until:
            break
        kind = rnd.choice(["kill_instance", "kill_redis", "pause_redis", "drop_link"])
        fault = Fault(kind, now())
        stats.faults.append(fault)
        if kind == "kill_instance":
            i = rnd.randrange(len(servers))
            fault.detail = f"instance {i}"
            servers[i].kill()
            await asyncio.to_thread(servers[i].start)
        elif kind == "kill_redis":
            redis.kill()
            await asyncio.to_thread(redis.start)
        elif kind == "pause_redis":
            pause = rnd.uniform(0.2, 1.5)
            fault.detail = f"{pause:.2f} s"
            redis.pause()
            await asyncio.sleep(pause)
            redis.resume()
        else:
            connected = [p for p in players if p.client is not None]
            if connected:
                victim = rnd.choice(connected)
                fault.detail = f"{victim.room.code} {victim.name}"
                assert victim.client is not None
                victim.client.ws.transport.abort()
        fault.end = now()


# -- the audit ------------------------------------------------------------------------------------


async def audit(redis_url: str, rooms: list[RoomRun]) -> dict[str, Any]:
    store = RedisStore(redis_url)
    lost: list[dict[str, Any]] = []
    doubled: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    #: Rooms whose log is not one entry per version up to the stored one.
    missed_log: list[dict[str, Any]] = []
    #: Acks older than the room's first log entry (the log was trimmed): cannot be checked.
    trimmed = 0
    #: Games started (start and rematch entries) per room.
    rounds: dict[str, int] = {}
    try:
        for room in rooms:
            stored = await store.load(room.code)
            assert stored is not None, room.code
            entries = [(v, unpack(raw)) for v, raw in await store.log(room.code)]
            first = entries[0][0] if entries else stored.version + 1
            gaps = [v for (u, _), (v, _) in itertools.pairwise(entries) if v != u + 1]
            if gaps or entries[-1][0] != stored.version:
                missed_log.append({"room": room.code, "breaks_at": gaps[:5], "first": first})
            # Every act in the log by (seat id, seq): one counter per seat for the room's life,
            # so the pair is unique across rounds; the round is counted from start/rematch.
            rnd = 0
            logged: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
            for version, entry in entries:
                if entry["kind"] in ("start", "rematch"):
                    rnd += 1
                elif entry["kind"] == "act":
                    key = (entry["seat_id"], entry["seq"])
                    logged.setdefault(key, []).append((version, rnd, entry["seat"]))
            rounds[room.code] = rnd
            for key, where in logged.items():
                if len(where) > 1:
                    doubled.append({"room": room.code, "seat_id_seq": key, "at": where})
            for p in room.players:
                for index, seat_id, seq, version in p.acks:
                    if version < first:
                        trimmed += 1
                        continue
                    where = logged.get((seat_id, seq), [])
                    if not any(v == version and seat == index for v, _, seat in where):
                        near = [(v, e) for v, e in entries if abs(v - version) <= 2]
                        lost.append(
                            {
                                "room": room.code,
                                "ack": {"seat": index, "seat_id": seat_id, "seq": seq},
                                "ack_version": version,
                                "logged_at": where,
                                "log_near": near,
                            }
                        )
                if p.version != stored.version:
                    missed.append(
                        {
                            "room": room.code,
                            "player": p.name,
                            "client": p.version,
                            "stored": stored.version,
                            "connected": p.client is not None,
                        }
                    )
    finally:
        await store.close()
    return {
        "lost": lost,
        "doubled": doubled,
        "missed": missed,
        "log_breaks": missed_log,
        "trimmed": trimmed,
        "rounds": rounds,
    }


def longest_stall(rooms: list[RoomRun], faults: list[Fault], until: float) -> dict[str, Any]:
    """The longest gap between two versions any watcher saw (while faults ran), the fault
    that started last before the gap ended, and how far the gap ran past that fault's end."""
    best: dict[str, Any] = {"seconds": 0.0}
    by_kind: dict[str, float] = {}
    past_fault: dict[str, Any] = {"seconds": 0.0}
    for room in rooms:
        times = [t for t, _ in room.seen if t <= until]
        for t0, t1 in itertools.pairwise(times):
            gap = t1 - t0
            before = [f for f in faults if f.start < t1]
            fault = before[-1] if before else None
            info = {
                "seconds": round(gap, 2),
                "room": room.code,
                "game": room.game,
                "fault": None if fault is None else f"{fault.kind} {fault.detail}".strip(),
                "fault_seconds": None if fault is None else round(fault.end - fault.start, 2),
            }
            if gap > best["seconds"]:
                best = info
            name = "none" if fault is None else fault.kind
            by_kind[name] = max(by_kind.get(name, 0.0), round(gap, 2))
            # Time from the later of (gap start, the last fault's end) to the next version.
            ended = max([t0, *(f.end for f in before if f.end <= t1)])
            excess = t1 - ended
            if excess > past_fault["seconds"]:
                past_fault = {**info, "seconds": round(excess, 2), "gap": round(gap, 2)}
    return {"longest_gap": best, "longest_past_fault": past_fault, "by_fault": by_kind}


# -- the run --------------------------------------------------------------------------------------


async def run(seconds: float, rooms_n: int, seed: int) -> dict[str, Any]:
    stats = Stats()
    with tempfile.TemporaryDirectory() as tmp, RedisProcess(persistence="aof") as redis:
        ports = [free_port(), free_port()]
        servers = [serve_process(redis.url, port, Path(tmp) / f"serve{port}.log") for port in ports]
        try:
            for server in servers:
                await asyncio.to_thread(server.start)
            addrs = [f"127.0.0.1:{port}" for port in ports]
            # Faults run for ``seconds``; then a settle of bounded length.
            started = now()
            fault_until = started + seconds
            chaos = Chaos(addrs, random.Random(seed + 1), stats, fault_until + 30.0)
            rooms: list[RoomRun] = []
            for r in range(rooms_n):
                game = GAMES[r % len(GAMES)]
                seats = 2 + (r // len(GAMES) + r) % 3
                code = create_room(f"http://{addrs[r % 2]}", game, 5, key=secrets.token_urlsafe(16))
                room = RoomRun(code, game, seats)
                room.players = [Player(room, f"P{i}", host=i == 0) for i in range(seats)]
                rooms.append(room)
            players = [p for room in rooms for p in room.players]
            # Join in seat order (the host first), then start each room.
            for p in players:
                await chaos.enter(p)
            for room in rooms:
                host = room.players[0]
                await chaos.command(host, {"type": "start"})
            tasks = [asyncio.create_task(chaos.player(p)) for p in players]
            tasks += [asyncio.create_task(chaos.watcher(room)) for room in rooms]
            faults = asyncio.create_task(
                inject(chaos, redis, servers, players, fault_until, random.Random(seed + 2))
            )
            await faults
            faults_done = now()
            chaos.quiet.set()
            # Settle: everything pending answered (bounded), then every notice delivered.
            settle_deadline = now() + 20.0
            while now() < settle_deadline and any(
                p.pending is not None or p.client is None for p in players
            ):
                await asyncio.sleep(0.1)
            await asyncio.sleep(2.0)
            chaos.stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            crashed = [repr(t.exception()) for t in tasks if not t.cancelled() and t.exception()]
            elapsed = faults_done - started
            found = await audit(redis.url, rooms)
            stall = longest_stall(rooms, stats.faults, faults_done)
            for p in players:
                if p.client is not None:
                    with contextlib.suppress(Exception):
                        await p.client.close()
        finally:
            for server in servers:
                server.kill()
    versions = sum(room.seen[-1][1] if room.seen else 0 for room in rooms)
    return {
        "seed": seed,
        "seconds": round(elapsed, 1),
        "rooms": [
            {"code": r.code, "game": r.game, "seats": r.seats, "games": found["rounds"][r.code]}
            for r in rooms
        ],
        "moves_acked": stats.acked,
        "duplicate_acks": stats.duplicate_acks,
        "resends": stats.resends,
        "reconnects": stats.reconnects,
        "refused": dict(stats.refused),
        "room_versions": versions,
        "lost": len(found["lost"]),
        "doubled": len(found["doubled"]),
        "versions_missed": len(found["missed"]),
        "log_breaks": len(found["log_breaks"]),
        "unverifiable_trimmed": found["trimmed"],
        "stall": stall,
        "faults": dict(Counter(f.kind for f in stats.faults)),
        "fault_log": [
            {"kind": f.kind, "at": round(f.start - started, 2), "took": round(f.end - f.start, 2)}
            | ({"detail": f.detail} if f.detail else {})
            for f in stats.faults
        ],
        "details": found,
        "crashed_tasks": crashed,
    }


def table(result: dict[str, Any]) -> str:
    stall = result["stall"]
    gap, past = stall["longest_gap"], stall["longest_past_fault"]
    rows = [
        ("seconds of faults", result["seconds"]),
        (
            "rooms (game, seats, games played)",
            ", ".join(f"{r['game']} {r['seats']} {r['games']}" for r in result["rooms"]),
        ),
        ("moves acknowledged", result["moves_acked"]),
        ("  of which duplicate acks", result["duplicate_acks"]),
        ("resends (same seq)", result["resends"]),
        ("reconnects", result["reconnects"]),
        ("lost", result["lost"]),
        ("doubled", result["doubled"]),
        ("versions missed", result["versions_missed"]),
        ("log breaks", result["log_breaks"]),
        ("acks older than the log", result["unverifiable_trimmed"]),
        (
            "longest gap",
            f"{gap['seconds']} s ({gap.get('room')} {gap.get('game')}, after {gap.get('fault')})",
        ),
        (
            "longest past fault end",
            f"{past['seconds']} s ({past.get('room')} {past.get('game')}, "
            f"after {past.get('fault')})",
        ),
        (
            "longest gap by last fault",
            ", ".join(f"{k} {v} s" for k, v in sorted(stall["by_fault"].items())),
        ),
        ("faults", ", ".join(f"{k} {v}" for k, v in sorted(result["faults"].items()))),
        ("refused", ", ".join(f"{k} {v}" for k, v in sorted(result["refused"].items()))),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--rooms", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the full result here")
    args = parser.parse_args()
    result = asyncio.run(run(args.seconds, args.rooms, args.seed))
    print(table(result))
    for kind in ("lost", "doubled", "missed", "log_breaks"):
        for item in result["details"][kind][:5]:
            print(f"{kind}: {item}", file=sys.stderr)
    if result["crashed_tasks"]:
        print(f"crashed client tasks: {result['crashed_tasks']}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str))


if __name__ == "__main__":
    main()

"""Room-server load benchmark over real WebSockets (not a test).

Starts a redis-server and one server process on free loopback ports (``parlor serve``, or with
``--server baseline`` the bare server of ``bench/baseline.py``), then:

* ``play``: R rooms x 8 seats of clients choosing random legal actions from their views, as
  fast as the server lets them (rematch when a game ends), for a fixed time. Reports
  actions/s, p50/p99 from an action sent to the moment the last seat of the room has a view
  at least that new, bytes per view, the server's RSS, and the CPU per action of the server
  and of redis-server.
* ``idle``: N clients joined to rooms (8 seats each) doing nothing; reports the server's RSS
  growth per connection.
* ``compare``: ``play`` flat out against the baseline and against Parlor, one after the other
  in one invocation (never both at once: they would share the cores), in the order baseline,
  Parlor, Parlor, baseline, ... so that a steady drift of the machine cancels; prints each
  figure's median per server, Parlor's ratio to the baseline with its target, and JSON.
* ``growth``: ``play`` at 1, 10, 50, 100, 200 and 1,000 rooms (flat out up to 20 rooms, at
  people's pace beyond), as one table: how the cost grows with the work.

    python -m bench.load play --rooms 20 --seconds 20               # saturate
    python -m bench.load play --rooms 100 --seconds 20 --think 0.5  # people-paced
    python -m bench.load play --rooms 10 --seconds 20 --server baseline
    python -m bench.load growth --seconds 15
    python -m bench.load idle --clients 5000
    python -m bench.load compare --rooms 10 --seconds 20            # issue 15's ratios
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import os
import random
import resource
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench import baseline, common
from bench.common import baseline_serve, parlor_serve
from rules.codec import pack, unpack
from tests.processes import free_port
from tests.redis_process import RedisProcess

SEATS = 8
#: Seconds before measuring starts, flat out (room starts are spread over the first half).
WARMUP = 4.0

Server = Literal["parlor", "baseline"]
SERVERS: tuple[Server, ...] = ("parlor", "baseline")


def _raise_fd_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


@dataclass(frozen=True)
class Served:
    addr: str
    #: The server process (Redis is a process of its own).
    pid: int
    redis: RedisProcess


@contextlib.contextmanager
def running_server(
    server: Server = "parlor",
    game_length: int = baseline.GAME_LENGTH,
    serve: tuple[str, ...] = common.SERVE,
) -> Iterator[Served]:
    """redis-server + ``parlor serve``, or + the bare baseline server with games of
    ``game_length`` actions (child processes inherit the raised fd limit)."""
    _raise_fd_limit()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp, RedisProcess() as redis:
        log = Path(tmp) / "serve.log"
        if server == "baseline":
            process = baseline_serve(port, log, redis.url, game_length)
        else:
            # The load generator is one client per seat acting at machine speed, every one of
            # them from 127.0.0.1: past the per-address cap (64) the server would answer 429.
            process = parlor_serve(
                port,
                log,
                serve=serve,
                REDIS_URL=redis.url,
                PARLOR_FLOOD_RATE="1000",
                PARLOR_FLOOD_BURST="1000",
                PARLOR_CREATE_BURST="100000",
                PARLOR_MAX_CONNECTIONS_PER_ADDRESS="100000",
            )
        with process:
            yield Served(f"127.0.0.1:{port}", process.pid, redis)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def create_room(addr: str, game: str) -> str:
    return common.create_room(f"http://{addr}", game)


def command_calls(redis: RedisProcess) -> dict[str, int]:
    """How many times Redis has run each command since its last ``CONFIG RESETSTAT`` (those a
    Lua script calls count too: ``hset`` inside ``evalsha``)."""
    with redis.client() as client:
        stats: dict[str, dict[str, Any]] = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(row["calls"]) for name, row in stats.items()}


def reset_command_calls(redis: RedisProcess) -> None:
    with redis.client() as client:
        client.config_resetstat()


class Window(Protocol):
    """A watcher of ``play``'s measured window (e.g. a profiler in the server process)."""

    serve: tuple[str, ...]

    def opened(self, pid: int) -> None: ...

    def closed(self, pid: int) -> None: ...


@dataclass
class Seat:
    ws: ClientConnection
    seat: int = 0
    state: dict[str, Any] | None = None
    seq: int = 0
    pending: bool = False
    acted_at: int = -1
    # (version, time) each time a newer state arrived
    seen: list[tuple[int, float]] = field(default_factory=list)
    view_bytes: list[int] = field(default_factory=list)


@dataclass
class Room:
    code: str
    seats: list[Seat]
    # version created by an acknowledged action -> when that action was sent
    sent: dict[int, float] = field(default_factory=dict)
    actions: int = 0


async def _join(addr: str, code: str, name: str) -> Seat:
    ws = await connect(f"ws://{addr}/ws/{code}", compression=None, max_size=2**20)
    await ws.send(pack({"type": "join", "name": name, "key": secrets.token_urlsafe(16)}))
    while True:
        message = unpack(await ws.recv(decode=False))
        if message["type"] == "welcome":
            return Seat(ws, message["seat"])


_KEEP = {"room": {"phase"}, "view": {"to_act", "legal", "over"}}


def read_message(frame: bytes) -> dict[str, Any]:
    """Decode a frame, skipping the parts of a state message this load generator never reads.

    The server is what is measured: a client that decodes every byte of eight 3 KB views per
    action would take as much CPU as the server on this 2-core machine. Skipping is done by
    msgpack's C parser without building the objects."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(frame)
    message: dict[str, Any] = {}
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        keep = _KEEP.get(key)
        if keep is None or message.get("type") != "state":
            message[key] = unpacker.unpack()
            continue
        try:
            size = unpacker.read_map_header()
        except ValueError:
            message[key] = unpacker.unpack()  # a spectator's or lobby view: None
            continue
        part: dict[str, Any] = {}
        for _ in range(size):
            inner = unpacker.unpack()
            if inner in keep:
                part[inner] = unpacker.unpack()
            else:
                unpacker.skip()
        message[key] = part
    return message


async def _player(
    room: Room, me: Seat, rnd: random.Random, stop: asyncio.Event, think: float
) -> None:
    sent_at: dict[int, float] = {}
    while not stop.is_set():
        frame = await me.ws.recv()
        now = time.perf_counter()
        assert isinstance(frame, bytes)
        message = read_message(frame)
        kind = message["type"]
        if kind == "state":
            if me.state is None or message["version"] > me.state["version"]:
                me.state = message
                me.seen.append((message["version"], now))
                me.view_bytes.append(len(frame))
        elif kind == "ack":
            me.pending = False
            sent = sent_at.pop(message["seq"], None)  # None: the host's start or rematch
            if sent is not None and not message["duplicate"]:
                room.sent[message["version"]] = sent
                room.actions += 1
        elif kind == "error":
            me.pending = False
        state = me.state
        if state is None or state["view"] is None or me.pending:
            continue
        view = state["view"]
        if view["over"]:
            if me.seat == 0 and state["room"]["phase"] == "finished" and me.acted_at != -2:
                me.acted_at, me.pending = -2, True  # until the rematch is answered
                me.seq = max(me.seq, state["last_seq"]) + 1
                await me.ws.send(pack({"type": "rematch", "seq": me.seq}))
            continue
        if view["legal"] and me.acted_at != state["version"]:
            me.pending, me.acted_at = True, state["version"]
            action = rnd.choice(view["legal"])
            if think:
                # People take a moment; the socket keeps being read meanwhile.
                delay = rnd.uniform(0, 2 * think)
                asyncio.get_running_loop().call_later(delay, _act_soon, me, action, state, sent_at)
            else:
                await _act(me, action, state, sent_at)


_LATER: set[asyncio.Task[None]] = set()


def _act_soon(me: Seat, action: Any, state: dict[str, Any], sent_at: dict[int, float]) -> None:
    task = asyncio.ensure_future(_act(me, action, state, sent_at))
    _LATER.add(task)
    task.add_done_callback(_LATER.discard)


async def _act(me: Seat, action: Any, state: dict[str, Any], sent_at: dict[int, float]) -> None:
    # If another seat moved meanwhile the action may be refused: that is an error reply,
    # after which this seat chooses again from its newest view.
    me.seq = max(me.seq, state["last_seq"]) + 1
    sent_at[me.seq] = time.perf_counter()
    with contextlib.suppress(ConnectionClosed):  # a people-paced move due after the run ended
        await me.ws.send(pack({"type": "act", "seq": me.seq, "action": action}))


def _latencies(room: Room, since: float) -> list[float]:
    """For each action acknowledged and sent after ``since``: until every seat had a view at
    least that new."""
    out = []
    seen = [([v for v, _ in seat.seen], seat.seen) for seat in room.seats]
    for version, sent in room.sent.items():
        if sent < since:
            continue
        last = 0.0
        for versions, times in seen:
            i = bisect.bisect_left(versions, version)
            if i == len(versions):
                break
            last = max(last, times[i][1])
        else:
            out.append(last - sent)
    return out


async def play(
    rooms: int,
    seconds: float,
    game: str,
    think: float,
    server: Server = "parlor",
    game_length: int = baseline.GAME_LENGTH,
    window: Window | None = None,
) -> dict[str, Any]:
    """``window``, if given, runs ``serve`` and is told when the measured window opens and
    closes (``bench/profile_server.py``)."""
    serve = common.SERVE if window is None else window.serve
    with running_server(server, game_length, serve) as served:
        addr, pid, redis_pid = served.addr, served.pid, served.redis.process.pid
        all_rooms = []
        for _ in range(rooms):
            code = create_room(addr, game)
            seats = list(await asyncio.gather(*(_join(addr, code, f"P{i}") for i in range(SEATS))))
            seats.sort(key=lambda s: s.seat)  # the host (seat 0) first
            all_rooms.append(Room(code, seats))
        # The generator's own collections must not show up as the server's latency: what
        # exists now (the clients, their connections) is never scanned again, and a full
        # collection (half a second over 8,000 clients' objects) does not come in a run.
        gc.collect()
        gc.freeze()
        gc.set_threshold(700, 10, 10_000)
        stop = asyncio.Event()
        tasks = []
        for r, room in enumerate(all_rooms):
            for i, seat in enumerate(room.seats):
                rnd = random.Random(r * 100 + i)
                tasks.append(asyncio.create_task(_player(room, seat, rnd, stop, think)))
        # At people's pace a game's opening lasts several thinking times; a thousand rooms
        # all opening within the same two seconds (every seat of each acting at once in
        # Number Swap) would be a burst no real server sees.
        warmup = WARMUP if not think else max(WARMUP, 8 * think)
        # Rooms start spread over the warm-up, as rooms of real people do, and the warm-up is
        # left out of every figure: a hundred rooms starting in the same millisecond (every
        # seat of each acting at once in Number Swap's opening) is a burst no real server sees.
        for room in all_rooms:
            # The host's first seq; its player's next command uses last_seq + 1.
            await room.seats[0].ws.send(pack({"type": "start", "seq": 1}))
            await asyncio.sleep(warmup / 2 / len(all_rooms))
        await asyncio.sleep(warmup / 2)
        rss_before = rss_kib(pid)
        reset_command_calls(served.redis)
        actions_before = sum(r.actions for r in all_rooms)
        if window is not None:
            window.opened(pid)
        cpu_before = cpu_seconds(pid)
        redis_before = cpu_seconds(redis_pid)
        own_before = cpu_seconds(os.getpid())
        started = time.perf_counter()
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - started
        if window is not None:
            window.closed(pid)
        cpu_used = cpu_seconds(pid) - cpu_before
        redis_used = cpu_seconds(redis_pid) - redis_before
        own_used = cpu_seconds(os.getpid()) - own_before
        actions = sum(r.actions for r in all_rooms) - actions_before
        calls = command_calls(served.redis)
        rss_after = rss_kib(pid)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        lat = sorted(x for room in all_rooms for x in _latencies(room, started))
        sizes = [b for room in all_rooms for s in room.seats for b in s.view_bytes]
        for room in all_rooms:
            for seat in room.seats:
                await seat.ws.close()
        per_action = max(actions, 1)
        return {
            "server": server,
            "game": game if server == "parlor" else f"bare, {game_length} actions a game",
            "rooms": rooms,
            "clients": rooms * SEATS,
            "think_ms": think * 1000,
            "seconds": round(elapsed, 1),
            "actions": actions,
            "actions_per_s": round(actions / elapsed),
            # Robust to other load on the machine, unlike actions/s: what one action costs.
            "server_cpu_ms_per_action": round(1000 * cpu_used / per_action, 3),
            "server_cpu_busy": round(cpu_used / elapsed, 2),
            "redis_cpu_ms_per_action": round(1000 * redis_used / per_action, 3),
            # The load generator shares the machine: when this nears 1.0, it is the limit.
            "loadgen_cpu_busy": round(own_used / elapsed, 2),
            "p50_ms": round(1000 * lat[len(lat) // 2], 1),
            "p99_ms": round(1000 * lat[int(len(lat) * 0.99)], 1),
            "mean_view_bytes": round(statistics.mean(sizes)),
            "server_rss_mib": round(max(rss_before, rss_after) / 1024, 1),
            # Every Redis command over the measured actions (CONFIG and INFO are this bench's).
            "redis_calls_per_action": {
                name: round(n / per_action, 3)
                for name, n in sorted(calls.items(), key=lambda kv: -kv[1])
                if name not in ("config|resetstat", "info")
            },
        }


async def idle(clients: int, game: str, server: Server = "parlor") -> dict[str, Any]:
    with running_server(server) as served:
        addr, pid = served.addr, served.pid
        # Warm up (imports, first room, allocator arenas) before the baseline.
        warm = [await _join(addr, create_room(addr, game), "warm") for _ in range(8)]
        baseline = rss_kib(pid)
        seats: list[Seat] = []
        for r in range(clients // SEATS):
            code = create_room(addr, game)
            joined = await asyncio.gather(*(_join(addr, code, f"P{i}") for i in range(SEATS)))
            seats.extend(joined)
            if r % 100 == 0:
                print(f"  {len(seats)} connected", file=sys.stderr)
        await asyncio.sleep(2)  # let the last fan-outs drain before measuring
        loaded = rss_kib(pid)
        per_conn = (loaded - baseline) * 1024 / len(seats)
        for seat in [*seats, *warm]:
            await seat.ws.close()
        return {
            "clients": len(seats),
            "rooms": len(seats) // SEATS,
            "rss_baseline_mib": round(baseline / 1024, 1),
            "rss_loaded_mib": round(loaded / 1024, 1),
            "kib_per_connection": round(per_conn / 1024, 1),
        }


#: Rooms per row of the cost-growth table, and the pace of each: flat out up to 20 rooms (the
#: server is the limit), beyond that at people's pace (``PEOPLE_THINK``).
GROWTH_ROOMS = (1, 10, 50, 100, 200, 1000)
#: Mean seconds a person thinks before a move (uniform over 0 to twice this): brisker than
#: most tables, so the server sees more than a real evening's load.
PEOPLE_THINK = 2.0
#: The people-paced p99 target (issue 15) and the clients it is judged at.
PEOPLE_P99_MS = 50.0
PEOPLE_P99_CLIENTS = 800


async def growth(
    seconds: float, game: str, rooms: tuple[int, ...] = GROWTH_ROOMS
) -> dict[str, Any]:
    """One ``play`` per row of ``rooms``: how actions/s, latency, CPU per action and memory
    grow with the work, flat out up to 20 rooms and at people's pace beyond."""
    rows = []
    for n in rooms:
        think = 0.0 if n <= 20 else PEOPLE_THINK
        print(f"  {n} rooms, think {think:g} s", file=sys.stderr)
        rows.append(await play(n, seconds, game, think))
    target = next((r for r in rows if r["clients"] == PEOPLE_P99_CLIENTS and r["think_ms"]), None)
    return {
        "game": game,
        "seconds": seconds,
        "people_think_s": PEOPLE_THINK,
        "rows": rows,
        "people_p99_target_ms": PEOPLE_P99_MS,
        "people_p99_met": None if target is None else target["p99_ms"] <= PEOPLE_P99_MS,
    }


def growth_table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['game']}, {result['seconds']:g} s a row; people-paced rows think "
        f"0-{2 * result['people_think_s']:g} s before each move",
        "",
        "| rooms | clients | pace | actions/s | p50 ms | p99 ms | server CPU/action | "
        "server busy | RSS MiB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in result["rows"]:
        pace = "people" if r["think_ms"] else "flat out"
        lines.append(
            f"| {r['rooms']:,} | {r['clients']:,} | {pace} | {r['actions_per_s']:,} | "
            f"{r['p50_ms']} | {r['p99_ms']} | {r['server_cpu_ms_per_action']} ms | "
            f"{round(100 * r['server_cpu_busy'])} % | {r['server_rss_mib']} |"
        )
    met = result["people_p99_met"]
    if met is not None:
        lines.append("")
        lines.append(
            f"people-paced p99 at {PEOPLE_P99_CLIENTS} clients <= {PEOPLE_P99_MS:g} ms: "
            f"{'PASS' if met else 'FAIL'}"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    #: Parlor / baseline must be >= (``at_least``) or <= this; None: no target, shown only.
    target: float | None = None
    at_least: bool = False

    def met(self, ratio: float) -> bool | None:
        if self.target is None:
            return None
        return ratio >= self.target if self.at_least else ratio <= self.target


#: Issue 15's targets, as ratios Parlor / baseline from one run.
FIGURES = (
    Figure("actions_per_s", "actions/s", 0.8, at_least=True),
    Figure("p50_ms", "p50 ms", 1.5),
    Figure("p99_ms", "p99 ms", 2.0),
    Figure("server_cpu_ms_per_action", "server CPU ms/action", 1.3),
    Figure("redis_cpu_ms_per_action", "redis CPU ms/action"),
    Figure("mean_view_bytes", "mean view bytes"),
    Figure("server_rss_mib", "server RSS MiB"),
    Figure("loadgen_cpu_busy", "load generator busy"),
)


def paired_ratios(
    runs: dict[Server, list[dict[str, Any]]], keys: list[str]
) -> dict[str, float | None]:
    """Parlor's ratio to the baseline per figure: the median, over the rounds, of the ratio
    of the two runs of one round. The two runs of a round are back to back, so a machine that
    is slower for some minutes slows both; the medians of each server's runs taken apart would
    set a fast minute of one against a slow minute of the other."""
    ratio: dict[str, float | None] = {}
    for key in keys:
        pairs = round_ratios(runs, key)
        ratio[key] = round(statistics.median(pairs), 3) if pairs else None
    return ratio


def round_ratios(runs: dict[Server, list[dict[str, Any]]], key: str) -> list[float]:
    """Parlor's figure over the baseline's, round by round (a round whose baseline figure is
    0 is left out)."""
    return [
        p[key] / b[key] for b, p in zip(runs["baseline"], runs["parlor"], strict=True) if b[key]
    ]


async def compare(
    rooms: int, seconds: float, rounds: int, game: str, game_length: int
) -> dict[str, Any]:
    """``play`` flat out against each server in turn, ``rounds`` times each: baseline, Parlor,
    then Parlor, baseline, and so on. Each figure's ratio is the median of the rounds' own
    ratios (:func:`paired_ratios`); the median of each figure per server is shown beside it."""
    runs: dict[Server, list[dict[str, Any]]] = {"baseline": [], "parlor": []}
    order: tuple[Server, Server] = ("baseline", "parlor")
    for r in range(rounds):
        for server in order if r % 2 == 0 else order[::-1]:
            print(f"  round {r + 1}/{rounds}: {server}", file=sys.stderr)
            runs[server].append(await play(rooms, seconds, game, 0.0, server, game_length))
    median = {
        server: {f.key: statistics.median(run[f.key] for run in results) for f in FIGURES}
        for server, results in runs.items()
    }
    calls = {
        server: {
            name: statistics.median(run["redis_calls_per_action"].get(name, 0) for run in results)
            for name in dict.fromkeys(n for run in results for n in run["redis_calls_per_action"])
        }
        for server, results in runs.items()
    }
    ratio = paired_ratios(runs, [f.key for f in FIGURES])
    met = {f.key: f.met(x) for f in FIGURES if (x := ratio[f.key]) is not None}
    return {
        "rooms": rooms,
        "clients": rooms * SEATS,
        "seconds": seconds,
        "rounds": rounds,
        "game": game,
        "baseline_game_length": game_length,
        "median": median,
        "ratio": ratio,
        "round_ratios": {
            f.key: [round(x, 3) for x in round_ratios(runs, f.key)]
            for f in FIGURES
            if f.target is not None
        },
        "targets": {
            f.key: f"{'>=' if f.at_least else '<='} {f.target}"
            for f in FIGURES
            if f.target is not None
        },
        "met": {key: ok for key, ok in met.items() if ok is not None},
        "redis_calls_per_action": calls,
        "runs": runs,
    }


def compare_table(result: dict[str, Any]) -> str:
    median, ratio, met = result["median"], result["ratio"], result["met"]
    lines = [
        f"{result['rooms']} rooms x {SEATS} seats flat out, {result['seconds']:g} s a run, "
        f"{result['rounds']} rounds of one run per server ({result['game']} on Parlor; "
        f"{result['baseline_game_length']}-action games on the baseline); each server's median,"
        " and the median of the rounds' own ratios",
        "",
        f"{'figure':<22} {'baseline':>10} {'parlor':>10} {'ratio':>7} {'target':>8}  result",
    ]
    for f in FIGURES:
        target = result["targets"].get(f.key, "")
        verdict = {True: "PASS", False: "FAIL"}.get(met.get(f.key), "")
        r = ratio[f.key]
        lines.append(
            f"{f.label:<22} {median['baseline'][f.key]:>10g} {median['parlor'][f.key]:>10g} "
            f"{'-' if r is None else f'{r:.2f}':>7} {target:>8}  {verdict}"
        )
    lines.append("")
    lines.append("each round's ratio:")
    for f in FIGURES:
        if f.key in result["round_ratios"]:
            shown = ", ".join(f"{x:.2f}" for x in result["round_ratios"][f.key])
            lines.append(f"  {f.label:<22} {shown}")
    lines.append("")
    lines.append("redis calls per action (median; calls made by a script included):")
    for server, calls in result["redis_calls_per_action"].items():
        shown = ", ".join(f"{name} {n:g}" for name, n in calls.items() if n >= 0.005)
        lines.append(f"  {server:<9} {shown}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("play")
    p.add_argument("--rooms", type=int, default=20)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--game", default="numberswap")
    p.add_argument("--think", type=float, default=0.0, help="mean seconds before acting")
    i = sub.add_parser("idle")
    i.add_argument("--clients", type=int, default=5000)
    i.add_argument("--game", default="numberswap")
    for mode in (p, i):
        mode.add_argument("--server", choices=SERVERS, default="parlor")
    c = sub.add_parser("compare", help="baseline and Parlor in turn; Parlor's ratios")
    c.add_argument("--rooms", type=int, default=10)
    c.add_argument("--seconds", type=float, default=10)
    c.add_argument("--rounds", type=int, default=12, help="runs per server")
    c.add_argument("--game", default="numberswap", help="Parlor's game")
    for mode in (p, c):
        mode.add_argument(
            "--game-length",
            type=int,
            default=baseline.GAME_LENGTH,
            help="actions in one of the baseline's games",
        )
    g = sub.add_parser("growth", help="cost growth from 1 to 1,000 rooms")
    g.add_argument("--seconds", type=float, default=15)
    g.add_argument("--game", default="numberswap")
    g.add_argument("--rooms", type=int, nargs="+", default=list(GROWTH_ROOMS), help="rooms per row")
    args = parser.parse_args()
    if args.mode == "growth":
        result = asyncio.run(growth(args.seconds, args.game, tuple(args.rooms)))
        print(growth_table(result))
        print()
    elif args.mode == "play":
        result = asyncio.run(
            play(args.rooms, args.seconds, args.game, args.think, args.server, args.game_length)
        )
    elif args.mode == "idle":
        result = asyncio.run(idle(args.clients, args.game, args.server))
    else:
        result = asyncio.run(
            compare(args.rooms, args.seconds, args.rounds, args.game, args.game_length)
        )
        print(compare_table(result))
        print()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

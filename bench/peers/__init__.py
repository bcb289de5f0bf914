"""Parlor against the real peers (issue 32): Colyseus, Colyseus with a Redis SET per action, and
boardgame.io, each with its own server and client packages from npm (``bench/peers/``,
versions pinned by its ``package-lock.json``), doing the work shape of ``bench/load.py``'s
``play``: R rooms x 8 seats of Number Swap grids, each seat seeing only its own cards, one
action at a time, every seat getting its view after every action, closed loop, flat out.

Parlor's figures come from ``bench.load.play`` unchanged (``parlor serve`` on Redis). A peer's
run starts its Node server on a free loopback port (and, for Colyseus + Redis, a redis-server)
and its Node load generator (``*-loadgen.js``, the peer's own client SDK), which says when its
measured window opens and closes; this process reads the server's CPU (utime + stime in
``/proc/<pid>/stat``) and RSS at those two moments. The load generator reports actions,
latencies (from an action's sending until every seat of the room has the resulting view, as
``bench.load`` measures Parlor; the acting seat's own latency beside it) and the bytes a seat's
WebSocket received per view.

The servers run one after the other, never two at once, in rounds A B C D, D C B A, ... (A =
Parlor, B = Colyseus, C = Colyseus + Redis, D = boardgame.io), so that a steady drift of the
machine cancels; each peer's ratio to Parlor is taken round by round and its median shown.

    python -m bench.peers --rooms 10 --seconds 10 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from bench import load
from tests.processes import LOCALHOST, Process, free_port, http_ok
from tests.redis_process import RedisProcess

HERE = Path(__file__).resolve().parent
SEATS = load.SEATS

Server = Literal["parlor", "colyseus", "colyseus_redis", "bgio"]
#: The order of a round (odd rounds run it backwards).
ORDER: tuple[Server, ...] = ("parlor", "colyseus", "colyseus_redis", "bgio")
PEERS: tuple[Server, ...] = ORDER[1:]
LABELS: dict[Server, str] = {
    "parlor": "Parlor (Redis)",
    "colyseus": "Colyseus",
    "colyseus_redis": "Colyseus + Redis SET",
    "bgio": "boardgame.io",
}
#: Each peer's server and load generator scripts (in this directory).
SCRIPTS: dict[Server, tuple[str, str]] = {
    "colyseus": ("colyseus-server.js", "colyseus-loadgen.js"),
    "colyseus_redis": ("colyseus-server.js", "colyseus-loadgen.js"),
    "bgio": ("bgio-server.js", "bgio-loadgen.js"),
}


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("node is not on PATH (bench/peers/README.md)")
    return found


def installed() -> bool:
    """Whether the peers' npm packages are installed (``scripts/bootstrap test``)."""
    return (HERE / "node_modules" / ".package-lock.json").is_file() and shutil.which(
        "node"
    ) is not None


@contextlib.contextmanager
def peer_server(
    server: Server, log: Path, redis_url: str | None = None
) -> Iterator[tuple[Process, str]]:
    """The peer's Node server on a free loopback port (the process is ``node`` itself, so its
    pid's CPU and RSS are the server's), and the URL its load generator connects to."""
    port = free_port()
    script = SCRIPTS[server][0]
    argv = [node(), script, "--port", str(port)]
    if redis_url is not None:
        argv += ["--redis", redis_url]
    if server == "bgio":
        ready, url = http_ok(port, "/games"), f"http://{LOCALHOST}:{port}"
    else:
        ready, url = http_ok(port, "/__healthcheck"), f"ws://{LOCALHOST}:{port}"
    process = Process(argv, ready=ready, log=log, name=script, cwd=HERE)
    with process:
        yield process, url


def loadgen_argv(server: Server, url: str, **options: Any) -> list[str]:
    argv = [node(), SCRIPTS[server][1], "--url", url]
    for name, value in options.items():
        argv += [f"--{name}", str(value)]
    return argv


async def run_loadgen(
    argv: list[str], on_event: dict[str, Any] | None = None, timeout: float = 120.0
) -> dict[str, Any]:
    """Run a load generator to its end; ``on_event[name]()`` is called at once when it prints
    ``{"event": name}``. Returns its last JSON line."""
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=HERE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    last: dict[str, Any] | None = None
    try:
        async with asyncio.timeout(timeout):
            while line := await process.stdout.readline():
                message = json.loads(line)
                event = message.get("event")
                if event is not None:
                    if on_event and event in on_event:
                        on_event[event]()
                else:
                    last = message
            err = (await process.stderr.read()).decode(errors="replace")
            code = await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    if code != 0 or last is None:
        raise RuntimeError(f"{argv[1]} exited with {code}: {err[-2000:]}")
    return last


async def play_peer(server: Server, rooms: int, seconds: float, seed: int = 1) -> dict[str, Any]:
    """One flat-out run of a peer: its figures in ``bench.load.play``'s names."""
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        redis = stack.enter_context(RedisProcess()) if server == "colyseus_redis" else None
        process, url = stack.enter_context(
            peer_server(server, tmp / "server.log", None if redis is None else redis.url)
        )
        pid = process.pid
        redis_pid = None if redis is None else redis.process.pid
        marks: dict[str, tuple[float, float, int]] = {}

        def mark(name: str) -> None:
            redis_cpu = 0.0 if redis_pid is None else load.cpu_seconds(redis_pid)
            marks[name] = (load.cpu_seconds(pid), redis_cpu, load.rss_kib(pid))

        argv = loadgen_argv(
            server,
            url,
            rooms=rooms,
            seats=SEATS,
            seconds=seconds,
            warmup=load.WARMUP,
            seed=seed,
        )
        result = await run_loadgen(
            argv,
            {"open": lambda: mark("open"), "close": lambda: mark("close")},
            timeout=seconds + load.WARMUP + 120,
        )
    if not result["actions"] or result["p50_ms"] is None:
        raise RuntimeError(f"{server}: no action completed in the measured window: {result}")
    (cpu0, redis0, rss0), (cpu1, redis1, rss1) = marks["open"], marks["close"]
    per_action = max(result["actions"], 1)
    elapsed = result["seconds"]
    return {
        "server": server,
        **result,
        "p50_ms": round(result["p50_ms"], 1),
        "p99_ms": round(result["p99_ms"], 1),
        "acting_p50_ms": round(result["acting_p50_ms"], 1),
        "acting_p99_ms": round(result["acting_p99_ms"], 1),
        "mean_view_bytes": round(result["mean_view_bytes"]),
        "loadgen_cpu_busy": round(result["loadgen_cpu_busy"], 2),
        "server_cpu_ms_per_action": round(1000 * (cpu1 - cpu0) / per_action, 3),
        "server_cpu_busy": round((cpu1 - cpu0) / elapsed, 2),
        # None: this peer keeps no Redis.
        "redis_cpu_ms_per_action": (
            None if redis is None else round(1000 * (redis1 - redis0) / per_action, 3)
        ),
        "server_rss_mib": round(max(rss0, rss1) / 1024, 1),
    }


async def play(server: Server, rooms: int, seconds: float) -> dict[str, Any]:
    if server == "parlor":
        return await load.play(rooms, seconds, "numberswap", 0.0, "parlor")
    return await play_peer(server, rooms, seconds)


#: The figures of the table: key and label.
FIGURES: tuple[tuple[str, str], ...] = (
    ("server_cpu_ms_per_action", "server CPU per action (ms)"),
    ("actions_per_s", "actions/s"),
    ("p50_ms", "p50 (ms)"),
    ("p99_ms", "p99 (ms)"),
    ("mean_view_bytes", "bytes per view"),
    ("server_rss_mib", "server RSS (MiB)"),
    ("redis_cpu_ms_per_action", "redis-server CPU per action (ms)"),
    ("loadgen_cpu_busy", "load generator busy"),
)


def round_ratios(
    runs: dict[Server, list[dict[str, Any] | None]], peer: Server, key: str
) -> list[float]:
    """The peer's figure over Parlor's, round by round (a round where Parlor's is 0 is left
    out, as is a round where either run failed)."""
    return [
        p[key] / a[key]
        for a, p in zip(runs["parlor"], runs[peer], strict=True)
        if a is not None and p is not None and a[key] and p[key] is not None
    ]


async def compare(rooms: int, seconds: float, rounds: int) -> dict[str, Any]:
    runs: dict[Server, list[dict[str, Any] | None]] = {s: [] for s in ORDER}
    failures: list[str] = []
    for r in range(rounds):
        for server in ORDER if r % 2 == 0 else ORDER[::-1]:
            print(f"  round {r + 1}/{rounds}: {LABELS[server]}", file=sys.stderr)
            try:
                runs[server].append(await play(server, rooms, seconds))
            except Exception as error:  # a failed run is reported, and the rounds go on
                failures.append(f"round {r + 1}, {LABELS[server]}: {error}")
                print(f"  failed: {error}", file=sys.stderr)
                runs[server].append(None)
    median = {
        server: {
            key: round(statistics.median(ok), 3)
            if (ok := [x[key] for x in results if x and x[key] is not None])
            else None
            for key, _ in FIGURES
        }
        for server, results in runs.items()
    }
    ratios = {
        peer: {key: [round(x, 3) for x in round_ratios(runs, peer, key)] for key, _ in FIGURES}
        for peer in PEERS
    }
    return {
        "rooms": rooms,
        "clients": rooms * SEATS,
        "seconds": seconds,
        "rounds": rounds,
        "load": os.getloadavg(),
        "median": median,
        "round_ratios": ratios,
        "ratio": {
            peer: {key: round(statistics.median(xs), 3) if xs else None for key, xs in r.items()}
            for peer, r in ratios.items()
        },
        "failures": failures,
        "runs": runs,
    }


def _figure(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def table(result: dict[str, Any]) -> str:
    median, ratio, per_round = result["median"], result["ratio"], result["round_ratios"]
    lines = [
        f"{result['rooms']} rooms x {SEATS} seats flat out, {result['seconds']:g} s a run, "
        f"{result['rounds']} rounds (A B C D, D C B A, ...); each server's median, and in "
        "brackets its ratio to Parlor: the median of the rounds' own ratios (each round's "
        "below)",
        "",
        "| | " + " | ".join(LABELS[s] for s in ORDER) + " |",
        "| --- " * (len(ORDER) + 1) + "|",
    ]
    for key, label in FIGURES:
        cells = [_figure(median["parlor"][key])]
        for peer in PEERS:
            r = ratio[peer][key]
            shown = _figure(median[peer][key])
            cells.append(shown if r is None else f"{shown} ({r:.2f}x)")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("each round's ratio to Parlor:")
    for peer in PEERS:
        for key, label in FIGURES[:6]:
            shown = ", ".join(f"{x:.2f}" for x in per_round[peer][key])
            lines.append(f"  {LABELS[peer]:<22} {label:<28} {shown}")
    if result["failures"]:
        lines.append("")
        lines.append("failed runs:")
        lines.extend(f"  {f}" for f in result["failures"])
    load_avg = ", ".join(f"{x:.2f}" for x in result["load"])
    lines.append("")
    lines.append(f"load average at the end: {load_avg}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=2, help="runs per server")
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args()
    result = asyncio.run(compare(args.rooms, args.seconds, args.rounds))
    print(table(result))
    print()
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))
    else:
        print(json.dumps(result, indent=2))

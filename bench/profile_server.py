"""Profile a live ``parlor serve`` under ``bench.load``'s flat-out play (not a test).

The server runs under cProfile, switched on by SIGUSR1 when the load generator's measured
window opens (after the warm-up) and dumped by SIGUSR2 when it closes, so start-up and the
warm-up are left out. Prints the self time grouped by part of the server, then the top
functions by self time; the raw profile is kept for ``pstats``.

    python -m bench.profile_server --rooms 10 --seconds 15 --out parlor.prof
    python -c "import pstats; pstats.Stats('parlor.prof').sort_stats('cumtime').print_stats(30)"

cProfile adds a cost to every Python call (about 4x here), so read shares, not microseconds;
a C call such as a socket write is counted in the Python function that made it. For a sampling
view without that overhead, py-spy works on the same server too (``pip install py-spy``, then
``py-spy record -p PID -f raw``), but it counts wall time: a write that wakes a peer on the
other core shows up large there though it costs little CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import os
import pstats
import signal
import sys
from typing import Any

#: Where each self-time sample goes, by the file it is in (first match wins).
GROUPS = (
    ("encoding (msgpack, wire, views)", ("msgpack", "rules/codec", "server/wire", "server/views")),
    ("rules", ("/rules/",)),
    ("pydantic", ("pydantic",)),
    ("store (redis-py, asyncio streams)", ("/redis/", "redis_store", "asyncio/streams", "hiredis")),
    (
        "WebSocket (uvicorn, websockets, serving, connections)",
        ("uvicorn/protocols", "/websockets/", "server/serving", "server/connections"),
    ),
    ("hub (fan-out)", ("server/hub",)),
    ("session, service, commands, rooms", ("/server/",)),
    ("asyncio", ("asyncio", "uvloop")),
    ("dataclasses.replace", ("dataclasses",)),
    ("logging", ("logging",)),
)


def _group(filename: str, function: str) -> str:
    for name, needles in GROUPS:
        if any(n in filename for n in needles):
            return name
    if function.startswith("<built-in method _asyncio"):
        return "asyncio"
    return "builtins (len, getattr, join, ...)"


def report(path: str, actions: int, top: int = 25) -> str:
    stats: Any = pstats.Stats(path)
    rows = stats.stats
    total = sum(row[2] for row in rows.values())
    groups: collections.Counter[str] = collections.Counter()
    for (filename, _line, function), row in rows.items():
        groups[_group(filename, function)] += row[2]
    lines = [
        f"self time {total:.2f} s over {actions} actions (profiled, ~4x slower than unprofiled)",
        "",
        "| part | self time | share |",
        "| --- | --- | --- |",
    ]
    for name, seconds in groups.most_common():
        lines.append(f"| {name} | {seconds:.2f} s | {100 * seconds / total:.1f} % |")
    lines += ["", f"top {top} by self time (calls, self s, cumulative s):"]
    ordered = sorted(rows.items(), key=lambda kv: -kv[1][2])[:top]
    for (filename, line, function), row in ordered:
        short = filename.split("site-packages/")[-1].split("/lib/python3")[-1]
        lines.append(f"  {row[1]:>8} {row[2]:7.3f} {row[3]:7.3f}  {short}:{line}({function})")
    return "\n".join(lines)


def serve(out: str) -> int:
    """``parlor serve`` with cProfile on between SIGUSR1 and SIGUSR2 (which dumps it)."""
    from server.cli import main

    profile = cProfile.Profile()

    def on(*_: Any) -> None:
        profile.enable()

    def off(*_: Any) -> None:
        profile.disable()
        profile.dump_stats(out)

    signal.signal(signal.SIGUSR1, on)
    signal.signal(signal.SIGUSR2, off)
    return main(["serve"])


class Profiled:
    def __init__(self, out: str) -> None:
        self.serve: tuple[str, ...] = ("-m", "bench.profile_server", "--serve", out)
        self.out = out

    def opened(self, pid: int) -> None:
        os.kill(pid, signal.SIGUSR1)

    def closed(self, pid: int) -> None:
        if os.path.exists(self.out):
            os.remove(self.out)
        os.kill(pid, signal.SIGUSR2)


async def _run(rooms: int, seconds: float, game: str, out: str) -> dict[str, Any]:
    from bench import load

    window = Profiled(out)
    result = await load.play(rooms, seconds, game, 0.0, window=window)
    for _ in range(100):  # the dump is written by the server as it handles SIGUSR2
        if os.path.exists(out):
            break
        await asyncio.sleep(0.1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--game", default="numberswap")
    parser.add_argument("--out", default="parlor.prof")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--serve", metavar="OUT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        sys.exit(serve(args.serve))
    result = asyncio.run(_run(args.rooms, args.seconds, args.game, args.out))
    print(report(args.out, result["actions"], args.top))


if __name__ == "__main__":
    main()

"""How flat-out actions/s grow with ``parlor serve --workers N`` on this machine (not a test).

Each run is ``bench/load.py``'s ``play`` (R rooms x 8 seats acting at machine speed, one
redis-server) against ``parlor serve --workers N``; runs alternate between the worker counts
(1, 2, 1, 2, ...) so that a drift of the machine falls on both alike. The server's CPU is
summed over the supervisor and its workers (``load.py`` reads one process only).

The load generator is one Python process on the same machine: its own CPU (``loadgen busy``,
in cores) and Redis's are reported next to the server's, so a table can say whether the server
or the cores it shares were the limit.

    python -m bench.workers --rooms 20 --seconds 15 --workers 1 2 --repeat 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from bench import common, load


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return []
    return [int(p) for p in text.split()]


def tree_cpu_seconds(pid: int) -> float:
    """CPU used so far by ``pid`` and the children it has now (the workers)."""
    total = load.cpu_seconds(pid)
    for child in _children(pid):
        total += tree_cpu_seconds(child)
    return total


class Workers:
    """``play``'s window: runs ``parlor serve --workers N`` and reads the CPU of all of it."""

    def __init__(self, workers: int) -> None:
        self.serve = (*common.SERVE, "--workers", str(workers))
        self.workers = workers
        self.cpu = 0.0
        self.elapsed = 0.0
        self.pids = 0

    def opened(self, pid: int) -> None:
        self.pids = len(_children(pid))
        self._cpu = tree_cpu_seconds(pid)
        self._at = time.perf_counter()

    def closed(self, pid: int) -> None:
        self.cpu = tree_cpu_seconds(pid) - self._cpu
        self.elapsed = time.perf_counter() - self._at


async def run(rooms: int, seconds: float, game: str, workers: int) -> dict[str, Any]:
    window = Workers(workers)
    result = await load.play(rooms, seconds, game, 0.0, window=window)
    actions = max(result["actions"], 1)
    return {
        "workers": workers,
        "worker_processes": window.pids or 1,
        "actions_per_s": result["actions_per_s"],
        "server_cpu_ms_per_action": round(1000 * window.cpu / actions, 3),
        "server_cpu_busy": round(window.cpu / window.elapsed, 2),
        "redis_cpu_ms_per_action": result["redis_cpu_ms_per_action"],
        "loadgen_cpu_busy": result["loadgen_cpu_busy"],
        "p50_ms": result["p50_ms"],
        "p99_ms": result["p99_ms"],
        # Whatever else runs on the machine takes cores from both the server and the loadgen.
        "loadavg_1m": round(os.getloadavg()[0], 1),
    }


def table(runs: list[dict[str, Any]]) -> str:
    keys = [
        ("actions_per_s", "actions/s"),
        ("server_cpu_ms_per_action", "server CPU ms/action"),
        ("server_cpu_busy", "server busy (cores)"),
        ("redis_cpu_ms_per_action", "Redis CPU ms/action"),
        ("loadgen_cpu_busy", "loadgen busy (cores)"),
        ("p50_ms", "p50 ms"),
        ("p99_ms", "p99 ms"),
    ]
    counts = sorted({r["workers"] for r in runs})
    lines = ["| workers | " + " | ".join(label for _, label in keys) + " |"]
    lines.append("| --- " * (len(keys) + 1) + "|")
    for n in counts:
        mine = [r for r in runs if r["workers"] == n]
        cells = [f"{statistics.median(r[key] for r in mine):g}" for key, _ in keys]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--game", default="numberswap")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    runs = []
    for _ in range(args.repeat):
        for n in args.workers:
            runs.append(asyncio.run(run(args.rooms, args.seconds, args.game, n)))
            print(json.dumps(runs[-1]), flush=True)
    print(f"cores: {len(os.sched_getaffinity(0))}; medians of {args.repeat} runs each:")
    print(table(runs))


if __name__ == "__main__":
    main()

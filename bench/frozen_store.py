"""How long a player waits for an answer while Redis is frozen (not a test).

Starts Debian's ``redis-server`` on a free loopback port and one Parlor instance on it (in this
process, with the default settings: a 1 s Redis timeout), seats two players in a Number Swap
room, then freezes Redis (SIGSTOP) and times, on this process's monotonic clock, how long each of
these takes to be answered: a move (``act`` → ``unavailable``), a ``sync``, a ``resume`` on a new
connection, and ``GET /healthz`` (→ 503). Redis is resumed (SIGCONT) after each round. The
figures are in docs/benchmarks.md ("A frozen store"); the failure model in docs/architecture.md
cites them.

    python -m bench.frozen_store --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx

from server.ops.config import Settings
from server.stores.redis_store import RedisStore
from tests.redis_process import RedisProcess
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve


async def _answer(client: Client, kind: str, seq: int | None = None) -> dict[str, Any]:
    def done(m: dict[str, Any]) -> bool:
        if seq is not None:
            return m["type"] in ("ack", "error") and m.get("seq") == seq
        return m["type"] in ("state", "error", "welcome")

    return await client.until(done, timeout=30)


async def one_round(settings: Settings, redis: RedisProcess) -> dict[str, float]:
    figures: dict[str, float] = {}
    async with serve(settings, RedisStore(redis.url, timeout=settings.redis_timeout)) as server:
        code = await create_room(server.http, "numberswap")
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        mover = next(c for c in clients if c.state and c.state["view"]["legal"])
        token = mover.welcome["token"]  # type: ignore[index]
        redis.pause()
        try:
            began = time.monotonic()
            seq = await mover.act(mover.state["view"]["legal"][0])  # type: ignore[index]
            answer = await _answer(mover, "act", seq)
            figures["act"] = time.monotonic() - began
            figures["act answered unavailable"] = float(answer.get("code") == "unavailable")
            began = time.monotonic()
            await mover.send({"type": "sync"})
            await _answer(mover, "sync")
            figures["sync"] = time.monotonic() - began
            again = await Client.open(server.ws, code)
            began = time.monotonic()
            await again.send({"type": "resume", "token": token})
            await _answer(again, "resume")
            figures["resume"] = time.monotonic() - began
            async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
                began = time.monotonic()
                health = await http.get("/healthz")
                figures["healthz"] = time.monotonic() - began
                figures["healthz status"] = float(health.status_code)
        finally:
            redis.resume()
    return figures


async def main(rounds: int, timeout: float) -> None:
    settings = TEST_SETTINGS.model_copy(update={"redis_timeout": timeout, "check_interval": 1.0})
    with TemporaryDirectory() as tmp, RedisProcess(workdir=Path(tmp)).start() as redis:
        runs = [await one_round(settings, redis) for _ in range(rounds)]
    print(f"Redis frozen (SIGSTOP), redis_timeout {timeout:g} s, {rounds} rounds:")
    for name in runs[0]:
        values = [r[name] for r in runs]
        if name.endswith("status") or name.endswith("unavailable"):
            print(f"  {name}: {sorted(set(values))}")
        else:
            print(f"  {name}: median {statistics.median(values):.2f} s, max {max(values):.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=1.0, help="PARLOR_REDIS_TIMEOUT")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.timeout))

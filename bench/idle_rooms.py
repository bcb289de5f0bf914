"""What idle turn-based rooms cost a server: 10,000 games played by text that nobody has open.

A turn-based room (docs/protocol.md, "Live and turn-based rooms") spends most of its life
waiting days for a player. This bench starts ``parlor serve`` (on SQLite, and on a redis-server
it starts), reads what the server process holds (its RSS, and from ``/metrics`` its asyncio
tasks, the rooms it holds an object for and the timers it has set for rooms), then makes N
turn-based rooms the way friends do — create, two people join from their own connection, the
host starts, everyone closes the page — half of them with a one-day turn timer, and reads the
same again once every page is closed. It also reports what the store keeps per room (the SQLite
file, Redis's ``used_memory``) and how many entries the wake index holds (the rooms with a
timer).

    python -m bench.idle_rooms                 # 10,000 rooms, SQLite then Redis
    python -m bench.idle_rooms --rooms 2000 --store sqlite
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import redis
from websockets.asyncio.client import connect

from bench.common import parlor_serve
from tests.processes import free_port
from tests.redis_process import RedisProcess

DAY = 86_400


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def gauges(http: str) -> dict[str, float]:
    with urllib.request.urlopen(f"{http}/metrics", timeout=10) as response:
        text = response.read().decode()
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("parlor_") and " " in line and "{" not in line:
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


def post(http: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{http}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.load(response)
    return answer


async def one_room(http: str, ws: str, index: int) -> None:
    """Create a turn-based room, two people join, the host starts, both close the page."""
    body: dict[str, Any] = {"game": "floor", "mode": "turns"}
    if index % 2:
        body["turn_timer"] = DAY
    code = (await asyncio.to_thread(post, http, "/api/rooms", body))["code"]
    pages = []
    for name in ("Ana", "Ben"):
        page = await connect(f"{ws}/ws/{code}?format=json", compression=None)
        await page.send(json.dumps({"type": "join", "name": name, "key": secrets.token_hex(12)}))
        while json.loads(await page.recv())["type"] != "welcome":
            pass
        pages.append(page)
    await pages[0].send(json.dumps({"type": "start", "seq": 1}))
    while True:
        message = json.loads(await pages[0].recv())
        if message["type"] == "ack" and message["seq"] == 1:
            break
        if message["type"] == "error":
            raise RuntimeError(message)
    for page in pages:
        await page.close()


async def make_rooms(http: str, ws: str, rooms: int, parallel: int = 24) -> None:
    queue = iter(range(rooms))

    async def worker() -> None:
        for index in queue:
            await one_room(http, ws, index)

    await asyncio.gather(*(worker() for _ in range(parallel)))


def settle(http: str, timeout: float = 120.0) -> dict[str, float]:
    """The gauges once every page is closed and nothing is held for any room."""
    deadline = time.monotonic() + timeout
    while True:
        now = gauges(http)
        if now.get("parlor_connections") == 0 and now.get("parlor_rooms_held") == 0:
            return now
        if time.monotonic() > deadline:
            return now
        time.sleep(0.5)


def measure(store: str, rooms: int) -> dict[str, Any]:
    port = free_port()
    http, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "PARLOR_CREATE_BURST": "1000000",
            "PARLOR_FLOOD_RATE": "1000",
            "PARLOR_FLOOD_BURST": "1000",
            "PARLOR_MAX_CONNECTIONS_PER_ADDRESS": "100000",
        }
        redis_process = RedisProcess() if store == "redis" else None
        if redis_process is not None:
            redis_process.__enter__()
            env["REDIS_URL"] = redis_process.url
        else:
            env["PARLOR_DATA_PATH"] = str(Path(tmp) / "parlor.db")
            env["PARLOR_EPHEMERAL"] = "false"
        try:
            process = parlor_serve(port, Path(tmp) / "serve.log", **env)
            with process:
                # Warm up: one room through the whole path, so imports and caches are in.
                asyncio.run(make_rooms(http, ws, 1, 1))
                before_gauges = settle(http)
                before_rss = rss_mib(process.pid)
                before_store = store_bytes(store, tmp, redis_process)
                started = time.monotonic()
                asyncio.run(make_rooms(http, ws, rooms))
                made_in = time.monotonic() - started
                after_gauges = settle(http)
                after_rss = rss_mib(process.pid)
                after_store = store_bytes(store, tmp, redis_process)
                wakes = wake_entries(store, tmp, redis_process)
        finally:
            if redis_process is not None:
                redis_process.__exit__(None, None, None)
    return {
        "store": store,
        "rooms": rooms,
        "made_in_s": round(made_in, 1),
        "rss_mib": (round(before_rss, 1), round(after_rss, 1)),
        "tasks": (before_gauges.get("parlor_tasks"), after_gauges.get("parlor_tasks")),
        "rooms_held": (
            before_gauges.get("parlor_rooms_held"),
            after_gauges.get("parlor_rooms_held"),
        ),
        "room_timers": (
            before_gauges.get("parlor_room_timers"),
            after_gauges.get("parlor_room_timers"),
        ),
        "store_bytes_per_room": round((after_store - before_store) / rooms),
        "wake_entries": wakes,
    }


def store_bytes(store: str, tmp: str, redis_process: RedisProcess | None) -> int:
    if redis_process is not None:
        client = redis.Redis.from_url(redis_process.url)
        used = int(client.info("memory")["used_memory"])
        client.close()
        return used
    total = 0
    for name in os.listdir(tmp):
        if name.startswith("parlor.db"):
            total += os.path.getsize(Path(tmp) / name)
    return total


def wake_entries(store: str, tmp: str, redis_process: RedisProcess | None) -> int:
    if redis_process is not None:
        client = redis.Redis.from_url(redis_process.url)
        count = int(client.zcard("parlor:wakes"))
        client.close()
        return count
    import sqlite3

    db = sqlite3.connect(Path(tmp) / "parlor.db")
    try:
        (count,) = db.execute("SELECT count(*) FROM wakes").fetchone()
    finally:
        db.close()
    return int(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--store", choices=["sqlite", "redis", "both"], default="both")
    args = parser.parse_args()
    stores = ["sqlite", "redis"] if args.store == "both" else [args.store]
    print(
        "| store | rooms | made in | server RSS before → after | asyncio tasks | rooms held "
        "| room timers | store bytes per room | wake index entries |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for store in stores:
        r = measure(store, args.rooms)
        print(
            f"| {r['store']} | {r['rooms']:,} | {r['made_in_s']} s "
            f"| {r['rss_mib'][0]} → {r['rss_mib'][1]} MiB "
            f"| {r['tasks'][0]:.0f} → {r['tasks'][1]:.0f} "
            f"| {r['rooms_held'][0]:.0f} → {r['rooms_held'][1]:.0f} "
            f"| {r['room_timers'][0]:.0f} → {r['room_timers'][1]:.0f} "
            f"| {r['store_bytes_per_room']:,} | {r['wake_entries']:,} |",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Draining and workers, with real ``parlor serve`` processes on one real redis-server.

A rolling restart: three instances, players spread over them and playing at machine speed;
each instance in turn gets SIGTERM, is waited for, and is started again on its port, while the
others carry the game. Its players are told 1012 "service restart", resume on the next
instance and resend what was not answered (as the web client does). Afterwards the move log
replays, every acknowledged move is in it exactly once, no move is doubled, no bot had to play
for anybody, and every player holds the room's final version.

``parlor serve --workers 2``: two instances (two instance ids) answer on one port, a game plays
across them, a worker that dies is replaced, and SIGTERM to the supervisor ends them all.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

from rules.codec import unpack
from server.stores.redis_store import RedisStore
from server.transport.protocol import CloseCode
from tests.processes import Process
from tests.server.driver import audit_log, play, seat_clients, start
from tests.server.harness import ROOT, create_room, serve_process
from tests.server.roaming import Roamer, Table

SEATS = 4


async def rolling_restart(servers: list[Process], addrs: list[str], redis_url: str) -> None:
    bases = [f"ws://{addr}" for addr in addrs]
    code = await create_room(f"http://{addrs[0]}", "toy", {"hand": 6})
    table = Table()
    players = [Roamer(bases, i % len(bases), code, f"P{i}", table) for i in range(SEATS)]
    for player in players:
        await player.enter()
    host = players[0]
    await host.command({"type": "start"})
    while host.pending is not None:
        host._handle(unpack(await asyncio.wait_for(host.ws.recv(), 10)))  # type: ignore[union-attr]
    games = [
        asyncio.create_task(p.play(random.Random(70 + i), host=i == 0))
        for i, p in enumerate(players)
    ]
    try:
        for server in servers:
            await table.acks(20)
            server.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(server.exits_within, 30), "a draining instance hung"
            await asyncio.to_thread(server.start)
        await table.acks(20)
        table.finish.set()
        await asyncio.gather(*games)
    finally:
        for game in games:
            game.cancel()
    await audit(redis_url, code, players)
    for player in players:
        await player.close()


async def audit(redis_url: str, code: str, players: list[Roamer]) -> None:
    acked = {(p.seat, seq) for p in players for seq in p.acks if p.sent[seq]["type"] == "act"}
    store = RedisStore(redis_url)
    try:
        room = await audit_log(store, code, acked)
        entries = [unpack(raw) for _, raw in await store.log(code)]
    finally:
        await store.close()
    assert not [e for e in entries if e["kind"] == "bot"], "nobody was away long enough for a bot"
    for player in players:
        assert player.state is not None and player.state["version"] == room.version
        assert player.closes, f"{player.name} was on an instance that restarted"
        assert set(player.closes) == {CloseCode.SERVICE_RESTART}, player.closes
        assert max(player.gaps) < 5, f"{player.name} was away {max(player.gaps):.1f} s"


def test_a_rolling_restart_under_play_loses_and_doubles_nothing(redis_clean: str) -> None:
    with ExitStack() as stack:
        started = [stack.enter_context(serve_process(redis_clean)) for _ in range(3)]
        servers = [server for server, _ in started]
        asyncio.run(rolling_restart(servers, [addr for _, addr in started], redis_clean))


# -- workers ---------------------------------------------------------------------------------


def instance_id(addr: str) -> str:
    """The instance that answers ``/healthz`` on a new connection."""
    host, port = addr.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        conn.request("GET", "/healthz")
        body = json.loads(conn.getresponse().read())
    finally:
        conn.close()
    assert body["ok"], body
    found: str = body["instance"]
    return found


def children(pid: int) -> set[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return {int(p) for p in text.split()}


def seen_instances(addr: str, want: int, tries: int = 200) -> set[str]:
    """Instance ids answering on new connections, until ``want`` are seen (at most ``tries``
    connections: a request that names no room goes to the workers in turn)."""
    seen: set[str] = set()
    for _ in range(tries):
        seen.add(instance_id(addr))
        if len(seen) >= want:
            break
    return seen


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def play_across(addr: str) -> None:
    code = await create_room(f"http://{addr}", "toy", {"hand": 4})
    clients = await seat_clients([f"ws://{addr}"], code, SEATS)
    await start(clients[0])
    await play(clients, seed=5)
    for client in clients:
        await client.close()


def test_workers_share_one_port_are_replaced_when_they_die_and_drain_together(
    redis_clean: str,
) -> None:
    with serve_process(redis_clean, args=("--workers", "2")) as (server, addr):
        workers = children(server.pid)
        assert len(workers) == 2
        first = seen_instances(addr, 2)
        assert len(first) == 2, "two instances answer on the one port"
        asyncio.run(play_across(addr))

        dead = min(workers)
        os.kill(dead, signal.SIGKILL)
        # The supervisor starts a new worker: a third instance id shows up on the port.
        for _ in range(100):
            try:
                if {instance_id(addr) for _ in range(10)} - first:
                    break
            except ConnectionResetError:
                pass  # it was handed to the killed worker as the worker died
            server.exits_within(0.1)
        else:
            raise AssertionError("no new worker answered after one was killed")
        replaced = children(server.pid)
        assert len(replaced) == 2 and dead not in replaced

        server.send_signal(signal.SIGTERM)
        assert server.exits_within(30), "the supervisor did not end"
        assert server.wait(0) == 0
        assert not [pid for pid in replaced if alive(pid)], "every worker ended"


def test_workers_on_a_port_in_use_exit_with_one_clear_line(redis_clean: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = subprocess.run(
            [sys.executable, "-m", "server.cli", "serve", "--workers", "2", "--port", port],
            env={**os.environ, "REDIS_URL": redis_clean},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr

"""The embedded stores as ``parlor serve`` uses them: which store it picks, where the SQLite
file is, and a SIGKILL and restart on that file that loses no acknowledged move."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from rules.codec import unpack
from server.ops.config import Settings, data_file
from server.runtime.instance import make_store
from server.stores.memory_store import MemoryStore
from server.stores.redis_store import RedisStore
from server.stores.sqlite_store import SqliteStore
from tests.processes import StartError
from tests.server.driver import check_log_replays, play, play_until, seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve_process


def test_without_redis_the_store_is_sqlite_unless_ephemeral(tmp_path: Path) -> None:
    default = make_store(Settings())
    assert isinstance(default, SqliteStore) and default.path == data_file(Settings())
    chosen = make_store(Settings(data_path=tmp_path / "rooms.db"))
    assert isinstance(chosen, SqliteStore) and chosen.path == tmp_path / "rooms.db"
    assert isinstance(make_store(Settings(ephemeral=True)), MemoryStore)
    assert isinstance(make_store(TEST_SETTINGS), MemoryStore), "tests write no files"
    on_redis = Settings(redis_url="redis://localhost:6379/0", ephemeral=True)
    assert isinstance(make_store(on_redis), RedisStore)


def _acked_acts(client: Client) -> dict[int, int]:
    """Version -> seq of each of this client's actions acknowledged (first time, not resent)."""
    return {
        a["version"]: a["seq"]
        for a in client.acks
        if not a["duplicate"] and client.kinds.get(a["seq"]) == "act"
    }


async def _settle(client: Client) -> None:
    """Receive until every action this client sent is acknowledged (a game's last state can
    arrive before the ack of the move that ended it)."""
    sent = {seq for seq, kind in client.kinds.items() if kind == "act"}
    while sent - {a["seq"] for a in client.acks}:
        await client.recv()


async def test_sigkill_and_restart_on_sqlite_loses_no_acknowledged_move(tmp_path: Path) -> None:
    path = tmp_path / "data" / "rooms.sqlite3"
    with serve_process(data_path=path) as (proc, addr):
        http, ws = f"http://{addr}", f"ws://{addr}"
        assert f"embedded SQLite store in {path} " in proc.log.read_text()
        with (
            pytest.raises(StartError, match="in use by another parlor serve"),
            serve_process(data_path=path),
        ):
            pass  # a second server on the same file refuses to start
        code = await create_room(http, "toy", {"hand": 6})
        clients = await seat_clients([ws], code, 2)
        tokens = [c.welcome["token"] for c in clients]  # type: ignore[index]
        await start(clients[0])
        await asyncio.wait_for(play_until(clients, version=10), 20)
        before = max(c.state["version"] for c in clients if c.state)
        acked: dict[int, tuple[int, int]] = {}
        for seat, client in enumerate(clients):
            acked.update((v, (seat, seq)) for v, seq in _acked_acts(client).items())
        assert acked and max(acked) == before, "the last change was an acknowledged move"

        proc.kill()  # SIGKILL: no shutdown hook, no last write
        for client in clients:
            await client.close()
        proc.start()  # same port, same file

        async with httpx.AsyncClient() as web:
            health = (await web.get(f"{http}/healthz")).json()
            summary = (await web.get(f"{http}/api/rooms/{code}")).json()
        assert health["store"] == "sqlite"
        assert summary["version"] == before and summary["phase"] == "playing"
        assert [s["connected"] for s in summary["seats"]] == [False, False]
        for seat in range(2):
            clients[seat] = await Client.open(ws, code)
            await clients[seat].resume(tokens[seat])
            assert clients[seat].state is not None
            assert clients[seat].state["version"] == before, "the room as the last ack left it"
        await clients[0].until(
            lambda m: m["type"] == "state" and all(s["connected"] for s in m["room"]["seats"])
        )
        finals = await asyncio.wait_for(play(clients, seed=7), 30)
        for client in clients:
            await asyncio.wait_for(_settle(client), 10)
        for seat, client in enumerate(clients):
            acked.update((v, (seat, seq)) for v, seq in _acked_acts(client).items())
        assert all(final["view"]["over"] for final in finals)
        proc.stop()

    store = SqliteStore(path)
    await store.open(lambda notice: None)
    try:
        room = await check_log_replays(store, code)
        logged = {
            version: (entry["seat"], entry["seq"])
            for version, entry in ((v, unpack(raw)) for v, raw in await store.log(code))
            if entry["kind"] == "act"
        }
    finally:
        await store.close()
    assert room.phase.value == "finished"
    assert logged == acked, "the log holds exactly the acknowledged moves, at their versions"


def test_a_second_parlor_serve_on_the_same_file_says_so_in_one_line_and_exits_4(
    tmp_path: Path,
) -> None:
    """It was refused with a full traceback (the lock found in the app's start-up)."""
    import os
    import subprocess
    import sys

    from tests.processes import free_port

    path = tmp_path / "rooms.sqlite3"
    with serve_process(data_path=path):
        env = {**os.environ, "PARLOR_DATA_PATH": str(path), "PARLOR_PORT": str(free_port())}
        env.pop("REDIS_URL", None)
        second = subprocess.run(
            [sys.executable, "-m", "server.cli", "serve"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=Path(__file__).resolve().parents[3],
        )
    assert second.returncode == 4, second
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and "in use by another parlor serve" in lines[0], second.stderr
    assert str(path) in lines[0]
    assert "Traceback" not in second.stdout + second.stderr

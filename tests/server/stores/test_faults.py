"""Redis faults under play, with real processes: killed, restarted, paused, put back in time.

Two instances share one private redis-server; their players are split between them and play
through the fault as the web client does (an answer ``unavailable`` is resent with the same
seq). Afterwards: every acknowledged action is in the move log exactly once, the log replays to
the stored state, and every client holds the room's final version.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack

import pytest

from rules.codec import unpack
from server.rooms import Room
from server.stores.redis_store import RedisStore
from server.stores.store import Store, StoreUnavailable
from tests.redis_process import RedisProcess
from tests.server.driver import audit_log, choose, seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve

#: Redis calls give up quickly and the periodic check runs often, so faults show fast.
FAULT_SETTINGS = TEST_SETTINGS.model_copy(update={"redis_timeout": 0.3, "check_interval": 0.1})
RESENDABLE = {"unavailable", "conflict"}


async def play_through(client: Client, rnd: random.Random, timeout: float = 20.0) -> None:
    """Act whenever the view offers a move; resend the same seq while the store is down."""
    waiting: int | None = None
    acted_at = -1
    async with asyncio.timeout(timeout):
        while True:
            state = client.state
            if state is not None and state["view"] is not None:
                if state["view"]["over"]:
                    return
                if waiting is None and state["view"]["legal"] and acted_at != state["version"]:
                    waiting = await client.act(choose(state["view"], rnd))
                    acted_at = state["version"]
                    sent = client.sent[waiting]
            message = await client.recv(timeout)
            if message["type"] == "ack" and message["seq"] == waiting:
                waiting = None
            elif message["type"] == "error" and message.get("seq") == waiting:
                if message["code"] in RESENDABLE:
                    await client.send(sent)
                else:
                    # Overtaken by another seat's move (see tests/server/driver.py), or judged
                    # on the room the store went back to: either way a newer state is coming,
                    # and nothing is played again on this version (a game that stalled here
                    # would time out).
                    waiting = None


def acked_acts(clients: list[Client]) -> set[tuple[int, int]]:
    return {
        (seat, a["seq"])
        for seat, c in enumerate(clients)
        for a in c.acks
        if c.kinds.get(a["seq"]) == "act"
    }


async def audit(store: Store, code: str, clients: list[Client]) -> Room:
    """Nothing acknowledged lost, nothing applied twice, every client at the final version
    (``store`` is closed after). The room as stored."""
    try:
        room = await audit_log(store, code, acked_acts(clients))
    finally:
        await store.close()
    for client in clients:
        state = await client.state_at_least(room.version, timeout=5)
        assert state["version"] == room.version
    return room


async def table(
    stack: AsyncExitStack, redis: RedisProcess, seats: int = 4
) -> tuple[list[RunningServer], str, list[Client]]:
    a = await stack.enter_async_context(serve(FAULT_SETTINGS, RedisStore(redis.url)))
    b = await stack.enter_async_context(serve(FAULT_SETTINGS, RedisStore(redis.url)))
    code = await create_room(a.http, "toy", {"hand": 6})
    clients = await seat_clients([a.ws, b.ws], code, seats)
    await start(clients[0])
    return [a, b], code, clients


async def play_with_fault(
    server: RunningServer,
    code: str,
    clients: list[Client],
    at_version: int,
    fault: Callable[[], Awaitable[None]],
) -> None:
    """Play the game out; when the room reaches ``at_version``, run ``fault`` once.

    A spectator on its own connection watches for that version (a player's connection is
    read by its player)."""
    watcher = await Client.open(server.ws, code)
    await watcher.watch()
    games = [
        asyncio.create_task(play_through(c, random.Random(40 + i))) for i, c in enumerate(clients)
    ]
    try:
        await watcher.state_at_least(at_version, timeout=10)
        await fault()
        await asyncio.gather(*games)
    finally:
        for game in games:
            game.cancel()
        await watcher.close()


@pytest.mark.parametrize("redis_proc", ["aof"], indirect=True)
async def test_redis_killed_and_restarted_mid_game_every_client_converges(
    redis_proc: RedisProcess,
) -> None:
    """SIGKILL and an immediate restart: the notice connections come back (redis-py may
    resubscribe silently), what was in flight is resent, and nobody is left behind."""
    async with AsyncExitStack() as stack:
        servers, code, clients = await table(stack, redis_proc)

        async def kill_and_restart() -> None:
            redis_proc.kill()
            redis_proc.start()

        at = clients[0].state["version"] + 8  # type: ignore[index]
        await play_with_fault(servers[1], code, clients, at, kill_and_restart)
        await audit(RedisStore(redis_proc.url), code, clients)


async def test_redis_paused_past_the_timeout_applies_nothing_twice(
    redis_proc: RedisProcess,
) -> None:
    """SIGSTOP longer than the Redis timeout, then SIGCONT: a save whose reply never came may
    still be applied when Redis wakes. Its resend is recognised, and its notice (from this
    very instance) is not skipped, so the room does not freeze."""
    async with AsyncExitStack() as stack:
        _, code, clients = await table(stack, redis_proc)
        mover = next(c for c in clients if c.state["view"]["legal"])  # type: ignore[index]
        redis_proc.pause()
        seq = await mover.act(choose(mover.state["view"], random.Random(1)))  # type: ignore[index]
        refused = await mover.until(lambda m: m["type"] == "error" and m.get("seq") == seq, 5)
        assert refused["code"] == "unavailable"
        redis_proc.resume()
        await mover.send(mover.sent[seq])
        await mover.until(lambda m: m["type"] == "ack" and m["seq"] == seq, 5)
        await asyncio.gather(
            *(play_through(c, random.Random(60 + i)) for i, c in enumerate(clients))
        )
        await audit(RedisStore(redis_proc.url), code, clients)


@pytest.mark.slow
async def test_redis_restored_from_an_older_snapshot_rooms_continue(
    redis_proc: RedisProcess,
) -> None:
    """Redis goes back in time (a restore; a failover to a lagging replica): the rooms carry on
    from what the store holds, renumbered so that no client takes it for old news."""
    async with AsyncExitStack() as stack:
        servers, code, clients = await table(stack, redis_proc)
        snapshot = redis_proc.save(redis_proc.dir / "older.rdb")
        saved = clients[0].state["version"]  # type: ignore[index]

        async def restore() -> None:
            redis_proc.restore(snapshot)

        await play_with_fault(servers[1], code, clients, saved + 6, restore)
        store = RedisStore(redis_proc.url)
        try:
            entries = [unpack(raw) for _, raw in await store.log(code)]
        finally:
            await store.close()
        restored = [e for e in entries if e["kind"] == "restored"]
        assert restored and restored[0]["from"] == saved, "it went on from the snapshot"
        await audit_versions(clients)


async def audit_versions(clients: list[Client]) -> None:
    versions = {c.state["version"] for c in clients}  # type: ignore[index]
    assert len(versions) == 1, "every client holds the same final version"


async def test_while_redis_is_paused_sync_and_entering_are_answered_unavailable(
    redis_proc: RedisProcess,
) -> None:
    """A sync reads the store itself (it used to go only to the hub's background reload, and
    got no answer at all while the store was down); entering does too."""
    async with serve(FAULT_SETTINGS, RedisStore(redis_proc.url)) as server:
        code = await create_room(server.http, "toy")
        player = (await seat_clients([server.ws], code, 1))[0]
        late = await Client.open(server.ws, code)
        redis_proc.pause()
        await player.send({"type": "sync"})
        refused = await player.error("unavailable")
        assert "seq" not in refused and "again" in refused["message"]
        await late.send({"type": "watch"})
        await late.error("unavailable")
        redis_proc.resume()
        await player.send({"type": "sync"})
        await player.expect("state")
        await late.watch()


async def test_a_read_that_times_out_is_not_tried_again() -> None:
    """A frozen Redis answered a sync after two timeouts (a read was retried after it timed
    out), where the failure model promises one. A stand-in that accepts and never answers,
    as a stopped Redis does, sees the read once."""
    received = bytearray()
    connected = 0

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connected
        connected += 1
        while chunk := await reader.read(4096):
            received.extend(chunk)

    listener = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    store = RedisStore(f"redis://127.0.0.1:{port}", timeout=0.2)
    try:
        with pytest.raises(StoreUnavailable):
            await store.load("ABCDE")
        # Its first words (the connection's HELLO) go unanswered: one attempt, not two.
        assert received.count(b"HELLO") == 1 and connected == 1, (connected, bytes(received))
    finally:
        await store.close()
        listener.close()

"""Every connection reaches the room's latest version, whatever happens to notices.

Notices are a hint: these tests lose them in each way they can be lost (a race with a reload,
a write whose notice was never published, a store that went back in time) and check that
every client still converges, and that versions never go back on a connection.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest

from rules.codec import pack, unpack
from server import rooms
from server.rooms import commands
from server.stores import keys
from server.stores.memory_store import MemoryStore
from server.stores.redis_store import RedisStore
from server.stores.store import Notice, NoticeKind, Stored, StoreUnavailable
from tests.server.driver import check_log_replays, drive, seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve

#: No periodic check: only notices can bring news (to test the notice path on its own).
NOTICES_ONLY = TEST_SETTINGS.model_copy(update={"check_interval": 3600.0})


class RacingStore(MemoryStore):
    """A memory store that can run one hook right after a read: another instance's write
    landing between this instance's read and its fan-out."""

    hook: Callable[[], Awaitable[None]] | None = None

    async def load(self, code: str) -> Stored | None:
        stored = await super().load(code)
        hook, self.hook = self.hook, None
        if hook is not None:
            await hook()
        return stored


async def write_elsewhere(store: MemoryStore, code: str, text: str) -> int:
    """Save a chat line as another instance would (its notice from another origin)."""
    stored = await MemoryStore.load(store, code)
    assert stored is not None
    room = rooms.decode(stored.data)
    new = commands.chat(room, room.seats[0].id, text, 1.0, limit=200, keep=50).room
    notice = Notice(NoticeKind.CHANGE, code, new.version, "elsewhere")
    entry = pack({"kind": "chat"})
    await store.save(code, stored.tag, new.version, rooms.encode(new), entry, 60, notice)
    return new.version


async def test_a_notice_arriving_as_a_reload_ends_is_not_dropped() -> None:
    """The reload's done-callback used to mark the room "not refreshing" one loop turn late:
    a notice handled in that gap was dropped, and the instance's players stayed behind."""
    store = RacingStore()
    async with serve(NOTICES_ONLY, store) as server:
        code = await create_room(server.http, "toy")
        (ana,) = await seat_clients([server.ws], code, 1)

        async def second_write() -> None:
            await write_elsewhere(store, code, "second")

        store.hook = second_write
        first = await write_elsewhere(store, code, "first")
        state = await ana.state_at_least(first + 1, timeout=3)
        assert state["version"] == first + 1


@pytest.mark.slow
async def test_two_instances_converge_on_every_move(redis_clean: str) -> None:
    """Players split over two instances: after every game each client holds the final
    version, and versions never went back on any connection."""
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(serve(NOTICES_ONLY, RedisStore(redis_clean)))
        b = await stack.enter_async_context(serve(NOTICES_ONLY, RedisStore(redis_clean)))
        code = await create_room(a.http, "toy", {"hand": 6})
        clients = await seat_clients([a.ws, b.ws], code, 4)
        seen: list[list[int]] = [[] for _ in clients]
        for client, versions in zip(clients, seen, strict=True):
            record_versions(client, versions)
        moves = 0
        for game in range(90):
            if game == 0:
                await start(clients[0])
            else:
                await clients[0].send({"type": "rematch"})
            for client in clients:
                if client.state is None or client.state["room"]["round"] != game + 1:
                    await client.until(
                        lambda m, n=game + 1: m["type"] == "state" and m["room"]["round"] == n
                    )
            finals = await asyncio.wait_for(
                asyncio.gather(
                    *(drive(c, random.Random(game * 10 + i)) for i, c in enumerate(clients))
                ),
                30,
            )
            room = await check_log_replays(a.instance.store, code)
            moves += sum(1 for _ in room.state.table for _ in _) + sum(
                len(d) for d in room.state.discarded
            )
            for client in clients:
                state = await client.state_at_least(room.version, timeout=3)
                assert state["version"] == room.version
            assert all(f["view"]["over"] for f in finals)
        assert moves >= 2000
        for versions in seen:
            assert versions == sorted(versions), "versions never go back on a connection"


def record_versions(client: Client, versions: list[int]) -> None:
    receive = client.recv

    async def recording(timeout: float = 5.0) -> dict[str, Any]:
        message = await receive(timeout)
        if message["type"] == "state":
            versions.append(message["version"])
        return message

    client.recv = recording  # type: ignore[method-assign]


async def test_a_change_whose_notice_is_lost_reaches_every_client(redis_clean: str) -> None:
    """A write that published nothing (a lost notice) is found by the periodic check."""
    settings = TEST_SETTINGS.model_copy(update={"check_interval": 0.05})
    async with serve(settings, RedisStore(redis_clean)) as server:
        code = await create_room(server.http, "toy")
        (ana,) = await seat_clients([server.ws], code, 1)
        silent = RedisStore(redis_clean)
        try:
            stored = await silent.load(code)
            assert stored is not None
            room = rooms.decode(stored.data)
            new = commands.chat(room, room.seats[0].id, "quiet", 1.0, limit=200, keep=50).room
            await silent._save(
                keys=[keys.room(code), keys.log(code), keys.presence(code), keys.archive(code)],
                args=[
                    *(stored.tag, new.version, rooms.encode(new), pack({})),
                    *(60_000, 100, "nobody-listens", "x", "quiet-tag", 0),
                ],
            )
        finally:
            await silent.close()
        state = await ana.state_at_least(new.version, timeout=3)
        assert state["version"] == new.version
        assert server.instance.metrics.caught_up >= 1


async def test_a_store_gone_back_in_time_is_renumbered_above_what_was_sent(
    redis_clean: str,
) -> None:
    """The store loses the room's last changes (a restore, a failover to a lagging replica):
    the room carries on from what the store holds, under a version above every one sent, so
    no client ignores it as old news."""
    settings = TEST_SETTINGS.model_copy(update={"check_interval": 0.05})
    async with serve(settings, RedisStore(redis_clean)) as server:
        code = await create_room(server.http, "toy")
        (ana,) = await seat_clients([server.ws], code, 1)
        store = server.instance.store
        before = await store.load(code)
        assert before is not None
        for text in ("one", "two", "three"):
            await ana.send({"type": "chat", "text": text})
            await ana.expect("ack")
        sent = ana.state["version"]  # type: ignore[index]
        # Put the older record back, as a restore would (a new write: a new tag).
        raw = RedisStore(redis_clean)
        try:
            await raw._redis.hset(
                keys.room(code),
                mapping={"v": before.version, "t": "restored", "data": before.data},
            )
        finally:
            await raw.close()
        state = await ana.until(lambda m: m["type"] == "state" and m["version"] > sent, 3)
        assert state["version"] == sent + 1
        chat = server.instance.service.cached(code).chat
        assert [line.text for line in chat] == [], "the room is what the store held"
        # And it goes on: the next command applies on top of it.
        await ana.send({"type": "chat", "text": "after"})
        ack = await ana.expect("ack")
        assert ack["duplicate"] is False and ack["version"] == sent + 2
        assert server.instance.metrics.rewinds >= 1


class SlowReads(MemoryStore):
    """A memory store whose next read is answered late, with what it read at first."""

    hold: asyncio.Event | None = None

    async def load(self, code: str) -> Stored | None:
        stored = await super().load(code)
        hold, self.hold = self.hold, None
        if hold is not None:
            await hold.wait()
        return stored


async def test_a_read_overtaken_by_this_instances_save_does_not_replace_it() -> None:
    """A slow read used to overwrite the newer cached room, which looked like the store
    going back in time: the room was renumbered for nothing."""
    store = SlowReads()
    async with serve(NOTICES_ONLY, store) as server:
        code = await create_room(server.http, "toy")
        (ana,) = await seat_clients([server.ws], code, 1)
        hold = store.hold = asyncio.Event()
        server.instance.hub.refresh(code)  # its read is now under way, and slow
        await ana.send({"type": "chat", "text": "newer"})
        saved = (await ana.expect("ack"))["version"]
        hold.set()
        await ana.send({"type": "chat", "text": "newest"})
        assert (await ana.expect("ack"))["version"] == saved + 1
        kinds = [unpack(e)["kind"] for _, e in await store.log(code)]
        assert "restored" not in kinds and server.instance.metrics.rewinds == 0


class FailingRead(MemoryStore):
    """A memory store whose n-th read from now fails (0: none)."""

    fail_in = 0

    async def load(self, code: str) -> Stored | None:
        if self.fail_in:
            self.fail_in -= 1
            if not self.fail_in:
                raise StoreUnavailable("down for a moment")
        return await super().load(code)


async def test_a_connection_whose_first_snapshot_failed_catches_up() -> None:
    """A connection left behind the room it entered (the store failed after its welcome)
    used to wait for the room's next change; the periodic check now brings it up to date."""
    store = FailingRead()
    async with serve(TEST_SETTINGS.model_copy(update={"check_interval": 0.05}), store) as server:
        code = await create_room(server.http, "toy")
        await seat_clients([server.ws], code, 1)  # the room is being sent to someone here
        watcher = await Client.open(server.ws, code)
        store.fail_in = 2  # the read for the watcher's first snapshot, after its welcome
        await watcher.send({"type": "watch"})
        await watcher.expect("welcome")
        assert (await watcher.error())["code"] == "unavailable"
        state = await watcher.expect("state", timeout=3)
        assert state["room"]["seats"][0]["name"] == "P0"

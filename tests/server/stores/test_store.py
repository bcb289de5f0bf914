"""The one storage contract, run against all three stores (memory, SQLite in a temporary file,
and Redis: a real redis-server, and a real three-master Redis Cluster), then what is
particular to SQLite: a file that outlives the process."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.stores import keys
from server.stores.memory_store import MemoryStore
from server.stores.redis_store import RedisStore
from server.stores.sqlite_store import SqliteStore
from server.stores.store import (
    Notice,
    NoticeKind,
    RoomMissing,
    Stamp,
    Store,
    Stored,
    StoreUnavailable,
    VersionConflict,
)
from tests.server.harness import flush


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


#: Move-log entries kept in the suite's stores: small, so trimming is cheap to reach.
LOG_MAX = 20


@pytest.fixture(params=["memory", "sqlite", "redis", "cluster"])
async def store(
    request: pytest.FixtureRequest, clock: Clock, tmp_path: Path
) -> AsyncIterator[Store]:
    made: Store
    if request.param == "redis":
        redis_url: str = request.getfixturevalue("redis_url")
        await flush(redis_url)
        made = RedisStore(redis_url, log_max=LOG_MAX)
    elif request.param == "cluster":
        made = RedisStore(
            request.getfixturevalue("redis_cluster_clean"), log_max=LOG_MAX, cluster=True
        )
    elif request.param == "sqlite":
        made = SqliteStore(tmp_path / "rooms.sqlite3", clock=clock, log_max=LOG_MAX)
    else:
        made = MemoryStore(clock=clock, log_max=LOG_MAX)
    notices: asyncio.Queue[Notice] = asyncio.Queue()
    await made.open(notices.put_nowait)
    made.notices = notices  # type: ignore[attr-defined]
    yield made
    await made.close()


async def expire(store: Store, code: str, clock: Clock | None) -> None:
    """Make the room's time run out (for real, in Redis) and wait until the store agrees."""
    if isinstance(store, MemoryStore):
        if clock is None:
            store._rooms.pop(code)
        else:
            clock.now += 10**6
    elif isinstance(store, SqliteStore):
        if clock is None:
            await store._run(lambda db: db.execute("DELETE FROM rooms WHERE code = ?", (code,)))
        else:
            clock.now += 10**6
    else:
        client: Any = (
            aioredis.RedisCluster.from_url(store._url)
            if store._cluster
            else aioredis.Redis.from_url(store._url)
        )
        await client.pexpire(keys.room(code), 1)
        await client.aclose()
    async with asyncio.timeout(5):
        while await store.load(code) is not None:
            await asyncio.sleep(0.005)


async def watched(store: Store, code: str) -> None:
    """Watch room ``code``; for Redis, wait until the subscription is live (its RESYNC)."""
    store.watch(code)
    if isinstance(store, RedisStore):
        resync = Notice(NoticeKind.RESYNC, code, 0, "")
        assert await asyncio.wait_for(store.notices.get(), 5) == resync  # type: ignore[attr-defined]


def notice(code: str, version: int) -> Notice:
    return Notice(NoticeKind.CHANGE, code, version, "test")


async def test_create_is_exclusive_per_code(store: Store) -> None:
    assert await store.create("ABCDE", b"one", b"e1", 60)
    assert not await store.create("ABCDE", b"two", b"e2", 60)
    stored = await store.load("ABCDE")
    assert stored is not None and (stored.version, stored.data) == (1, b"one")


async def test_load_of_unknown_room_is_none(store: Store) -> None:
    assert await store.load("ZZZZZ") is None
    assert await store.ttl("ZZZZZ") is None
    assert await store.log("ZZZZZ") == []


async def test_save_is_compare_and_set_on_the_tag(store: Store) -> None:
    first = await store.create("ABCDE", b"v1", b"e1", 60)
    assert first is not None
    second = await store.save("ABCDE", first, 2, b"v2", b"e2", 60, notice("ABCDE", 2))
    assert second != first
    with pytest.raises(VersionConflict):
        await store.save("ABCDE", first, 2, b"lost", b"lost", 60, notice("ABCDE", 2))
    stored = await store.load("ABCDE")
    assert stored is not None and (stored.version, stored.data) == (2, b"v2")
    assert stored.tag == second
    assert await store.log("ABCDE") == [(1, b"e1"), (2, b"e2")]


async def test_a_record_read_before_the_store_went_back_never_overwrites(store: Store) -> None:
    """Two writes at the same version number are told apart by their tags (no ABA)."""
    first = await store.create("EPOCH", b"v1", b"e1", 60)
    assert first is not None
    old = await store.save("EPOCH", first, 2, b"old v2", b"e2", 60, notice("EPOCH", 2))
    # Someone else writes v2 again from v1 after a restore: here, by deleting and recreating.
    await expire(store, "EPOCH", None)
    again = await store.create("EPOCH", b"v1", b"e1", 60)
    assert again is not None
    await store.save("EPOCH", again, 2, b"new v2", b"e2", 60, notice("EPOCH", 2))
    with pytest.raises(VersionConflict):
        await store.save("EPOCH", old, 3, b"from old v2", b"e3", 60, notice("EPOCH", 3))
    stored = await store.load("EPOCH")
    assert stored is not None and stored.data == b"new v2"


async def test_stamps_name_each_rooms_current_write(store: Store) -> None:
    tag = await store.create("STAMP", b"v1", b"e1", 60)
    assert tag is not None
    tag = await store.save("STAMP", tag, 2, b"v2", b"e2", 60, notice("STAMP", 2))
    stamps = await store.stamps(["STAMP", "NONE2"])
    assert stamps == {"STAMP": Stamp(2, tag), "NONE2": None}
    assert await store.stamps([]) == {}


async def test_save_of_missing_room_fails(store: Store) -> None:
    with pytest.raises(RoomMissing):
        await store.save("NOPE2", "tag", 2, b"x", b"x", 60, notice("NOPE2", 2))


async def test_concurrent_saves_exactly_one_wins(store: Store) -> None:
    tag = await store.create("RACES", b"v1", b"e1", 60)
    assert tag is not None

    async def attempt(i: int) -> bool:
        try:
            await store.save(
                "RACES", tag, 2, f"d{i}".encode(), f"e{i}".encode(), 60, notice("R", 2)
            )
            return True
        except VersionConflict:
            return False

    results = await asyncio.gather(*(attempt(i) for i in range(20)))
    assert sum(results) == 1
    log = await store.log("RACES")
    assert len(log) == 2
    stored = await store.load("RACES")
    assert stored is not None and stored.data == b"d%d" % results.index(True)


async def test_save_publishes_a_notice(store: Store) -> None:
    await watched(store, "NOTES")
    tag = await store.create("NOTES", b"v1", b"e1", 60)
    assert tag is not None
    await store.save("NOTES", tag, 2, b"v2", b"e2", 60, notice("NOTES", 2))
    got = await asyncio.wait_for(store.notices.get(), 5)  # type: ignore[attr-defined]
    assert got == notice("NOTES", 2)


async def test_failed_save_publishes_nothing(store: Store) -> None:
    await watched(store, "QUIET")
    tag = await store.create("QUIET", b"v1", b"e1", 60)
    assert tag is not None
    with pytest.raises(VersionConflict):
        await store.save("QUIET", "stale", 8, b"x", b"x", 60, notice("QUIET", 8))
    await store.save("QUIET", tag, 2, b"v2", b"e2", 60, notice("QUIET", 2))
    got = await asyncio.wait_for(store.notices.get(), 5)  # type: ignore[attr-defined]
    assert got.version == 2


async def test_save_refreshes_time_to_live(store: Store) -> None:
    tag = await store.create("TTLS1", b"v1", b"e1", 60)
    assert tag is not None
    ttl = await store.ttl("TTLS1")
    assert ttl is not None and 50 < ttl <= 60
    await store.save("TTLS1", tag, 2, b"v2", b"e2", 86400, notice("TTLS1", 2))
    ttl = await store.ttl("TTLS1")
    assert ttl is not None and 86000 < ttl <= 86400


async def test_expired_room_is_gone_and_its_code_free(store: Store, clock: Clock) -> None:
    tag = await store.create("GONE2", b"v1", b"e1", 60)
    assert tag is not None
    tag = await store.save("GONE2", tag, 2, b"v2", b"e2", 60, notice("GONE2", 2))
    await expire(store, "GONE2", clock)
    with pytest.raises(RoomMissing):
        await store.save("GONE2", tag, 3, b"v3", b"e3", 60, notice("GONE2", 3))
    assert await store.create("GONE2", b"new", b"n1", 60)
    assert await store.log("GONE2") == [(1, b"n1")], "an old log never leaks into a new room"


async def test_presence_is_the_union_of_live_claims(store: Store) -> None:
    await store.create("HERE2", b"v1", b"e1", 60)
    await store.set_presence("HERE2", "a", [1, 2], 30, None)
    await store.set_presence("HERE2", "b", [2, 5], 30, None)
    assert await store.presence("HERE2") == {1, 2, 5}
    await store.set_presence("HERE2", "b", [], 30, None)
    assert await store.presence("HERE2") == {1, 2}
    await store.set_presence("HERE2", "a", [9], -1, None)  # a claim that already lapsed
    assert await store.presence("HERE2") == set()


async def test_presence_change_can_notify(store: Store) -> None:
    await watched(store, "HERE3")
    await store.create("HERE3", b"v1", b"e1", 60)
    sent = Notice(NoticeKind.PRESENCE, "HERE3", 0, "a")
    await store.set_presence("HERE3", "a", [1], 30, sent)
    assert await asyncio.wait_for(store.notices.get(), 5) == sent  # type: ignore[attr-defined]


async def test_codes_lists_live_rooms(store: Store) -> None:
    for code in ("AAAAA", "BBBBB", "CCCCC"):
        await store.create(code, b"v", b"e", 60)
    assert sorted(await store.codes(100)) == ["AAAAA", "BBBBB", "CCCCC"]
    assert len(await store.codes(2)) == 2


async def test_a_save_writes_the_earlier_entries_of_its_batch_to_the_log_first(
    store: Store,
) -> None:
    tag = await store.create("BATCH", b"v1", b"e1", 60)
    assert tag is not None
    earlier = [(2, b"e2"), (3, b"e3")]
    tag = await store.save("BATCH", tag, 4, b"v4", b"e4", 60, notice("BATCH", 4), earlier=earlier)
    assert await store.log("BATCH") == [(1, b"e1"), (2, b"e2"), (3, b"e3"), (4, b"e4")]
    assert await store.load("BATCH") == Stored(4, b"v4", tag)
    with pytest.raises(VersionConflict):
        await store.save("BATCH", "stale", 6, b"x", b"e6", 60, notice("BATCH", 6), [(5, b"e5")])
    assert len(await store.log("BATCH")) == 4, "a refused save writes none of its entries"


async def test_the_log_keeps_about_the_last_log_max_entries(store: Store) -> None:
    tag = await store.create("TRIMS", b"v1", b"e1", 60)
    assert tag is not None
    last = LOG_MAX + 110
    for version in range(2, last + 1):
        entry = b"e%d" % version
        tag = await store.save("TRIMS", tag, version, b"v", entry, 60, notice("TRIMS", version))
    log = await store.log("TRIMS")
    # Redis trims whole stream nodes (up to 100 entries each); the others trim exactly.
    assert LOG_MAX <= len(log) <= LOG_MAX + 100
    assert log == [(v, b"e%d" % v) for v in range(last + 1 - len(log), last + 1)]


async def test_the_archive_is_appended_with_its_save_and_never_trimmed(store: Store) -> None:
    tag = await store.create("ARCHV", b"v1", b"e1", 60)
    assert tag is not None
    assert await store.archive("ARCHV") == []
    last = LOG_MAX + 110
    for version in range(2, last + 1):
        kept = [b"a%d" % version] if version % 2 else []
        tag = await store.save(
            "ARCHV", tag, version, b"v", b"e", 60, notice("ARCHV", version), archive=kept
        )
    assert await store.archive("ARCHV") == [b"a%d" % v for v in range(3, last + 1, 2)]
    assert len(await store.log("ARCHV")) < last, "the log was trimmed meanwhile"


async def test_a_refused_save_adds_nothing_to_the_archive(store: Store) -> None:
    tag = await store.create("ARCHR", b"v1", b"e1", 60)
    assert tag is not None
    await store.save("ARCHR", tag, 2, b"v2", b"e2", 60, notice("ARCHR", 2), archive=[b"a", b"b"])
    with pytest.raises(VersionConflict):
        await store.save("ARCHR", "stale", 3, b"x", b"e3", 60, notice("ARCHR", 3), archive=[b"c"])
    assert await store.archive("ARCHR") == [b"a", b"b"]


async def test_an_expired_rooms_archive_never_leaks_into_a_new_room(
    store: Store, clock: Clock
) -> None:
    tag = await store.create("ARCHX", b"v1", b"e1", 60)
    assert tag is not None
    await store.save("ARCHX", tag, 2, b"v2", b"e2", 60, notice("ARCHX", 2), archive=[b"old"])
    await expire(store, "ARCHX", clock)
    assert await store.archive("ARCHX") == []
    assert await store.create("ARCHX", b"new", b"n1", 60)
    assert await store.archive("ARCHX") == []


async def test_a_room_nobody_is_connected_to_leaves_no_presence_behind(store: Store) -> None:
    """An idle room (a turn-based one waits for days) costs the process nothing: the last
    connection's empty claim removes the instance's claim instead of keeping an empty one."""
    await store.create("ROOM1", b"x", b"e", 60)
    await store.set_presence("ROOM1", "i1", [1, 2], 30, None)
    await store.set_presence("ROOM1", "i1", [], 30, None)
    assert await store.presence("ROOM1") == frozenset()
    if isinstance(store, MemoryStore | SqliteStore):
        assert store._presence == {}


async def test_the_wake_index_gives_the_due_rooms_soonest_first(store: Store) -> None:
    """The one index of turn-based rooms' next moves (server/runtime/waker.py)."""
    await store.set_wake("AAAAA", 300.0)
    await store.set_wake("BBBBB", 100.0)
    await store.set_wake("CCCCC", 200.0)
    await store.set_wake("DDDDD", 900.0)
    assert await store.due(250.0, 10) == [("BBBBB", 100.0), ("CCCCC", 200.0)]
    assert await store.due(1000.0, 2) == [("BBBBB", 100.0), ("CCCCC", 200.0)]
    await store.set_wake("BBBBB", 950.0)  # moved later
    await store.set_wake("CCCCC", 0)  # forgotten
    await store.set_wake("EEEEE", 0)  # forgetting what is not there is nothing
    assert await store.due(1000.0, 10) == [
        ("AAAAA", 300.0),
        ("DDDDD", 900.0),
        ("BBBBB", 950.0),
    ]


async def test_a_late_wake_write_from_an_older_look_changes_nothing(store: Store) -> None:
    """``expected``: written only over an absent entry, the one expected, or the same time."""
    await store.set_wake("ROOMS", 500.0, expected=0.0)  # absent: written
    await store.set_wake("ROOMS", 0.0, expected=100.0)  # an older look's "nothing due": no
    await store.set_wake("ROOMS", 300.0, expected=100.0)  # nor its "due at 300"
    assert await store.due(1000.0, 10) == [("ROOMS", 500.0)]
    await store.set_wake("ROOMS", 500.0, expected=200.0)  # the same time: fine either way
    await store.set_wake("ROOMS", 900.0, expected=500.0)  # moved on from what is there
    assert await store.due(1000.0, 10) == [("ROOMS", 900.0)]
    await store.set_wake("ROOMS", 0.0, expected=900.0)
    assert await store.due(1000.0, 10) == []


def test_notice_round_trips() -> None:
    sent = Notice(NoticeKind.CHANGE, "ABCDE", 12, "inst 1")
    assert Notice.decode(sent.encode()) == sent


async def test_a_record_from_before_tags_can_still_be_saved(redis_url: str) -> None:
    """Rooms written by a release without tags used to be refused as missing after an upgrade."""
    await flush(redis_url)
    client = aioredis.Redis.from_url(redis_url)
    await client.hset(keys.room("OLDV1"), mapping={"v": 7, "data": b"old"})
    await client.aclose()
    store = RedisStore(redis_url)
    try:
        stored = await store.load("OLDV1")
        assert stored is not None and stored.version == 7
        assert (await store.stamps(["OLDV1"]))["OLDV1"] == stored.stamp
        tag = await store.save("OLDV1", stored.tag, 8, b"new", b"e8", 60, notice("OLDV1", 8))
        again = await store.load("OLDV1")
        assert again is not None and (again.version, again.data, again.tag) == (8, b"new", tag)
    finally:
        await store.close()


# -- SQLite: what outlives the process ----------------------------------------------------------


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "rooms.sqlite3"


async def opened(path: Path, clock: Clock, **kwargs: Any) -> SqliteStore:
    store = SqliteStore(path, clock=clock, **kwargs)
    notices: asyncio.Queue[Notice] = asyncio.Queue()
    await store.open(notices.put_nowait)
    store.notices = notices  # type: ignore[attr-defined]
    return store


async def test_sqlite_a_room_survives_closing_and_reopening_the_store(
    db_path: Path, clock: Clock
) -> None:
    first = await opened(db_path, clock)
    tag = await first.create("AGAIN", b"v1", b"e1", 60)
    assert tag is not None
    tag = await first.save("AGAIN", tag, 2, b"v2", b"e2", 60, notice("AGAIN", 2))
    await first.set_presence("AGAIN", "a", [1], 30, None)
    await first.close()

    again = await opened(db_path, clock)
    try:
        stored = await again.load("AGAIN")
        assert stored is not None and (stored.version, stored.data, stored.tag) == (2, b"v2", tag)
        assert await again.log("AGAIN") == [(1, b"e1"), (2, b"e2")]
        assert await again.stamps(["AGAIN"]) == {"AGAIN": Stamp(2, tag)}
        assert await again.codes(10) == ["AGAIN"]
        assert await again.ttl("AGAIN") == 60
        assert await again.presence("AGAIN") == set(), "a restarted process has no connections"
        # The compare-and-set carries on from the tag read before the restart.
        await again.save("AGAIN", tag, 3, b"v3", b"e3", 60, notice("AGAIN", 3))
        with pytest.raises(VersionConflict):
            await again.save("AGAIN", tag, 3, b"lost", b"lost", 60, notice("AGAIN", 3))
    finally:
        await again.close()


@pytest.mark.parametrize("failing", ["log", "rooms"])
async def test_sqlite_a_save_is_one_transaction(db_path: Path, clock: Clock, failing: str) -> None:
    """A save that fails at either of its writes (the log entry or the record) leaves
    neither: the room, its log and its tag are as before, and nothing is announced."""
    store = await opened(db_path, clock)
    try:
        tag = await store.create("ATOMS", b"v1", b"e1", 60)
        assert tag is not None
        event = "INSERT" if failing == "log" else "UPDATE"
        trigger = (
            f"CREATE TRIGGER fail AFTER {event} ON {failing}"
            " BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
        )
        await store._run(lambda db: db.execute(trigger))
        with pytest.raises(StoreUnavailable, match="disk trouble"):
            await store.save("ATOMS", tag, 2, b"v2", b"e2", 60, notice("ATOMS", 2))
        stored = await store.load("ATOMS")
        assert stored is not None and (stored.version, stored.data, stored.tag) == (1, b"v1", tag)
        assert await store.log("ATOMS") == [(1, b"e1")]
        await store._run(lambda db: db.execute("DROP TRIGGER fail"))
        await store.save("ATOMS", tag, 2, b"v2", b"e2", 60, notice("ATOMS", 2))
        assert await store.log("ATOMS") == [(1, b"e1"), (2, b"e2")]
        got = await asyncio.wait_for(store.notices.get(), 5)  # type: ignore[attr-defined]
        assert got.version == 2, "the failed save announced nothing"
    finally:
        await store.close()


async def test_sqlite_expiry_holds_across_reopen(db_path: Path, clock: Clock) -> None:
    first = await opened(db_path, clock)
    await first.create("SHORT", b"s1", b"old", 60)
    await first.create("LONGS", b"l1", b"e1", 600)
    await first.close()

    clock.now += 30
    again = await opened(db_path, clock)
    assert await again.ttl("SHORT") == 30, "time ran on while the store was closed"
    await again.close()

    clock.now += 31
    last = await opened(db_path, clock)
    try:
        assert await last.load("SHORT") is None
        assert await last.codes(10) == ["LONGS"]
        assert await last.create("SHORT", b"new", b"n1", 60)
        assert await last.log("SHORT") == [(1, b"n1")], "an old log never leaks into a new room"
    finally:
        await last.close()


async def test_sqlite_expired_rooms_are_deleted_from_the_file(db_path: Path, clock: Clock) -> None:
    store = await opened(db_path, clock)
    await store.create("PURGE", b"v1", b"e1", 60)
    await store.create("STAYS", b"v1", b"e1", 600)
    clock.now += 61
    await store.close()
    store = await opened(db_path, clock)  # opening deletes what expired meanwhile
    await store.close()
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        assert db.execute("SELECT code FROM rooms").fetchall() == [("STAYS",)]
        assert db.execute("SELECT DISTINCT code FROM log").fetchall() == [("STAYS",)]

    store = await opened(db_path, clock)
    clock.now += 600
    await store.create("FRESH", b"v1", b"e1", 60)  # so does creating a room
    await store.close()
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        assert db.execute("SELECT code FROM rooms").fetchall() == [("FRESH",)]
        assert db.execute("SELECT DISTINCT code FROM log").fetchall() == [("FRESH",)]


async def test_sqlite_calls_run_in_the_order_they_were_made(db_path: Path, clock: Clock) -> None:
    store = await opened(db_path, clock)
    try:
        tag = await store.create("ORDER", b"v1", b"e1", 60)
        assert tag is not None
        saved, stored, log = await asyncio.gather(
            store.save("ORDER", tag, 2, b"v2", b"e2", 60, notice("ORDER", 2)),
            store.load("ORDER"),
            store.log("ORDER"),
        )
        assert stored == Stored(2, b"v2", saved)
        assert log == [(1, b"e1"), (2, b"e2")]
    finally:
        await store.close()


async def test_sqlite_a_second_store_on_the_same_file_is_refused(
    db_path: Path, clock: Clock
) -> None:
    store = await opened(db_path, clock)
    try:
        with pytest.raises(StoreUnavailable, match="another process"):
            await opened(db_path, clock)
    finally:
        await store.close()
    later = await opened(db_path, clock)  # closing let go of the file
    await later.close()


async def test_sqlite_the_file_can_be_read_and_backed_up_while_open(
    db_path: Path, clock: Clock, tmp_path: Path
) -> None:
    store = await opened(db_path, clock)
    try:
        await store.create("COPYS", b"v1", b"e1", 60)
        assert await store._run(lambda db: db.execute("PRAGMA synchronous").fetchone()) == (2,)
        copy = tmp_path / "copy.sqlite3"
        with (
            contextlib.closing(sqlite3.connect(db_path)) as db,
            contextlib.closing(sqlite3.connect(copy)) as target,
        ):
            assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            assert db.execute("SELECT code FROM rooms").fetchall() == [("COPYS",)]
            db.backup(target)
        # The store goes on writing while another connection has read.
        await store.create("AFTER", b"v1", b"e1", 60)
    finally:
        await store.close()
    restored = await opened(copy, clock)
    try:
        assert await restored.codes(10) == ["COPYS"]
    finally:
        await restored.close()


async def test_sqlite_the_file_is_created_private(db_path: Path, clock: Clock) -> None:
    """Room secrets are in it: the file is its owner's only, and so is a directory made for it."""
    store = await opened(db_path / "deeper" / "rooms.sqlite3", clock)
    await store.close()
    made = db_path / "deeper"
    assert stat.S_IMODE((made / "rooms.sqlite3").stat().st_mode) == 0o600
    assert stat.S_IMODE(made.stat().st_mode) == 0o700


async def test_sqlite_a_file_of_another_schema_is_refused(db_path: Path, clock: Clock) -> None:
    db_path.parent.mkdir()
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreUnavailable, match="schema version 99"):
        await opened(db_path, clock)
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        db.execute("PRAGMA user_version = 0")
    later = await opened(db_path, clock)  # the refusal let go of the file
    await later.close()


async def test_sqlite_a_closed_store_is_unavailable(db_path: Path, clock: Clock) -> None:
    store = await opened(db_path, clock)
    await store.close()
    with pytest.raises(StoreUnavailable):
        await store.load("CLOSE")


async def test_sqlite_a_file_from_before_the_archive_opens_and_keeps_its_rooms(
    db_path: Path, clock: Clock
) -> None:
    """A file written before game records existed (no ``archive`` table) opens unchanged: the
    table is added, its rooms carry on."""
    db_path.parent.mkdir(parents=True)
    old = sqlite3.connect(db_path)
    old.executescript(
        """
        CREATE TABLE rooms (code TEXT PRIMARY KEY, version INTEGER NOT NULL, tag TEXT NOT NULL,
            data BLOB NOT NULL, expires REAL NOT NULL, log_len INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE log (id INTEGER PRIMARY KEY, code TEXT NOT NULL, version INTEGER NOT NULL,
            entry BLOB NOT NULL);
        PRAGMA user_version = 1;
        """
    )
    old.execute("INSERT INTO rooms VALUES ('OLDDB', 1, 'oldtag', x'00', ?, 1)", (clock.now + 60,))
    old.commit()
    old.close()
    store = await opened(db_path, clock)
    try:
        assert await store.archive("OLDDB") == []
        await store.save("OLDDB", "oldtag", 2, b"v2", b"e2", 60, notice("OLDDB", 2), archive=[b"a"])
        assert await store.archive("OLDDB") == [b"a"]
    finally:
        await store.close()

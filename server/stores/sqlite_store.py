"""The SQLite store: the durable embedded default, for one process.

Rooms and their move logs live in one SQLite file (standard library only), so a restarted
``parlor serve`` finds every room as its last acknowledged move left it. Same contract as the
other stores (:mod:`server.stores.store`), same test suite. What is particular to it:

* **Durability.** WAL journal with ``synchronous=FULL``: every save is one transaction whose
  commit is on disk (fsync'd) before ``save`` returns, so an acknowledged move survives a
  SIGKILL of the process and a power cut alike, the promise Redis gives with
  ``appendfsync always``. A card table makes a few writes a second; one fsync each is cheap.
* **One thread.** sqlite3 blocks, so a one-thread executor owns the connection and runs every
  call in the order it was made (its queue is first in, first out): calls for one room stay
  ordered, the event loop only awaits, and the GIL is released while SQLite works.
* **One process.** A lock file beside the database (``rooms.sqlite3.lock``, held with
  ``flock`` while the store is open; the kernel drops it when the process dies) refuses a
  second process on the same file: it would not hear this one's notices. The database itself
  is not locked, so ``sqlite3`` can read it, or back it up, while the server runs.
* **Notices** go to this process's handler only, on a loop turn after the commit (even if the
  caller was cancelled meanwhile), as the memory store delivers them.
* **Presence** is the liveness of this process's connections, so it stays in memory: a
  restarted process has no connections, and every seat starts out not connected.
* **Expiry** is by wall clock (stored as Unix time, so it holds across restarts). An expired
  room reads as missing; it and its log are deleted when the store opens and whenever a room is
  created, so its code is free and its old log never leaks into a new room.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from server.stores.store import (
    Notice,
    NoticeHandler,
    RoomMissing,
    Stamp,
    Store,
    Stored,
    StoreUnavailable,
    VersionConflict,
    new_tag,
)

T = TypeVar("T")

#: ``PRAGMA user_version`` of the schema below; a file with another one is refused.
SCHEMA_VERSION = 1

# ``log_len`` counts the room's log entries, so a save trims the oldest without counting them.
# ``log.id`` only grows while a room lives, so it orders each room's entries; so does
# ``archive.id`` (the facts of the room's game records, never trimmed; added by CREATE IF NOT
# EXISTS, so a file from before it opens unchanged).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    tag TEXT NOT NULL,
    data BLOB NOT NULL,
    expires REAL NOT NULL,
    log_len INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rooms_by_expiry ON rooms (expires);
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL,
    version INTEGER NOT NULL,
    entry BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS log_by_room ON log (code, id);
CREATE TABLE IF NOT EXISTS archive (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL,
    entry BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS archive_by_room ON archive (code, id);
CREATE TABLE IF NOT EXISTS wakes (
    code TEXT PRIMARY KEY,
    at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS wakes_by_time ON wakes (at);
"""

#: Codes per query in ``stamps`` (well below SQLite's limit on parameters).
_CHUNK = 500


def held_by_another(path: Path) -> bool:
    """Whether another process holds ``path``'s lock (the one :class:`SqliteStore` takes):
    ``parlor serve`` checks before it starts, to say so in one line."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing it lets go of a lock it took
    return False


class SqliteStore(Store):
    kind = "sqlite"

    def __init__(
        self,
        path: Path,
        clock: Callable[[], float] = time.time,
        log_max: int = 10_000,
        busy_timeout: float = 2.0,
    ) -> None:
        self.path = path
        self._clock = clock
        self._log_max = log_max
        self._busy_timeout = busy_timeout
        self._lock_path = path.with_name(path.name + ".lock")
        # Only ever touched by the worker thread.
        self._db: sqlite3.Connection | None = None
        self._lock_fd: int | None = None
        self._worker: ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # code -> instance -> (expires at, seat ids)
        self._presence: dict[str, dict[str, tuple[float, list[int]]]] = {}
        self._on_notice: NoticeHandler | None = None

    # -- the worker thread ------------------------------------------------------------------

    async def open(self, on_notice: NoticeHandler) -> None:
        self._loop = asyncio.get_running_loop()
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parlor-sqlite")
        try:
            await self._loop.run_in_executor(worker, self._connect)
        except (sqlite3.Error, OSError) as exc:
            worker.shutdown(wait=False)
            raise StoreUnavailable(f"cannot open {self.path}: {exc}") from exc
        self._worker = worker
        self._on_notice = on_notice

    def _connect(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            raise OSError(
                f"{self._lock_path} is held: another process uses this file (one process only)"
            ) from None
        try:
            # Room secrets are in it: readable by its owner only (SQLite gives its -wal and
            # -shm files the same permissions).
            self.path.touch(mode=0o600)
            db = sqlite3.connect(
                self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=True
            )
            try:
                self._prepare(db)
            except BaseException:
                db.close()
                raise
        except BaseException:
            os.close(lock_fd)
            raise
        self._db, self._lock_fd = db, lock_fd

    def _prepare(self, db: sqlite3.Connection) -> None:
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise sqlite3.OperationalError(f"journal mode is {mode}, not wal")
        db.execute("PRAGMA synchronous = FULL")
        found = db.execute("PRAGMA user_version").fetchone()[0]
        if found not in (0, SCHEMA_VERSION):
            raise sqlite3.DatabaseError(
                f"schema version {found}, this server knows {SCHEMA_VERSION}"
            )
        db.executescript(_SCHEMA)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        _transaction(db, lambda: _sweep(db, self._clock()))

    def _disconnect(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    async def close(self) -> None:
        self._on_notice = None
        worker, self._worker = self._worker, None
        if worker is None:
            return
        try:
            # Queued behind every call already made, so those finish first.
            await asyncio.get_running_loop().run_in_executor(worker, self._disconnect)
        finally:
            worker.shutdown(wait=False)

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` with the connection on the worker thread, after every earlier call."""
        worker = self._worker
        if worker is None:
            raise StoreUnavailable(f"{self.path}: the store is closed")

        def call() -> T:
            if self._db is None:
                raise StoreUnavailable(f"{self.path}: the store is closed")
            return work(self._db)

        try:
            return await asyncio.get_running_loop().run_in_executor(worker, call)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"{self.path}: {exc}") from exc

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` as one transaction: all of it is committed (on disk), or none."""
        return await self._run(lambda db: _transaction(db, lambda: work(db)))

    def _notify(self, notice: Notice) -> None:
        """From the worker, after a commit: deliver ``notice`` on the event loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._deliver, notice)

    def _deliver(self, notice: Notice) -> None:
        handler = self._on_notice
        if handler is not None:
            handler(notice)

    # -- the contract -----------------------------------------------------------------------

    async def ping(self) -> None:
        await self._run(lambda db: db.execute("SELECT 1").fetchone())

    async def create(self, code: str, data: bytes, entry: bytes, ttl: float) -> str | None:
        tag = new_tag()

        def create(db: sqlite3.Connection) -> bool:
            now = self._clock()
            _sweep(db, now)
            if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone():
                return False
            db.execute("DELETE FROM log WHERE code = ?", (code,))
            db.execute("DELETE FROM archive WHERE code = ?", (code,))
            db.execute(
                "INSERT INTO rooms (code, version, tag, data, expires, log_len)"
                " VALUES (?, 1, ?, ?, ?, 1)",
                (code, tag, data, now + ttl),
            )
            db.execute("INSERT INTO log (code, version, entry) VALUES (?, 1, ?)", (code, entry))
            return True

        if not await self._write(create):
            return None
        self._presence.pop(code, None)
        return tag

    async def load(self, code: str) -> Stored | None:
        def load(db: sqlite3.Connection) -> Stored | None:
            row = db.execute(
                "SELECT version, data, tag FROM rooms WHERE code = ? AND expires > ?",
                (code, self._clock()),
            ).fetchone()
            return None if row is None else Stored(row[0], row[1], row[2])

        return await self._run(load)

    async def save(
        self,
        code: str,
        expected: str,
        version: int,
        data: bytes,
        entry: bytes,
        ttl: float,
        notice: Notice,
        earlier: Sequence[tuple[int, bytes]] = (),
        archive: Sequence[bytes] = (),
    ) -> str:
        tag = new_tag()

        def save(db: sqlite3.Connection) -> None:
            now = self._clock()
            row = db.execute(
                "SELECT tag, log_len FROM rooms WHERE code = ? AND expires > ?", (code, now)
            ).fetchone()
            if row is None:
                raise RoomMissing(code)
            if row[0] != expected:
                raise VersionConflict(code)
            written = [*earlier, (version, entry)]
            db.executemany(
                "INSERT INTO log (code, version, entry) VALUES (?, ?, ?)",
                [(code, v, e) for v, e in written],
            )
            if archive:
                db.executemany(
                    "INSERT INTO archive (code, entry) VALUES (?, ?)", [(code, a) for a in archive]
                )
            length = row[1] + len(written)
            if length > self._log_max:
                db.execute(
                    "DELETE FROM log WHERE id IN"
                    " (SELECT id FROM log WHERE code = ? ORDER BY id LIMIT ?)",
                    (code, length - self._log_max),
                )
                length = self._log_max
            db.execute(
                "UPDATE rooms SET version = ?, tag = ?, data = ?, expires = ?, log_len = ?"
                " WHERE code = ?",
                (version, tag, data, now + ttl, length, code),
            )

        def save_and_notify(db: sqlite3.Connection) -> None:
            _transaction(db, lambda: save(db))
            self._notify(notice)

        await self._run(save_and_notify)
        return tag

    async def stamps(self, codes: list[str]) -> dict[str, Stamp | None]:
        def stamps(db: sqlite3.Connection) -> dict[str, Stamp | None]:
            now = self._clock()
            found: dict[str, Stamp] = {}
            for start in range(0, len(codes), _CHUNK):
                chunk = codes[start : start + _CHUNK]
                marks = ", ".join("?" * len(chunk))
                rows = db.execute(
                    f"SELECT code, version, tag FROM rooms WHERE expires > ? AND code IN ({marks})",
                    (now, *chunk),
                )
                found.update((row[0], Stamp(row[1], row[2])) for row in rows)
            return {code: found.get(code) for code in codes}

        return await self._run(stamps) if codes else {}

    async def log(self, code: str) -> list[tuple[int, bytes]]:
        def log(db: sqlite3.Connection) -> list[tuple[int, bytes]]:
            if not _live(db, code, self._clock()):
                return []
            rows = db.execute("SELECT version, entry FROM log WHERE code = ? ORDER BY id", (code,))
            return [(row[0], row[1]) for row in rows]

        return await self._run(log)

    async def archive(self, code: str) -> list[bytes]:
        def archive(db: sqlite3.Connection) -> list[bytes]:
            if not _live(db, code, self._clock()):
                return []
            rows = db.execute("SELECT entry FROM archive WHERE code = ? ORDER BY id", (code,))
            return [row[0] for row in rows]

        return await self._run(archive)

    async def codes(self, limit: int) -> list[str]:
        def codes(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT code FROM rooms WHERE expires > ? LIMIT ?", (self._clock(), limit)
            )
            return [row[0] for row in rows]

        return await self._run(codes)

    async def set_wake(self, code: str, at: float, expected: float | None = None) -> None:
        def set_wake(db: sqlite3.Connection) -> None:
            if expected is not None:
                row = db.execute("SELECT at FROM wakes WHERE code = ?", (code,)).fetchone()
                if row is not None and row[0] not in (expected, at):
                    return
            if at > 0:
                db.execute("INSERT OR REPLACE INTO wakes (code, at) VALUES (?, ?)", (code, at))
            else:
                db.execute("DELETE FROM wakes WHERE code = ?", (code,))

        await self._write(set_wake)

    async def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        def due(db: sqlite3.Connection) -> list[tuple[str, float]]:
            rows = db.execute(
                "SELECT code, at FROM wakes WHERE at <= ? ORDER BY at LIMIT ?", (now, limit)
            )
            return [(str(code), float(at)) for code, at in rows]

        return await self._run(due)

    async def ttl(self, code: str) -> float | None:
        def ttl(db: sqlite3.Connection) -> float | None:
            now = self._clock()
            row = db.execute(
                "SELECT expires FROM rooms WHERE code = ? AND expires > ?", (code, now)
            ).fetchone()
            return None if row is None else float(row[0]) - now

        return await self._run(ttl)

    async def set_presence(
        self, code: str, instance: str, seat_ids: list[int], ttl: float, notice: Notice | None
    ) -> None:
        if not await self._run(lambda db: _live(db, code, self._clock())):
            self._presence.pop(code, None)
            return
        now = self._clock()
        claims = self._presence.setdefault(code, {})
        if seat_ids:
            claims[instance] = (now + ttl, list(seat_ids))
        else:
            # No seat connected here: nothing to claim, and nothing kept for the room (a
            # turn-based room nobody has open must cost this process nothing).
            claims.pop(instance, None)
        for other, (expires, _) in list(claims.items()):
            if expires <= now:
                del claims[other]
        if not claims:
            del self._presence[code]
        if notice is not None and self._loop is not None:
            self._loop.call_soon(self._deliver, notice)

    async def presence(self, code: str) -> frozenset[int]:
        now = self._clock()
        claims = self._presence.get(code, {})
        return frozenset(s for expires, seats in claims.values() if expires > now for s in seats)


# -- on the worker thread ---------------------------------------------------------------------


def _transaction(db: sqlite3.Connection, work: Callable[[], T]) -> T:
    db.execute("BEGIN IMMEDIATE")
    try:
        result = work()
        db.execute("COMMIT")
    except BaseException:
        # A failed COMMIT may already have rolled back.
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return result


def _live(db: sqlite3.Connection, code: str, now: float) -> bool:
    row = db.execute("SELECT 1 FROM rooms WHERE code = ? AND expires > ?", (code, now))
    return row.fetchone() is not None


def _sweep(db: sqlite3.Connection, now: float) -> None:
    """Delete every expired room and its log."""
    db.execute("DELETE FROM log WHERE code IN (SELECT code FROM rooms WHERE expires <= ?)", (now,))
    db.execute(
        "DELETE FROM archive WHERE code IN (SELECT code FROM rooms WHERE expires <= ?)", (now,)
    )
    db.execute(
        "DELETE FROM wakes WHERE code IN (SELECT code FROM rooms WHERE expires <= ?)", (now,)
    )
    db.execute("DELETE FROM rooms WHERE expires <= ?", (now,))

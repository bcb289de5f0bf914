"""The embedded store: everything in this process's memory. One process only.

It keeps bytes, not objects, so it behaves exactly like Redis (no accidental sharing of mutable
state) and passes the same contract suite. Notices are delivered on the next loop iteration,
like a pub/sub message would be.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from server.stores.store import (
    Notice,
    NoticeHandler,
    RoomMissing,
    Stamp,
    Store,
    Stored,
    VersionConflict,
    new_tag,
)


class MemoryStore(Store):
    kind = "memory"

    def __init__(self, clock: Callable[[], float] = time.monotonic, log_max: int = 10_000) -> None:
        self._clock = clock
        self._log_max = log_max
        # code -> (stored record, expires_at)
        self._rooms: dict[str, tuple[Stored, float]] = {}
        self._wakes: dict[str, float] = {}
        self._logs: dict[str, list[tuple[int, bytes]]] = {}
        self._archives: dict[str, list[bytes]] = {}
        # code -> instance -> (expires_at, seat ids)
        self._presence: dict[str, dict[str, tuple[float, list[int]]]] = {}
        self._on_notice: NoticeHandler | None = None

    async def open(self, on_notice: NoticeHandler) -> None:
        self._on_notice = on_notice

    async def close(self) -> None:
        self._on_notice = None

    async def ping(self) -> None:
        return None

    def _live(self, code: str) -> Stored | None:
        item = self._rooms.get(code)
        if item is None:
            return None
        if item[1] <= self._clock():
            self._drop(code)
            return None
        return item[0]

    def _drop(self, code: str) -> None:
        self._rooms.pop(code, None)
        self._logs.pop(code, None)
        self._archives.pop(code, None)
        self._presence.pop(code, None)

    def _notify(self, notice: Notice) -> None:
        handler = self._on_notice
        if handler is not None:
            asyncio.get_running_loop().call_soon(handler, notice)

    async def create(self, code: str, data: bytes, entry: bytes, ttl: float) -> str | None:
        if self._live(code) is not None:
            return None
        tag = new_tag()
        self._rooms[code] = (Stored(1, data, tag), self._clock() + ttl)
        self._logs[code] = [(1, entry)]
        self._archives.pop(code, None)
        return tag

    async def load(self, code: str) -> Stored | None:
        return self._live(code)

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
        item = self._live(code)
        if item is None:
            raise RoomMissing(code)
        if item.tag != expected:
            raise VersionConflict(code)
        tag = new_tag()
        self._rooms[code] = (Stored(version, data, tag), self._clock() + ttl)
        log = self._logs.setdefault(code, [])
        log.extend(earlier)
        log.append((version, entry))
        if len(log) > self._log_max:
            del log[: len(log) - self._log_max]
        if archive:
            self._archives.setdefault(code, []).extend(archive)
        self._notify(notice)
        return tag

    async def stamps(self, codes: list[str]) -> dict[str, Stamp | None]:
        found = {code: self._live(code) for code in codes}
        return {code: None if item is None else item.stamp for code, item in found.items()}

    async def log(self, code: str) -> list[tuple[int, bytes]]:
        if self._live(code) is None:
            return []
        return list(self._logs.get(code, []))

    async def archive(self, code: str) -> list[bytes]:
        if self._live(code) is None:
            return []
        return list(self._archives.get(code, []))

    async def codes(self, limit: int) -> list[str]:
        return [code for code in list(self._rooms) if self._live(code)][:limit]

    async def set_wake(self, code: str, at: float, expected: float | None = None) -> None:
        held = self._wakes.get(code)
        if expected is not None and held is not None and held not in (expected, at):
            return
        if at > 0:
            self._wakes[code] = at
        else:
            self._wakes.pop(code, None)

    async def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        found = sorted((at, code) for code, at in self._wakes.items() if at <= now)
        return [(code, at) for at, code in found[:limit]]

    async def ttl(self, code: str) -> float | None:
        item = self._live(code)
        return None if item is None else self._rooms[code][1] - self._clock()

    async def set_presence(
        self, code: str, instance: str, seat_ids: list[int], ttl: float, notice: Notice | None
    ) -> None:
        if self._live(code) is None:
            return
        claims = self._presence.setdefault(code, {})
        if seat_ids:
            claims[instance] = (self._clock() + ttl, list(seat_ids))
        else:
            # Nothing to claim, and nothing kept for the room.
            claims.pop(instance, None)
            if not claims:
                del self._presence[code]
        if notice is not None:
            self._notify(notice)

    async def presence(self, code: str) -> frozenset[int]:
        now = self._clock()
        claims = self._presence.get(code, {})
        return frozenset(s for expires, seats in claims.values() if expires > now for s in seats)

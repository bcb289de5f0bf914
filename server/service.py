"""Room operations over the store: create, read, and change under compare-and-set.

``change`` is the one path by which a room changes: run a pure command from
:mod:`server.commands` on the latest room, save with CAS, and on a lost race reload, re-validate
and retry. Decoded rooms are cached per code so that the common case (this instance made the
last change) needs no extra read or decode.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from rules.codec import pack
from rules.errors import RulesError
from rules.registry import get_game
from server import codes, rooms
from server.commands import Change
from server.config import Settings
from server.errors import RoomError, Stale
from server.metrics import Metrics
from server.rooms import Room
from server.store import Notice, NoticeKind, RoomMissing, Store, VersionConflict

Command = Callable[[Room], Change]
CACHE_SIZE = 10_000


class RoomService:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        metrics: Metrics,
        instance: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.instance = instance
        self.clock = clock
        self._cache: OrderedDict[str, Room] = OrderedDict()
        #: Newest version announced by any instance, for cached rooms: a cached room at least
        #: this new is the latest this instance can know of, so a refusal needs no reload.
        self._heard: dict[str, int] = {}
        #: One lock per room with changes in flight here: changes from this instance's own
        #: connections queue up instead of racing each other through the compare-and-set.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        #: Called with every room this instance saved (the hub fans it out at once).
        self.on_saved: Callable[[Room], None] = lambda room: None

    def _remember(self, room: Room) -> None:
        current = self._cache.get(room.code)
        if current is None or current.version <= room.version:
            self._cache[room.code] = room
        self._cache.move_to_end(room.code)
        if len(self._cache) > CACHE_SIZE:
            old, _ = self._cache.popitem(last=False)
            self._heard.pop(old, None)

    def cached(self, code: str) -> Room | None:
        return self._cache.get(code)

    def forget(self, code: str) -> None:
        self._cache.pop(code, None)
        self._heard.pop(code, None)

    def heard(self, code: str, version: int) -> None:
        """Another instance announced ``version`` of room ``code``."""
        if code in self._cache and version > self._heard.get(code, 0):
            self._heard[code] = version

    def _current(self, room: Room) -> bool:
        return room.version >= self._heard.get(room.code, 0)

    async def create(
        self, game_id: str, options: dict[str, Any] | None, turn_timer: float = 0.0
    ) -> Room:
        try:
            game = get_game(game_id)
        except KeyError:
            raise RoomError("bad_message", f"There is no game {game_id!r}") from None
        parsed = game.parse_options(options).model_dump(mode="json")
        low, high = self.settings.min_turn_timer, self.settings.max_turn_timer
        if turn_timer != 0 and not low <= turn_timer <= high:
            raise RoomError("bad_message", f"The turn timer is 0 (off) or {low:g}-{high:g} s")
        now = self.clock()
        for _ in range(20):
            room = rooms.new_room(codes.new_code(), game_id, parsed, float(turn_timer), now)
            entry = pack({"kind": "create", "game": game_id, "options": parsed, "at": now})
            if await self.store.create(
                room.code, rooms.encode(room), entry, self.settings.room_ttl
            ):
                self.metrics.rooms_created += 1
                self._remember(room)
                return room
        raise RoomError("conflict", "Could not find a free room code; try again")

    async def get(self, code: str) -> Room | None:
        """The room as the store has it now (decoded only if the cache is behind)."""
        stored = await self.store.load(code)
        if stored is None:
            self.forget(code)
            return None
        cached = self._cache.get(code)
        if cached is not None and cached.version == stored.version:
            return cached
        room = rooms.decode(stored.data)
        self._remember(room)
        return room

    async def change(self, code: str, command: Command) -> Change:
        """Apply ``command`` with compare-and-set; refusals raise, the room is unchanged."""
        lock = self._locks.get(code)
        if lock is None:
            lock = self._locks[code] = asyncio.Lock()
        async with lock:
            return await self._change(code, command)

    async def _change(self, code: str, command: Command) -> Change:
        room = self._cache.get(code)
        # A refusal judged on a room that is the newest this instance has heard of is final;
        # one judged on a room that may be behind another instance is judged again.
        fresh = room is not None and self._current(room)
        for _ in range(self.settings.max_retries):
            if room is None:
                room = await self.get(code)
                fresh = True
                if room is None:
                    raise RoomError("no_room", "This room does not exist or has expired")
            try:
                change = command(room)
            except (RoomError, RulesError) as exc:
                if fresh or isinstance(exc, Stale):
                    raise
                # The cache may be behind another instance: judge again on the latest room.
                room = None
                continue
            if change.entry is None:
                return change
            new = change.room
            entry = pack({**change.entry, "at": new.changed_at})
            notice = Notice(NoticeKind.CHANGE, code, new.version, self.instance)
            try:
                await self.store.save(
                    code, room.version, rooms.encode(new), entry, self.settings.room_ttl, notice
                )
            except VersionConflict:
                self.metrics.conflicts += 1
                room = None
                continue
            except RoomMissing:
                self.forget(code)
                raise RoomError("no_room", "This room has expired") from None
            self.metrics.changes += 1
            self._remember(new)
            self.on_saved(new)
            return change
        raise RoomError("conflict", "The room is too busy right now; try again")

    @staticmethod
    def new_seed() -> int:
        return secrets.randbits(63)

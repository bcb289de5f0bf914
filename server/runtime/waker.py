"""Turn-based rooms that nobody has open still move on: a bot's turn, a turn timer that ran out,
the end of a deal's sealing stage.

A room with connections here is planned by :class:`~server.runtime.bots.Bots` as ever. A
turn-based room is mostly open nowhere (its players come by once a day), and this instance
holds nothing for it: no task, no timer, no object. Instead, after each save of such a room the
service writes when it next needs a move that no browser will make into one index in the store
(``Store.set_wake``, ``commands.wake_at``), and every ``wake_interval`` each instance asks the
store for the rooms that are due (``Store.due``) and makes those moves, one command each, bound
to the version it read: when two instances (or a player) get there together, the compare-and-set
lets one through and the others find it stale. An idle turn-based room so costs its record and
one index entry, whatever the number of rooms (bench/idle_rooms.py).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from server.errors import ParlorError, Stale
from server.rooms import Phase, Room, commands
from server.runtime.bots import Plan
from server.runtime.service import RoomService
from server.stores.store import StoreError

log = logging.getLogger(__name__)

#: Rooms taken from the index per look (the rest wait for the next).
WAKE_SLICE = 200
#: Moves made in one room per look at most (a table of bots plays on at the next look).
MOVES_PER_LOOK = 64


class Waker:
    def __init__(self, service: RoomService, interval: float, bot_grace: float = 15.0) -> None:
        self._service = service
        self._interval = interval
        #: How long after a room's last change a bot's turn waits for this: a room someone
        #: has open has its bots moved by the instance serving it, at the bot delay.
        self._bot_grace = bot_grace
        self._task: asyncio.Task[None] | None = None
        #: Moves made since the start (for tests and metrics).
        self.moves = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                await self.look()
            except StoreError as exc:
                log.warning("looking for turn-based rooms to move on failed: %s", exc)
            except Exception:
                log.exception("looking for turn-based rooms to move on failed")

    async def look(self) -> int:
        """Make the moves that are due in every turn-based room now (on the service's clock);
        the number of moves made."""
        service = self._service
        made = 0
        for code, at in await service.store.due(service.clock(), WAKE_SLICE):
            made += await self._wake(code, at)
        return made

    async def _wake(self, code: str, at: float) -> int:
        """Move room ``code`` on, whose entry in the index says ``at``; then leave the entry
        saying when it is next due (the saves do that as they go), or later if the room could
        not be moved now, so that it does not stand before the others at every look."""
        service = self._service
        store = service.store
        made = 0
        for _ in range(MOVES_PER_LOOK):
            room = await service.get(code)
            now = service.clock()
            wake = 0.0 if room is None else commands.wake_at(room)
            if room is not None and wake and not made and commands.seats_to_act(room)[0]:
                # A bot's turn: the instance serving the room (if any) plays it at the bot
                # delay; only one that nobody has moved on for a while is this one's to play
                # (and the rest of the bots' turns after it, at once).
                wake = max(wake, room.changed_at + self._bot_grace)
            if room is None or wake == 0 or wake > now:
                # Nothing due (any more): the entry says when it is, unless a save changed it
                # since it was read.
                await store.set_wake(code, wake, expected=at)
                return made
            try:
                await service.change(code, _move(room, service))
            except (Stale, ParlorError) as exc:
                fresher = await service.get(code)
                if isinstance(exc, Stale) and (fresher is None or fresher.version != room.version):
                    # Someone moved first: look at the room again.
                    at = 0.0 if fresher is None else commands.wake_at(fresher)
                    continue
                # Not due after all, or refused: try again at a later look.
                log.info("moving %s on skipped: %s", code, getattr(exc, "message", exc))
                await store.set_wake(code, now + self._interval, expected=at)
                return made
            made += 1
            self.moves += 1
            fresher = service.cached(code)
            at = 0.0 if fresher is None else commands.wake_at(fresher)
        return made


def _move(room: Room, service: RoomService) -> Plan:
    """The one move ``room`` needs now, bound to its version (stale once anything changed)."""
    version, clock = room.version, service.clock
    max_pause = service.limits.max_pause
    if room.sealing is not None:
        ctx = service.context()
        return lambda r: commands.seal_due(r, replace(ctx, now=clock()))
    bots, people = commands.seats_to_act(room)
    if bots and room.phase is Phase.PLAYING:
        return lambda r: commands.bot_move(r, version, clock(), max_pause=max_pause)
    seat_id = room.seats[people[0]].id
    return lambda r: commands.timeout(r, version, seat_id, clock(), max_pause=max_pause)

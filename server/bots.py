"""Bot seats, the turn timer, and seats whose player went away.

Whenever an instance fans out a room it asks :meth:`Bots.consider` what must happen next
without anyone's input: a bot move (a bot seat, or an away seat, is to act), a seat whose turn
timer runs out at the room's ``deadline``, a seat to act whose player has been disconnected
for the grace period (a bot takes it over until they return), or a host who has been gone for
the grace period (the first connected person takes over). In a game's pause (Number Swap's
round end) the deadline is the pause's own, and running out of it is not being away (see
``commands.timeout``). Several instances may plan the same
thing; each is a command bound to the version it was planned for, so the compare-and-set lets
exactly one of them through and the others find it stale. The deadline lives in the room
record, so an instance that never saw the turn start enforces it all the same.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from server import commands
from server.commands import Change
from server.errors import ParlorError, Stale
from server.rooms import Phase, Room
from server.service import RoomService
from server.store import StoreError

log = logging.getLogger(__name__)

Plan = Callable[[Room], Change]


class Bots:
    def __init__(self, service: RoomService, bot_delay: float, grace: float = 15.0) -> None:
        self._service = service
        self._delay = bot_delay
        self._grace = grace
        #: Seat ids connected anywhere, per room (the hub's view of presence).
        self.presence_of: Callable[[str], frozenset[int]] = lambda code: frozenset()
        # code -> ((version, presence) planned for, timer handles)
        self._plans: dict[str, tuple[tuple[int, frozenset[int]], list[asyncio.TimerHandle]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def consider(self, room: Room, presence: frozenset[int] | None = None) -> None:
        connected = self.presence_of(room.code) if presence is None else presence
        key = (room.version, connected)
        plan = self._plans.get(room.code)
        if plan is not None:
            if plan[0][0] > room.version or plan[0] == key:
                return
            for handle in plan[1]:
                handle.cancel()
        loop = asyncio.get_running_loop()
        handles: list[asyncio.TimerHandle] = []
        version, clock = room.version, self._service.clock
        max_pause = self._service.limits.max_pause

        def later(delay: float, command: Plan, what: str) -> None:
            handles.append(loop.call_later(max(0.0, delay), self._spawn, room, command, what))

        def timed_out(seat_id: int) -> Plan:
            return lambda r: commands.timeout(r, version, seat_id, clock(), max_pause=max_pause)

        def taken_over(seat_id: int) -> Plan:
            return lambda r: commands.timeout(
                r,
                version,
                seat_id,
                clock(),
                connected=self.presence_of(r.code),
                max_pause=max_pause,
            )

        if room.phase is Phase.PLAYING:
            bots, people = commands.seats_to_act(room)
            if bots:
                # One bot move at a time: the next is planned from the room this one creates.
                later(
                    self._delay,
                    lambda r: commands.bot_move(r, version, clock(), max_pause=max_pause),
                    "bot",
                )
            for index in people:
                sid = room.seats[index].id
                if room.deadline > 0:
                    later(room.deadline - clock(), timed_out(sid), "timeout")
                if sid not in connected:
                    later(self._grace, taken_over(sid), "takeover")
        if room.host is not None and room.host not in connected and connected:
            later(
                self._grace,
                lambda r: commands.pass_host(r, version, self.presence_of(r.code), clock()),
                "host",
            )
        self._plans[room.code] = (key, handles)

    def forget(self, code: str) -> None:
        plan = self._plans.pop(code, None)
        if plan is not None:
            for handle in plan[1]:
                handle.cancel()

    def _spawn(self, room: Room, command: Plan, what: str) -> None:
        task = asyncio.get_running_loop().create_task(self._run(room, command, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, room: Room, command: Plan, what: str) -> None:
        try:
            await self._service.change(room.code, command)
            if what != "host":
                self._service.metrics.bot_moves += 1
        except Stale:
            pass  # another instance (or a player) moved first, or the player came back
        except ParlorError as exc:
            # The room is gone or busy: the next look at it plans the move again.
            log.info("%s in %s skipped: %s", what, room.code, exc.message)
            self._unplan(room)
        except StoreError as exc:
            log.warning("%s in %s failed: %s", what, room.code, exc)
            self._unplan(room)

    def _unplan(self, room: Room) -> None:
        """Let the next look at this room (a notice or the heartbeat) plan the move again."""
        plan = self._plans.get(room.code)
        if plan is not None and plan[0][0] == room.version:
            del self._plans[room.code]

    async def close(self) -> None:
        for code in list(self._plans):
            self.forget(code)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

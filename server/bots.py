"""Bot seats and the turn timer.

Whenever an instance fans out a room it asks :meth:`Bots.consider` whether a bot must move (a
bot seat, or an away seat, is to act) or a turn timer must run. Several instances may schedule
the same bot turn; each move is a command bound to the version it was planned for, so the
compare-and-set lets exactly one of them through and the others find it stale.
"""

from __future__ import annotations

import asyncio
import logging

from server import commands
from server.errors import ParlorError, Stale
from server.rooms import Phase, Room
from server.service import RoomService
from server.store import StoreError

log = logging.getLogger(__name__)


class Bots:
    def __init__(self, service: RoomService, bot_delay: float) -> None:
        self._service = service
        self._delay = bot_delay
        # code -> (version planned for, timer handles)
        self._plans: dict[str, tuple[int, list[asyncio.TimerHandle]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def consider(self, room: Room) -> None:
        plan = self._plans.get(room.code)
        if plan is not None:
            if plan[0] >= room.version:
                return
            for handle in plan[1]:
                handle.cancel()
        handles: list[asyncio.TimerHandle] = []
        if room.phase is Phase.PLAYING:
            loop = asyncio.get_running_loop()
            if commands.bot_seats(room):
                # One bot move at a time: the next is planned from the room this one creates.
                handles.append(loop.call_later(self._delay, self._spawn, room, True, None))
            if room.turn_timer > 0:
                for index in sorted(room.game.to_act(room.state)):
                    seat = room.seats[index]
                    if not seat.bot and not seat.away:
                        handles.append(
                            loop.call_later(room.turn_timer, self._spawn, room, False, seat.id)
                        )
        self._plans[room.code] = (room.version, handles)

    def forget(self, code: str) -> None:
        plan = self._plans.pop(code, None)
        if plan is not None:
            for handle in plan[1]:
                handle.cancel()

    def _spawn(self, room: Room, bot: bool, timed_out: int | None) -> None:
        task = asyncio.get_running_loop().create_task(self._move(room, bot, timed_out))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _move(self, room: Room, bot: bool, timed_out: int | None) -> None:
        version, clock = room.version, self._service.clock
        try:
            if bot:
                await self._service.change(
                    room.code, lambda r: commands.bot_move(r, version, clock())
                )
                self._service.metrics.bot_moves += 1
            elif timed_out is not None:
                await self._service.change(
                    room.code, lambda r: commands.timeout(r, version, timed_out, clock())
                )
                self._service.metrics.bot_moves += 1
        except Stale:
            pass  # another instance (or a player) moved first
        except ParlorError as exc:
            # The room is gone or busy: the next look at it plans the move again.
            log.info("bot move in %s skipped: %s", room.code, exc.message)
            self._unplan(room)
        except StoreError as exc:
            log.warning("bot move in %s failed: %s", room.code, exc)
            self._unplan(room)

    def _unplan(self, room: Room) -> None:
        """Let the next look at this room (a notice or the heartbeat) plan the move again."""
        plan = self._plans.get(room.code)
        if plan is not None and plan[0] == room.version:
            del self._plans[room.code]

    async def close(self) -> None:
        for code in list(self._plans):
            self.forget(code)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

"""Bot seats, the turn timer, and seats whose player went away.

Whenever an instance fans out a room it asks :meth:`Bots.consider` what must happen next
without anyone's input: a bot move (a bot seat, or an away seat, is to act), a seat whose turn
timer runs out at the room's ``deadline``, a seat to act whose player has been disconnected
for the grace period (a bot takes it over until they return), a host who has been gone for
the grace period (the first connected person takes over), or the end of a deal's sealing
stage (the commitments lock, or the game is dealt: docs/fairplay.md). In a game's pause
(Number Swap's round end) the deadline is the pause's own, and running out of it is not being
away (see ``commands.timeout``). Several instances may plan the same
thing; each is a command bound to the version it was planned for, so the compare-and-set lets
exactly one of them through and the others find it stale. The deadline lives in the room
record, so an instance that never saw the turn start enforces it all the same.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from dataclasses import replace

from server.errors import ParlorError, Stale
from server.rooms import Phase, Room, commands
from server.rooms.commands import Change
from server.runtime.service import RoomService
from server.stores.store import StoreError

log = logging.getLogger(__name__)

Plan = Callable[[Room], Change]
#: A planned command: when it is due (loop time), the room it was planned on, what it is
#: ("bot", "timeout", "takeover", "host" or "seal") and for whose seat (see Bots._command).
_Due = tuple[float, Room, str, int | None]
#: How long before its time a timer may fire and still count as on time.
_EARLY = 0.002


def _when(due: _Due) -> float:
    return due[0]


def _split(due: list[_Due], now: float) -> tuple[list[_Due], list[_Due]]:
    """``due`` (soonest first) in two: what is due by ``now``, and the rest."""
    ripe = 0
    while ripe < len(due) and due[ripe][0] <= now:
        ripe += 1
    return due[:ripe], due[ripe:]


class Bots:
    def __init__(self, service: RoomService, bot_delay: float, grace: float = 15.0) -> None:
        self._service = service
        self._delay = bot_delay
        self._grace = grace
        #: Seat ids connected anywhere, per room (the hub's view of presence).
        self.presence_of: Callable[[str], frozenset[int]] = lambda code: frozenset()
        # code -> ((version, presence) planned for, what is due, the soonest first)
        self._plans: dict[str, tuple[tuple[int, frozenset[int]], list[_Due]]] = {}
        # code -> (loop time, timer): one timer per room, at or before its soonest plan. A
        # plan made after every move (the turn timer's timeout, due in a minute) does not
        # re-arm it when the timer already fires sooner: firing early, it finds nothing due
        # yet and sets itself for the soonest plan then.
        self._wakes: dict[str, tuple[float, asyncio.TimerHandle]] = {}
        # code -> what plans let go by _unplan still have waiting, the soonest first: it runs
        # at its time (as the room's plan does), until the room is forgotten.
        self._left: dict[str, list[_Due]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def consider(self, room: Room, presence: frozenset[int] | None = None) -> None:
        connected = self.presence_of(room.code) if presence is None else presence
        key = (room.version, connected)
        plan = self._plans.get(room.code)
        if plan is not None and (plan[0][0] > room.version or plan[0] == key):
            return
        now = asyncio.get_running_loop().time()
        due: list[_Due] = []
        if room.phase is Phase.PLAYING:
            bots, people = commands.seats_to_act(room)
            if bots:
                # One bot move at a time: the next is planned from the room this one creates.
                due.append((now + self._delay, room, "bot", None))
            if people:
                timer = room.deadline > 0
                wait = max(0.0, room.deadline - self._service.clock()) if timer else 0.0
                for index in people:
                    sid = room.seats[index].id
                    if timer:
                        due.append((now + wait, room, "timeout", sid))
                    if sid not in connected:
                        due.append((now + self._grace, room, "takeover", sid))
        if room.sealing is not None:
            # The deal's sealing stage ends by itself: commitments lock, or the game is dealt.
            wait = max(0.0, room.sealing.until - self._service.clock())
            due.append((now + wait, room, "seal", None))
        if room.host is not None and room.host not in connected and connected:
            due.append((now + self._grace, room, "host", None))
        if len(due) > 1:
            due.sort(key=_when)
        self._plans[room.code] = (key, due)
        if due:
            self._wake_by(room.code, due[0][0])

    def takeovers(self, code: str, now: float) -> dict[int, float]:
        """Seat id -> when (on the server's clock, ``now`` being the clock now) a bot takes
        over that seat, whose player is disconnected on their turn (after the grace), as the
        room's current plan has it."""
        plan = self._plans.get(code)
        if plan is None:
            return {}
        loop_now = asyncio.get_running_loop().time()
        return {
            seat_id: now + max(0.0, due - loop_now)
            for due, _, what, seat_id in plan[1]
            if what == "takeover" and seat_id is not None
        }

    def _command(self, room: Room, what: str, seat_id: int | None) -> Plan:
        """The command a plan runs, bound to the version it was planned for."""
        version, clock = room.version, self._service.clock
        max_pause = self._service.limits.max_pause
        if what == "bot":
            return lambda r: commands.bot_move(r, version, clock(), max_pause=max_pause)
        if what == "host":
            return lambda r: commands.pass_host(r, version, self.presence_of(r.code), clock())
        if what == "seal":
            # Not bound to the version: commitments and reveals change the room without
            # moving the stage's end; the stage itself is what makes it exactly-once.
            ctx = self._service.context()
            return lambda r: commands.seal_due(r, replace(ctx, now=clock()))
        assert seat_id is not None
        if what == "timeout":
            return lambda r: commands.timeout(r, version, seat_id, clock(), max_pause=max_pause)
        return lambda r: commands.timeout(
            r,
            version,
            seat_id,
            clock(),
            connected=self.presence_of(r.code),
            max_pause=max_pause,
        )

    def forget(self, code: str) -> None:
        self._plans.pop(code, None)
        self._left.pop(code, None)
        wake = self._wakes.pop(code, None)
        if wake is not None:
            wake[1].cancel()

    def _wake_by(self, code: str, at: float) -> None:
        """Have the room's timer fire no later than ``at`` (loop time)."""
        wake = self._wakes.get(code)
        if wake is not None:
            if wake[0] <= at:
                return
            wake[1].cancel()
        loop = asyncio.get_running_loop()
        handle = loop.call_at(at, self._woken, code)
        self._wakes[code] = (at, handle)

    def _woken(self, code: str) -> None:
        """The room's timer: run what is due of its plan (and of plans let go by
        :meth:`_unplan`), and set the timer for the rest."""
        del self._wakes[code]
        # A timer may fire a little before its time (the loop's clock resolution).
        now = asyncio.get_running_loop().time() + _EARLY
        ripe: list[_Due] = []
        soonest = math.inf
        plan = self._plans.get(code)
        if plan is not None:
            done, rest = _split(plan[1], now)
            if done:
                ripe += done
                self._plans[code] = (plan[0], rest)
            if rest:
                soonest = rest[0][0]
        left = self._left.get(code)
        if left is not None:
            done, rest = _split(left, now)
            ripe += done
            if rest:
                self._left[code] = rest
                soonest = min(soonest, rest[0][0])
            else:
                del self._left[code]
        # The timer is set again before anything runs, so one item that fails to start
        # costs no other its turn.
        if soonest < math.inf:
            self._wake_by(code, soonest)
        for _, room, what, seat_id in ripe:
            try:
                self._spawn(room, self._command(room, what, seat_id), what)
            except Exception:
                log.exception("could not start %s in %s", what, code)

    def _spawn(self, room: Room, command: Plan, what: str) -> None:
        task = asyncio.get_running_loop().create_task(self._run(room, command, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, room: Room, command: Plan, what: str) -> None:
        try:
            await self._service.change(room.code, command)
            if what not in ("host", "seal"):
                self._service.metrics.bot_moves += 1
        except Stale:
            # Another instance (or a player) moved first, or the player came back. A sealing
            # stage found not yet over (the loop's timer and the server's clock disagree by a
            # little) is planned again at the next look at the room.
            if what == "seal":
                self._unplan(room)
        except ParlorError as exc:
            # The room is gone or busy: the next look at it plans the move again.
            log.info("%s in %s skipped: %s", what, room.code, exc.message)
            self._unplan(room)
        except StoreError as exc:
            log.warning("%s in %s failed: %s", what, room.code, exc)
            self._unplan(room)
        except Exception:
            # A fault of ours: logged, and the room is planned again at its next look, so
            # that one failed plan never leaves it waiting for good.
            log.exception("%s in %s failed", what, room.code)
            self._unplan(room)

    def _unplan(self, room: Room) -> None:
        """Let the next look at this room (a notice or the heartbeat) plan the move again.
        What the plan still has waiting (a takeover after the grace, say) runs at its time
        all the same: planning again would start its clock over."""
        plan = self._plans.get(room.code)
        if plan is not None and plan[0][0] == room.version:
            del self._plans[room.code]
            if plan[1]:
                left = self._left.setdefault(room.code, [])
                left.extend(plan[1])
                left.sort(key=_when)

    async def close(self) -> None:
        for code in {*self._plans, *self._wakes, *self._left}:
            self.forget(code)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

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
from server.runtime.local import Due, LocalRoom
from server.runtime.service import RoomService
from server.stores.store import StoreError

log = logging.getLogger(__name__)

Plan = Callable[[Room], Change]
#: How long before its time a timer may fire and still count as on time.
_EARLY = 0.002


def _when(due: Due) -> float:
    return due[0]


def _split(due: list[Due], now: float) -> tuple[list[Due], list[Due]]:
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
        # Per room, in its LocalRoom (server/runtime/local.py): the plan, ((version,
        # presence) planned for, what is due, the soonest first); one timer, at or before its
        # soonest plan (a plan made after every move, the turn timer's timeout due in a
        # minute, does not re-arm it when the timer already fires sooner: firing early, it
        # finds nothing due yet and sets itself for the soonest plan then); and what plans
        # let go by _unplan still have waiting, which runs at its time until the room goes.
        self._local = service.local
        self._tasks: set[asyncio.Task[None]] = set()

    def consider(self, room: Room, presence: frozenset[int] | None = None) -> None:
        connected = self.presence_of(room.code) if presence is None else presence
        key = (room.version, connected)
        held = self._local.open(room.code)
        plan = held.plan
        if plan is not None and (plan[0][0] > room.version or plan[0] == key):
            return
        now = asyncio.get_running_loop().time()
        due: list[Due] = []
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
                    # A turn-based room waits for its players, connected or not.
                    if sid not in connected and not room.turn_based:
                        due.append((now + self._grace, room, "takeover", sid))
        if room.sealing is not None:
            # The deal's sealing stage ends by itself: commitments lock, or the game is dealt.
            wait = max(0.0, room.sealing.until - self._service.clock())
            due.append((now + wait, room, "seal", None))
        if (
            room.host is not None
            and room.host not in connected
            and connected
            and not room.turn_based
        ):
            due.append((now + self._grace, room, "host", None))
        if len(due) > 1:
            due.sort(key=_when)
        held.plan = (key, due)
        if due:
            self._wake_by(held, due[0][0])

    def takeovers(self, code: str, now: float) -> dict[int, float]:
        """Seat id -> when (on the server's clock, ``now`` being the clock now) a bot takes
        over that seat, whose player is disconnected on their turn (after the grace), as the
        room's current plan has it."""
        held = self._local.get(code)
        plan = None if held is None else held.plan
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
        held = self._local.get(code)
        if held is not None:
            held.forget_plans()

    def _wake_by(self, held: LocalRoom, at: float) -> None:
        """Have the room's timer fire no later than ``at`` (loop time)."""
        wake = held.wake
        if wake is not None:
            if wake[0] <= at:
                return
            wake[1].cancel()
        loop = asyncio.get_running_loop()
        handle = loop.call_at(at, self._woken, held)
        held.wake = (at, handle)

    def _woken(self, held: LocalRoom) -> None:
        """The room's timer: run what is due of its plan (and of plans let go by
        :meth:`_unplan`), and set the timer for the rest."""
        held.wake = None
        code = held.code
        # A timer may fire a little before its time (the loop's clock resolution).
        now = asyncio.get_running_loop().time() + _EARLY
        ripe: list[Due] = []
        soonest = math.inf
        plan = held.plan
        if plan is not None:
            done, rest = _split(plan[1], now)
            if done:
                ripe += done
                held.plan = (plan[0], rest)
            if rest:
                soonest = rest[0][0]
        if held.left:
            done, rest = _split(held.left, now)
            ripe += done
            held.left = rest
            if rest:
                soonest = min(soonest, rest[0][0])
        # The timer is set again before anything runs, so one item that fails to start
        # costs no other its turn.
        if soonest < math.inf:
            self._wake_by(held, soonest)
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
        held = self._local.get(room.code)
        plan = None if held is None else held.plan
        if held is not None and plan is not None and plan[0][0] == room.version:
            held.plan = None
            if plan[1]:
                held.left.extend(plan[1])
                held.left.sort(key=_when)

    async def close(self) -> None:
        for held in self._local:
            held.forget_plans()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

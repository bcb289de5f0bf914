"""Bots keeps one timer per room, set no later than the room's soonest plan
(server/runtime/bots.py).

A plan is made again after every move, and most moves only push the turn timer's timeout
later: the timer is then left as it is, fires early, finds nothing due and sets itself for the
plan of the moment. These tests drive :class:`Bots` on real event loops (asyncio's, and
uvloop's, whose timers round to milliseconds) with a stand-in for the room service that
records what it is asked to run; each waits for the event it expects, with a timeout, never
for a fixed time."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from server.errors import ErrorCode, RoomError
from server.rooms import Room
from server.rooms.commands import Limits
from server.runtime.bots import Bots, Plan
from server.runtime.local import LocalRooms
from tests.server.conftest import Run
from tests.server.rooms.test_commands import playing


class _Service:
    """Records each command Bots runs (as the tag _Tagged gives it) and when it ran."""

    def __init__(self) -> None:
        self.clock = time.time
        self.limits = Limits()
        self.metrics = SimpleNamespace(bot_moves=0)
        self.ran: list[tuple[str, str, int, int | None, float]] = []
        self.changed = asyncio.Event()
        self.local = LocalRooms()

    async def change(self, code: str, command: Plan) -> None:
        what, version, seat_id = command(None)  # type: ignore[arg-type, misc]
        self.ran.append((code, what, version, seat_id, self.clock()))
        self.changed.set()
        if what in self.refuse:
            raise RoomError(ErrorCode.CONFLICT, "The room is too busy right now; try again")

    #: What kinds of command are refused as if the room were busy (after being recorded).
    refuse: frozenset[str] = frozenset()

    async def until(self, count: int) -> None:
        async def enough() -> None:
            while len(self.ran) < count:
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(enough(), timeout=10)


class _Tagged(Bots):
    """Bots whose commands say what they are instead of changing a room."""

    def _command(self, room: Room, what: str, seat_id: int | None) -> Any:
        version = room.version
        return lambda _: (what, version, seat_id)


def _timed(version: int, deadline: float, code: str = "ABCDE") -> Room:
    """A playing toy room (seat 0 to act) at ``version`` whose turn runs out at ``deadline``."""
    return replace(playing(2), code=code, version=version, turn_timer=30.0, deadline=deadline)


def _everyone(room: Room) -> frozenset[int]:
    return frozenset(seat.id for seat in room.seats)


def test_a_timeout_pushed_later_by_a_move_runs_at_the_new_deadline_only(run: Run) -> None:
    run(_test_a_timeout_pushed_later_by_a_move_runs_at_the_new_deadline_only())


async def _test_a_timeout_pushed_later_by_a_move_runs_at_the_new_deadline_only() -> None:
    service = _Service()
    bots = _Tagged(service, bot_delay=0.0)  # type: ignore[arg-type]
    first = _timed(5, time.time() + 0.1)
    bots.consider(first, _everyone(first))
    second = _timed(6, time.time() + 0.4)
    bots.consider(second, _everyone(second))
    await service.until(1)
    (code, what, version, seat_id, at) = service.ran[0]
    assert (code, what, version) == ("ABCDE", "timeout", 6)
    assert seat_id == second.seats[0].id
    # Not at the first deadline: the timer that fired then found nothing due yet.
    assert at >= second.deadline - 0.01
    bots.forget("ABCDE")
    await bots.close()
    assert len(service.ran) == 1


def test_a_plan_due_sooner_than_the_timer_sets_it_sooner(run: Run) -> None:
    run(_test_a_plan_due_sooner_than_the_timer_sets_it_sooner())


async def _test_a_plan_due_sooner_than_the_timer_sets_it_sooner() -> None:
    service = _Service()
    bots = _Tagged(service, bot_delay=0.0)  # type: ignore[arg-type]
    late = _timed(5, time.time() + 60)
    bots.consider(late, _everyone(late))
    soon = _timed(6, time.time() + 0.05)
    bots.consider(soon, _everyone(soon))
    await service.until(1)  # within seconds, not the minute the first plan had
    assert [(what, version) for _, what, version, _, _ in service.ran] == [("timeout", 6)]
    await bots.close()


def test_what_a_plan_has_due_runs_once_each_in_order(run: Run) -> None:
    run(_test_what_a_plan_has_due_runs_once_each_in_order())


async def _test_what_a_plan_has_due_runs_once_each_in_order() -> None:
    """A disconnected player's seat: its turn timer's timeout, then the takeover after the
    grace, from one plan and one timer."""
    service = _Service()
    bots = _Tagged(service, bot_delay=0.0, grace=0.3)  # type: ignore[arg-type]
    room = _timed(5, time.time() + 0.1)
    bots.consider(room, frozenset())  # nobody connected
    await service.until(2)
    assert [what for _, what, _, _, _ in service.ran] == ["timeout", "takeover"]
    # The same room considered again plans nothing new: each ran once.
    bots.consider(room, frozenset())
    await bots.close()
    assert len(service.ran) == 2


def test_a_forgotten_room_runs_nothing_of_its_plan(run: Run) -> None:
    run(_test_a_forgotten_room_runs_nothing_of_its_plan())


async def _test_a_forgotten_room_runs_nothing_of_its_plan() -> None:
    service = _Service()
    bots = _Tagged(service, bot_delay=0.0)  # type: ignore[arg-type]
    gone = _timed(5, time.time() + 0.05, code="GONE1")
    bots.consider(gone, _everyone(gone))
    bots.forget("GONE1")
    other = _timed(5, time.time() + 0.2, code="OTHER")
    bots.consider(other, _everyone(other))
    await service.until(1)
    assert [code for code, *_ in service.ran] == ["OTHER"]
    await bots.close()


def test_closing_cancels_every_rooms_timer(run: Run) -> None:
    run(_test_closing_cancels_every_rooms_timer())


async def _test_closing_cancels_every_rooms_timer() -> None:
    service = _Service()
    bots = _Tagged(service, bot_delay=0.0)  # type: ignore[arg-type]
    room = _timed(5, time.time() + 0.1)
    bots.consider(room, _everyone(room))
    await bots.close()
    # A room considered after the close on another code runs: the loop is alive and timers
    # fire, but the closed room's never did.
    other = _timed(5, time.time() + 0.2, code="OTHER")
    bots.consider(other, _everyone(other))
    await service.until(1)
    assert [code for code, *_ in service.ran] == ["OTHER"]
    await bots.close()


def test_a_plan_item_refused_as_busy_leaves_the_rest_of_the_plan_to_run(run: Run) -> None:
    run(_test_a_plan_item_refused_as_busy_leaves_the_rest_of_the_plan_to_run())


async def _test_a_plan_item_refused_as_busy_leaves_the_rest_of_the_plan_to_run() -> None:
    """A timeout refused as busy lets its plan go (the next look plans again), but the
    takeover the plan had waiting still comes after its grace, not a whole grace later."""
    service = _Service()
    service.refuse = frozenset({"timeout"})
    bots = _Tagged(service, bot_delay=0.0, grace=0.3)  # type: ignore[arg-type]
    room = _timed(5, time.time() + 0.05)
    bots.consider(room, frozenset())  # nobody connected, and nothing plans the room again
    await service.until(2)
    assert [what for _, what, _, _, _ in service.ran] == ["timeout", "takeover"]
    await bots.close()


def test_an_item_that_cannot_start_costs_no_other_its_turn(run: Run) -> None:
    run(_test_an_item_that_cannot_start_costs_no_other_its_turn())


async def _test_an_item_that_cannot_start_costs_no_other_its_turn() -> None:
    class Broken(_Tagged):
        def _command(self, room: Room, what: str, seat_id: int | None) -> Any:
            if what == "timeout":
                raise RuntimeError("a bug in planning")
            return super()._command(room, what, seat_id)

    service = _Service()
    bots = Broken(service, bot_delay=0.0, grace=0.2)  # type: ignore[arg-type]
    room = _timed(5, time.time() + 0.05)
    bots.consider(room, frozenset())
    await service.until(1)
    assert [what for _, what, _, _, _ in service.ran] == ["takeover"]
    await bots.close()

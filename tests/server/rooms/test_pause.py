"""A game's pause (Number Swap's round end): the server waits for the people at the table, or
the pause's own time-out, never for the turn timer and never rushed by bots.

The pure tests drive ``server.commands`` on a Number Swap room one move before its round end;
the others play a real round over real servers and clients (``max_pause`` shortens the pause).
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

import pytest

from rules.codec import unpack
from rules.numberswap.game import ROUND_END_PAUSE
from server import rooms
from server.errors import Stale
from server.rooms import Room, commands
from server.stores.redis_store import RedisStore
from tests.rules.numberswap.test_rules import ender_position
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve

NEXT = {"type": "next_round"}
#: Short enough to wait for in a test, long enough for the round end to be seen first.
SHORT_PAUSE = TEST_SETTINGS.model_copy(update={"max_pause": 0.5})


# -- pure: the deadline and the time-out of a pause ---------------------------------------------


def before_round_end(turn_timer: float = 0.0) -> Room:
    """Two people playing Number Swap; seat 0 ends the round by taking the discard onto its
    last face-down card, and seat 1's last turn (any move) then ends it."""
    room = rooms.new_room("ABCDE", "numberswap", {}, turn_timer, now=0.0)
    for i in range(2):
        room = commands.join(room, f"P{i}", f"hash{i}", 1.0, name_max=24).room
    room = commands.start(room, room.host, commands.Context(now=2.0, seed=5)).room
    return replace(room, state=ender_position())


def play(room: Room, index: int, action: dict[str, Any], now: float, **kw: Any) -> Room:
    seat = room.seats[index]
    return commands.act(room, seat.id, seat.last_seq + 1, action, now, **kw).room


def at_round_end(turn_timer: float = 0.0, now: float = 10.0, **kw: Any) -> Room:
    room = play(before_round_end(turn_timer), 0, {"type": "take_discard", "position": 0}, 5.0)
    room = play(room, 1, {"type": "take_discard", "position": 11}, now, **kw)
    assert room.state.phase.value == "round_end"
    return room


def test_a_pause_has_a_deadline_of_its_own_even_with_the_turn_timer_off() -> None:
    room = at_round_end(turn_timer=0.0, now=10.0)
    assert room.deadline == 10.0 + ROUND_END_PAUSE
    # With a turn timer on, the pause still lasts the pause, not the turn timer.
    assert at_round_end(turn_timer=120.0, now=10.0).deadline == 10.0 + ROUND_END_PAUSE
    assert at_round_end(turn_timer=5.0, now=10.0).deadline == 10.0 + ROUND_END_PAUSE


def test_the_pause_is_cut_to_max_pause() -> None:
    assert at_round_end(now=10.0, max_pause=0.5).deadline == 10.5


def test_the_pause_clock_does_not_restart_as_seats_get_ready() -> None:
    for timer in (0.0, 45.0):
        room = at_round_end(turn_timer=timer, now=10.0)
        assert room.deadline == 10.0 + ROUND_END_PAUSE
        ready = play(room, 0, NEXT, 20.0)
        assert ready.state.phase.value == "round_end" and ready.deadline == room.deadline
        # Nor when a seat's player comes back from away, or the host changes the timer.
        away = replace(ready, seats=(ready.seats[0], replace(ready.seats[1], away=True)))
        assert commands.back(away, away.seats[1].id, 21.0).room.deadline == room.deadline
        host = ready.host
        again = commands.configure(ready, host, None, 90.0, 22.0, timer_range=(5.0, 600.0))
        assert again.room.deadline == room.deadline
    room = at_round_end(now=10.0)
    ready = play(room, 0, NEXT, 20.0)
    # The last one deals the next round: turn timer off, no deadline any more.
    dealt = play(ready, 1, NEXT, 25.0)
    assert dealt.state.phase.value == "choose" and dealt.deadline == 0.0
    # With a turn timer, the next round's clock starts when it is dealt.
    timed = play(play(at_round_end(turn_timer=45.0), 0, NEXT, 20.0), 1, NEXT, 25.0)
    assert timed.deadline == 25.0 + 45.0


def test_the_pause_end_plays_next_round_without_marking_the_seat_away() -> None:
    room = at_round_end(now=10.0)
    first = commands.timeout(room, room.version, room.seats[0].id, 40.0)
    assert first.entry is not None and first.entry["kind"] == "timeout" and first.entry["pause"]
    assert first.entry["action"] == NEXT and first.events == ({"type": "ready", "seat": 0},)
    assert not first.room.seats[0].away and first.room.seats[0].covered == 0
    # Several seats to act: each is readied in turn, the last one deals the next round.
    after = first.room
    second = commands.timeout(after, after.version, after.seats[1].id, 40.0).room
    assert second.state.phase.value == "choose" and second.state.round == 2
    assert not any(s.away for s in second.seats)
    # Outside a pause, a room without a turn timer has no time-out, as before.
    with pytest.raises(Stale):
        commands.timeout(second, second.version, second.seats[0].id, 50.0)


def test_a_turn_timeout_outside_the_pause_still_marks_the_seat_away() -> None:
    room = before_round_end(turn_timer=30.0)
    out = commands.timeout(room, room.version, room.seats[0].id, 40.0).room
    assert out.seats[0].away


# -- over real servers -------------------------------------------------------------------------


async def to_round_end(client: Client, rnd: random.Random, seen: list[dict[str, Any]]) -> None:
    """Play this seat's moves (random legal ones) until its view is at the round end."""
    pending, acted_at = False, -1
    while True:
        state = client.state
        if state is not None and state["view"] is not None:
            view = state["view"]
            if view["phase"] == "round_end":
                return
            assert not view["over"], "the round ended the game"
            if view["legal"] and not pending and acted_at != state["version"]:
                await client.act(rnd.choice(view["legal"]))
                pending, acted_at = True, state["version"]
        message = await client.recv(10)
        if message["type"] == "state":
            seen.extend(e for move in message["events"] for e in move["events"])
        elif message["type"] in ("ack", "error"):
            pending = False


async def until_state(
    client: Client, seen: list[dict[str, Any]], predicate: Any, timeout: float = 5.0
) -> dict[str, Any]:
    """The next state satisfying ``predicate``, recording the events of every state on the way."""

    def check(message: dict[str, Any]) -> bool:
        if message["type"] != "state":
            return False
        seen.extend(e for move in message["events"] for e in move["events"])
        return bool(predicate(message))

    return await client.until(check, timeout)


async def table(
    server: RunningServer, humans: int, turn_timer: float
) -> tuple[str, list[Client], list[dict[str, Any]]]:
    """A Number Swap room of ``humans`` people and one bot, its first round played to its end."""
    # A high target: random moves can score 100 in one round, which would end the game.
    options = {"target_score": 1000}
    code = await create_room(server.http, "numberswap", options, turn_timer=turn_timer)
    clients = await seat_clients([server.ws], code, humans)
    await clients[0].send({"type": "add_bot"})
    await clients[0].until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == humans + 1)
    await start(clients[0])
    seen: list[dict[str, Any]] = []
    await asyncio.gather(
        *(to_round_end(c, random.Random(i), seen if i == 0 else []) for i, c in enumerate(clients))
    )
    return code, clients, seen


async def log_of(server: RunningServer, code: str) -> list[dict[str, Any]]:
    return [unpack(e) for _, e in await server.instance.store.log(code)]


def readies(seen: list[dict[str, Any]]) -> list[int]:
    return [e["seat"] for e in seen if e["type"] == "ready"]


async def test_the_round_end_waits_for_the_human_while_the_bot_is_ready_at_once() -> None:
    async with serve(TEST_SETTINGS) as server:
        code, (human,), seen = await table(server, humans=1, turn_timer=0)
        state = await until_state(human, seen, lambda m: m["view"]["ready"][1])
        assert readies(seen) == [1]
        view, room = state["view"], state["room"]
        assert view["phase"] == "round_end" and view["to_act"] == [0]
        assert view["legal"] == [NEXT] and view["ready"] == [False, True]
        # Every grid revealed: no face-down (nil) cell left.
        assert all(c is not None for g in view["grids"] for c in g)
        # The turn timer is off, yet the pause runs: the countdown the client shows.
        assert room["turn_timer"] == 0
        assert room["deadline"] - room["now"] == pytest.approx(ROUND_END_PAUSE, abs=1.0)
        # The round starts on the human's Next round, not before: the log ends with the
        # bot's ready and then the human's (a pause that ended by itself would be a timeout).
        await human.act(NEXT)
        state = await until_state(human, seen, lambda m: m["view"]["phase"] == "choose")
        assert state["view"]["round"] == 2 and state["view"]["ready"] == [False, False]
        assert readies(seen) == [1, 0] and seen[-1] == {"type": "round_started", "round": 2}
        assert [e["kind"] for e in await log_of(server, code)][-2:] == ["bot", "act"]


async def test_a_silent_human_is_readied_when_the_pause_ends_and_is_not_marked_away() -> None:
    async with serve(SHORT_PAUSE) as server:
        # A turn timer far longer than the pause: the pause, not the timer, ends the round end.
        code, (human,), seen = await table(server, humans=1, turn_timer=600)
        at_end = await until_state(human, seen, lambda m: m["view"]["phase"] == "round_end")
        assert at_end["room"]["deadline"] - at_end["room"]["now"] <= 0.5
        states = [at_end]
        state = await until_state(
            human, seen, lambda m: states.append(m) or m["view"]["round"] == 2
        )
        assert sorted(readies(seen)) == [0, 1]
        assert not any(s["room"]["seats"][0].get("away") for s in states)
        assert state["room"]["seats"][0].get("covered", 0) == 0
        # The next round is the human's to play, under the room's own turn timer.
        assert 0 in state["view"]["to_act"]
        assert state["room"]["deadline"] - state["room"]["now"] == pytest.approx(600, abs=5)
        timeouts = [e for e in await log_of(server, code) if e["kind"] == "timeout"]
        assert [(e["seat"], e["action"], e["pause"]) for e in timeouts] == [(0, NEXT, True)]


async def test_the_pause_ends_by_itself_with_the_turn_timer_off() -> None:
    async with serve(SHORT_PAUSE) as server:
        code, (human,), seen = await table(server, humans=1, turn_timer=0)
        at_end = await until_state(human, seen, lambda m: m["view"]["phase"] == "round_end")
        assert at_end["room"]["turn_timer"] == 0 and at_end["room"]["deadline"] > 0
        state = await until_state(human, seen, lambda m: m["view"]["round"] == 2)
        assert not state["room"]["seats"][0].get("away")
        # Back to no timer at all: the human's opening flips wait for the human.
        assert state["room"]["deadline"] == 0 and 0 in state["view"]["to_act"]
        kinds = [e["kind"] for e in await log_of(server, code)]
        assert "timeout" in kinds and "away" not in kinds


async def test_every_silent_human_is_readied_when_the_pause_ends(redis_clean: str) -> None:
    """Several people to act at once (on Redis): the pause's end readies each, none away."""
    async with serve(SHORT_PAUSE, RedisStore(redis_clean)) as server:
        code, clients, seen = await table(server, humans=2, turn_timer=0)
        state = await until_state(clients[0], seen, lambda m: m["view"]["round"] == 2)
        assert not any(s.get("away") for s in state["room"]["seats"])
        assert {0, 1} <= set(state["view"]["to_act"])
        paused = [e["seat"] for e in await log_of(server, code) if e.get("pause")]
        assert sorted(paused) == [0, 1]

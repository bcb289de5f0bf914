"""``rules.evolve.replace`` means what ``dataclasses.replace`` means, for every dataclass the
rules and the server copy (issue 15: it replaces it on the hot path)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from rules.evolve import replace
from rules.registry import get_game
from server import rooms
from server.rooms import commands
from server.rooms.commands import Context, Limits
from server.transport.protocol import client_message
from server.web import dispatch

SENTINEL = object()


def _instances(root: Any) -> list[Any]:
    """Every dataclass instance reachable from ``root`` (one of each type and shape)."""
    found: dict[tuple[type, int], Any] = {}
    stack, seen = [root], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            found.setdefault((type(item), len(found) % 3), item)
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, tuple | list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return list(found.values())


def _played_rooms(game_id: str, seats: int, moves: int) -> list[rooms.Room]:
    room = rooms.new_room("ABCDE", game_id, {}, 0.0, 0.0, next_seed="ab" * 32)
    for i in range(seats):
        room = commands.join(room, f"P{i}", f"h{i}", 0.0, name_max=24).room
    ctx = Context(now=1.0, seed=7, limits=Limits(), seal="cd" * 32)
    # Nobody seals a value: the deal is made at once (docs/fairplay.md).
    dealt = Context(now=0.0, seed=7, limits=Limits(commit_window=0.0), seal="cd" * 32)
    room = commands.start(room, room.seats[0].id, dealt).room
    rnd = random.Random(11)
    seen = [room]
    for _ in range(moves):
        if room.state is None or room.game.result(room.state) is not None:
            break
        index = rnd.choice(sorted(room.game.to_act(room.state)))
        seat = room.seats[index]
        action = rnd.choice(room.game.legal_actions(room.state, index))
        message = client_message.validate_python(
            {"type": "act", "seq": seat.last_seq + 1, "action": room.game.dump_action(action)}
        )
        room = dispatch.seated(room, seat.id, message, ctx).room
        rooms.encode(room)  # fills the packed-form caches (init=False fields)
        seen.append(room)
    return seen


@pytest.mark.parametrize("game_id", ["floor", "numberswap", "warp99"])
def test_replace_equals_dataclasses_replace_for_every_field_of_every_dataclass(
    game_id: str,
) -> None:
    checked: set[type] = set()
    for room in _played_rooms(game_id, get_game(game_id).max_seats, 80)[::10]:
        for obj in _instances(room):
            checked.add(type(obj))
            assert replace(obj) == dataclasses.replace(obj)
            for f in dataclasses.fields(obj):
                if not f.init:
                    continue
                ours = replace(obj, **{f.name: SENTINEL})
                theirs = dataclasses.replace(obj, **{f.name: SENTINEL})
                assert type(ours) is type(theirs)
                for g in dataclasses.fields(obj):
                    assert getattr(ours, g.name) is getattr(theirs, g.name) or (
                        getattr(ours, g.name) == getattr(theirs, g.name)
                    ), (type(obj).__name__, f.name, g.name)
    assert {rooms.Room, rooms.Seat, rooms.Move, rooms.Deal} <= checked


def test_replace_resets_init_false_fields_to_their_default() -> None:
    room = _played_rooms("numberswap", 4, 5)[-1]
    seat = room.seats[0]
    assert seat.memo.wire is not None  # packed by rooms.encode
    assert replace(seat, name="Other").memo.wire is None
    assert dataclasses.replace(seat, name="Other").memo.wire is None


def test_replace_refuses_unknown_and_init_false_fields() -> None:
    seat = _played_rooms("numberswap", 2, 1)[-1].seats[0]
    with pytest.raises(TypeError):
        replace(seat, no_such_field=1)
    with pytest.raises(TypeError):
        replace(seat, wire=b"")
    with pytest.raises(TypeError):
        replace(object())


@dataclasses.dataclass(frozen=True)
class _Checked:
    low: int
    high: int
    items: list[int] = dataclasses.field(default_factory=list)
    cache: list[int] = dataclasses.field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


def test_replace_runs_post_init_and_default_factories() -> None:
    one = _Checked(1, 2, [5])
    one.cache.append(9)
    two = replace(one, high=3)
    assert (two.low, two.high, two.items, two.cache) == (1, 3, [5], [])
    assert two.items is one.items
    with pytest.raises(ValueError, match="low above high"):
        replace(one, low=7)

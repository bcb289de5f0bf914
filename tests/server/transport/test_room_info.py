"""The room part of every state message (server/transport/state_messages.py ``room_info``): the
compact seats of docs/protocol.md, "Seats", and that they say everything the seat records do."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from rules.codec import pack, unpack
from server.rooms import Room, Seat, commands, new_room
from server.transport import state_messages


def _room() -> Room:
    room = new_room("ABCDE", "numberswap", {"target_score": 100}, 45.0, now=0.0)
    for i in range(3):
        room = commands.join(room, f"P{i}", f"hash{i}", 1.0, name_max=24).room
    assert room.host is not None
    room = commands.add_bot(room, room.host, 2.0, level="strong").room
    return commands.start(room, room.host, commands.Context(now=3.0, seed=5)).room


def test_a_seat_is_id_name_and_connected_with_each_flag_only_when_it_holds() -> None:
    room = _room()
    seats = list(room.seats)
    seats[1] = replace(seats[1], away=True, covered=2)
    room = replace(room, seats=tuple(seats))
    connected = frozenset({room.seats[0].id, room.seats[1].id})
    info = state_messages.room_info(room, connected, now=10.0)
    assert info["seats"] == [
        {"id": 1, "name": "P0", "connected": True},
        {"id": 2, "name": "P1", "connected": True, "away": True, "covered": 2},
        {"id": 3, "name": "P2", "connected": False},
        {"id": 4, "name": "Bot 1", "connected": False, "bot": True, "level": "strong"},
    ]
    assert json.loads(json.dumps(info)) == unpack(pack(info)) == info


def _decoded(seat: dict[str, Any]) -> tuple[Any, ...]:
    """A wire seat read back as docs/protocol.md says: absent flags are false, or 0."""
    return (
        seat["id"],
        seat["name"],
        seat.get("bot", False),
        seat.get("away", False),
        seat.get("covered", 0),
        seat.get("level"),
    )


def _facts(seat: Seat) -> tuple[Any, ...]:
    return (seat.id, seat.name, seat.bot, seat.away, seat.covered, seat.level if seat.bot else None)


def test_the_compact_seats_say_everything_the_seats_hold() -> None:
    room = _room()
    for away in (False, True):
        for covered in (0, 1, 7):
            seats = tuple(replace(s, away=away, covered=covered) for s in room.seats)
            changed = replace(room, seats=seats)
            for connected in (frozenset(), frozenset(s.id for s in seats)):
                info = unpack(pack(state_messages.room_info(changed, connected, now=1.0)))
                assert [_decoded(s) for s in info["seats"]] == [_facts(s) for s in seats]
                assert [s["connected"] for s in info["seats"]] == [s.id in connected for s in seats]


def test_a_seats_entry_follows_its_presence_and_every_change_of_the_seat() -> None:
    """Each seat object keeps the entry it was last shown with (issue 15): it must be made
    again when the seat connects or leaves, and a changed seat is a new object."""
    room = _room()
    first = room.seats[0]
    on = frozenset({first.id})
    assert state_messages.room_info(room, on, 1.0)["seats"][0]["connected"] is True
    assert state_messages.room_info(room, frozenset(), 2.0)["seats"][0]["connected"] is False
    assert state_messages.room_info(room, on, 3.0)["seats"][0] == {
        "id": 1,
        "name": "P0",
        "connected": True,
    }
    room = replace(room, seats=(replace(first, away=True), *room.seats[1:]))
    assert state_messages.room_info(room, on, 4.0)["seats"][0] == {
        "id": 1,
        "name": "P0",
        "connected": True,
        "away": True,
    }


def test_the_events_since_a_version_are_the_moves_after_it_oldest_first() -> None:
    room = _room()
    for _ in range(5):
        seat = sorted(room.game.to_act(room.state))[0]
        action = room.game.legal_view(room.state, seat)[0]
        room = commands.act(room, room.seats[seat].id, room.seats[seat].last_seq + 1, action, 5.0)
        room = room.room
    versions = [m.version for m in room.moves]
    for after in (0, versions[0] - 1, versions[2], versions[-1]):
        shown = state_messages.events_since(room, after)
        expected = [] if after <= 0 else [v for v in versions if v > after]
        assert [e["version"] for e in shown] == expected
        tail = room.moves[len(room.moves) - len(shown) :]
        assert all(e["events"] == list(m.events) for e, m in zip(shown, tail, strict=True))

"""Room codes and frame encoding."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from rules.codec import pack
from server import codes
from server.stores import keys
from server.transport.protocol import SEQUENCED_TYPES
from server.transport.wire import MAX_DEPTH, Format, FrameError, choose, decode, encode
from server.web import dispatch


def test_codes_avoid_ambiguous_characters() -> None:
    for _ in range(200):
        code = codes.new_code()
        assert len(code) == 5 and not set(code) & set("0O1I")
        assert codes.normalize(code.lower()) == code


def test_normalize_refuses_what_is_not_a_code() -> None:
    assert codes.normalize(" ab-cde ") == "ABCDE"
    for raw in ("ABCD", "ABCDEF", "ABCD0", "ABCDI", "AB{C}", ""):
        assert codes.normalize(raw) is None


def test_all_keys_of_a_room_share_its_hash_tag() -> None:
    tagged = {
        *(keys.room("ABCDE"), keys.log("ABCDE"), keys.presence("ABCDE")),
        *(keys.archive("ABCDE"), keys.notices("ABCDE")),
    }
    assert all("{ABCDE}" in key for key in tagged)
    assert keys.code_of(keys.room("ABCDE")) == "ABCDE"
    assert keys.code_of(keys.log("ABCDE")) is None


def test_format_is_chosen_by_subprotocol_then_query() -> None:
    assert choose(None, []) == (Format.MSGPACK, None)
    assert choose("json", []) == (Format.JSON, None)
    assert choose(None, ["x", "parlor.json"]) == (Format.JSON, "parlor.json")
    assert choose("json", ["parlor.msgpack"]) == (Format.MSGPACK, "parlor.msgpack")


@pytest.mark.parametrize("fmt", list(Format))
def test_frames_round_trip(fmt: Format) -> None:
    message = {"type": "state", "n": [1, None, True, "é"], "big": 2**63}
    assert decode(encode(message, fmt), fmt) == message


@pytest.mark.parametrize(
    ("frame", "fmt"),
    [
        (b"\xc1", Format.MSGPACK),
        ("{}", Format.MSGPACK),
        (b"\x93\x01\x02\x03", Format.MSGPACK),
        ("[1]", Format.JSON),
        (b"{}", Format.JSON),
        ("{", Format.JSON),
    ],
)
def test_bad_frames_are_refused(frame: bytes | str, fmt: Format) -> None:
    with pytest.raises(FrameError):
        decode(frame, fmt)


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("frame", "fmt"),
    [
        # Deeper than the interpreter's recursion limit, in less than 4 KiB.
        ("[" * 1500 + "]" * 1500, Format.JSON),
        ('{"type": "act", "action": ' + "[" * 1500 + "]" * 1500 + "}", Format.JSON),
        # Deeper than msgpack's own limit, and just past ours.
        (b"\x91" * 3000 + b"\x90", Format.MSGPACK),
        (pack({"type": "act", "action": {"card": _nested(MAX_DEPTH)}}), Format.MSGPACK),
        (json.dumps({"type": "act", "action": {"card": _nested(MAX_DEPTH)}}), Format.JSON),
    ],
    ids=["json-array", "json-in-object", "msgpack-array", "msgpack-past-limit", "json-past-limit"],
)
def test_deeply_nested_frames_are_refused(frame: bytes | str, fmt: Format) -> None:
    with pytest.raises(FrameError, match="deep"):
        decode(frame, fmt)


@pytest.mark.parametrize("fmt", list(Format))
def test_nesting_up_to_the_limit_is_accepted(fmt: Format) -> None:
    message = {"type": "act", "action": {"card": _nested(MAX_DEPTH - 2)}}
    assert decode(encode(message, fmt), fmt) == message


@pytest.mark.parametrize("fmt", list(Format))
@pytest.mark.parametrize("game_id", ["floor", "numberswap", "warp99"])
def test_a_fan_outs_frames_are_each_state_message_encoded_alone(game_id: str, fmt: Format) -> None:
    """state_messages.state_frames, the hub's frames in either format, through a game: every seat's
    and a spectator's, before the deal and after every move."""
    from server import rooms
    from server.rooms import commands
    from server.transport import state_messages

    rnd = random.Random(4)
    room = rooms.new_room("ABCDE", game_id, {}, 30.0, 0.0)
    for i in range(3):
        room = commands.join(room, f"P{i}", f"h{i}", 0.0, name_max=24).room
    seats: list[int | None] = [0, 1, 2, None]
    for _ in range(60):
        info = state_messages.room_info(room, frozenset({room.seats[0].id}), 2.0)
        events = state_messages.events_since(room, room.version - 1)
        wanted = [(s, events) for s in seats]
        frames = state_messages.state_frames(
            room, info, state_messages.seat_view_parts(room, seats), wanted, fmt
        )
        whole = state_messages.seat_views(room, seats)
        expected = [
            encode(state_messages.state_message(room, info, s, whole[s], events), fmt)
            for s in seats
        ]
        assert frames == expected
        if room.state is None:
            room = commands.start(room, room.seats[0].id, commands.Context(now=1.0, seed=7)).room
            continue
        if room.game.result(room.state) is not None:
            break
        index = rnd.choice(sorted(room.game.to_act(room.state)))
        action = room.game.dump_action(rnd.choice(room.game.legal_actions(room.state, index)))
        seat = room.seats[index]
        room = commands.act(room, seat.id, seat.last_seq + 1, action, 3.0).room


def test_the_web_client_sequences_exactly_the_commands_the_server_sequences() -> None:
    """A command the client sent without ``seq`` is refused: bot_level once was."""
    source = (Path(__file__).parents[3] / "client-web" / "js" / "connection.js").read_text()
    block = re.search(r"SEQUENCED = new Set\(\[(.*?)\]\)", source, re.S)
    assert block, "connection.js lists its sequenced commands in SEQUENCED"
    assert set(re.findall(r'"([a-z_]+)"', block.group(1))) == set(SEQUENCED_TYPES)


@pytest.mark.parametrize("game_id", ["floor", "numberswap", "warp99"])
def test_state_frames_are_exactly_each_state_message_packed_alone(game_id: str) -> None:
    """The hub's msgpack frames (wire.state_frames): every seat's, a spectator's, connections
    last sent different versions (several lists of events), seqs past one byte."""
    from server import rooms
    from server.rooms import commands
    from server.rooms.commands import Context, Limits
    from server.transport import state_messages
    from server.transport.protocol import client_message
    from server.transport.wire import state_frames

    rnd = random.Random(3)
    room = rooms.new_room("ABCDE", game_id, {}, 30.0, 0.0, next_seed="ab" * 32)
    for i in range(3):
        room = commands.join(room, f"P{i}", f"h{i}", 0.0, name_max=24).room
    room = commands.start(
        room, room.seats[0].id, commands.Context(now=0.0, seed=7, seal="cd" * 32)
    ).room
    ctx = Context(now=1.0, seed=7, limits=Limits(), seal="cd" * 32)
    seats: list[int | None] = [0, 1, 2, None]
    for step in range(150):
        connected = frozenset(s.id for s in room.seats[: 1 + step % 3])
        info = state_messages.room_info(room, connected, 2.0)
        seat_views = state_messages.seat_views(room, seats)
        afters = [room.version - 1, max(0, room.version - 3), 0]
        events = {a: state_messages.events_since(room, a) for a in afters}
        wanted = [(s, a) for s in seats for a in afters[: 1 + step % 3]]
        parts = [
            (s, 0 if s is None else room.seats[s].last_seq, seat_views[s], events[a])
            for s, a in wanted
        ]
        expected = [
            pack(state_messages.state_message(room, info, s, seat_views[s], events[a]))
            for s, a in wanted
        ]
        assert state_frames(room.version, info, parts) == expected
        # As the hub sends them: each seat's own part, the shared part given once.
        shared, owns = state_messages.seat_view_parts(room, seats)
        parts = [(s, last, owns[s], listed) for s, last, _, listed in parts]
        assert state_frames(room.version, info, parts, shared) == expected
        if room.phase.value != "playing":
            break
        index = rnd.choice(sorted(room.game.to_act(room.state)))
        seat = room.seats[index]
        action = room.game.dump_action(rnd.choice(room.game.legal_actions(room.state, index)))
        # Numbers past one byte (and past two) are spliced as msgpack packs them.
        seq = seat.last_seq + (1 if step % 5 else 150)
        message = client_message.validate_python({"type": "act", "seq": seq, "action": action})
        room = dispatch.seated(room, seat.id, message, ctx).room
    assert state_frames(1, {}, []) == []

"""``parlor verify``: a game record checks out only as the server recorded it. Each field of a
record, changed in turn, is caught (docs/fairplay.md)."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rules.codec import pack, unpack
from rules.registry import get_game
from server import commands, records
from server.rooms import Phase
from tests.server.harness import parlor_verify

GAMES = ["numberswap", "warp99", "floor"]
ROOT = Path(__file__).resolve().parents[2]
Record = dict[str, Any]


def _hex(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()


def finished_record(game: str, seats: int = 3) -> Record:
    """A game played to its end by bots through the pure room commands, and its record as
    the endpoint serves it (JSON)."""
    ctx = commands.Context(now=1.0, seal=_hex(f"{game} first"))
    room = commands.create("ABCDE", game, None, 0, ctx, secret="s", created_by="c")
    archive: list[Any] = []
    for i in range(seats):
        offered = (f"{i + 3:02x}" * 16, room.next_commitment)
        room = commands.join(room, f"P{i}", f"h{i}", 1.0, name_max=24, contribution=offered).room
    change = commands.start(room, room.host, 0, 2.0, _hex(f"{game} second"))
    room, archive = change.room, [*archive, *change.archive]
    room = replace(room, seats=tuple(replace(s, away=True) for s in room.seats))
    while room.phase is Phase.PLAYING:
        change = commands.bot_move(room, room.version, 3.0)
        room, archive = change.room, [*archive, *change.archive]
    built = records.build("ABCDE", 1, [unpack(pack(entry)) for entry in archive])
    record: Record = json.loads(json.dumps(built))
    return record


@pytest.fixture(scope="module", params=GAMES)
def record(request: pytest.FixtureRequest) -> Record:
    return finished_record(str(request.param))


def test_an_untouched_record_verifies(record: Record) -> None:
    assert records.verify(record) == []


def _other_legal_action(record: Record, index: int) -> dict[str, Any]:
    """A legal action of the same seat at the same step, other than the recorded one."""
    game = get_game(record["game_id"])
    steps = list(records.replay(record))
    state, played = steps[index].state, record["actions"][index]
    for action in game.legal_actions(state, played["seat"]):
        dumped = game.dump_action(action)
        if dumped != played["action"]:
            other: dict[str, Any] = json.loads(json.dumps(dumped))
            return other
    pytest.fail("the seat had only one legal action at that step")


def _middle_with_choice(record: Record) -> int:
    game = get_game(record["game_id"])
    steps = list(records.replay(record))
    middle = len(record["actions"]) // 2
    for index in range(middle, len(record["actions"])):
        seat = record["actions"][index]["seat"]
        if len(game.legal_actions(steps[index].state, seat)) > 1:
            return index
    pytest.fail("no step with a choice")


def change_action(record: Record) -> None:
    index = _middle_with_choice(record)
    record["actions"][index]["action"] = _other_legal_action(record, index)


def change_seat_of_an_action(record: Record) -> None:
    action = record["actions"][0]
    action["seat"] = (action["seat"] + 1) % len(record["seats"])


def change_events(record: Record) -> None:
    record["actions"][1]["events"] = [*record["actions"][1]["events"], {"type": "extra"}]


def drop_the_last_action(record: Record) -> None:
    record["actions"].pop()


def drop_an_action(record: Record) -> None:
    record["actions"].pop(len(record["actions"]) // 2)


def swap_two_versions(record: Record) -> None:
    first, second = record["actions"][0], record["actions"][1]
    first["version"], second["version"] = second["version"], first["version"]


def change_seed(record: Record) -> None:
    record["seed"] = f"{int(record['seed'], 16) ^ 1:016x}"


def change_server_seed(record: Record) -> None:
    record["server_seed"] = _hex("another seed")


def change_commitment(record: Record) -> None:
    record["commitment"] = _hex("another commitment")


def change_server_seed_and_commitment(record: Record) -> None:
    """A forger who picks a new seed and its matching commitment still needs the deal seed,
    and so the deal, to follow."""
    record["server_seed"] = _hex("forged")
    record["commitment"] = hashlib.sha256(bytes.fromhex(record["server_seed"])).hexdigest()


def change_contribution(record: Record) -> None:
    record["contributions"][0] = "ff" * 16


def drop_a_contribution(record: Record) -> None:
    record["contributions"].pop()


def change_result_scores(record: Record) -> None:
    record["result"]["scores"][0] += 1


def change_result_winners(record: Record) -> None:
    others = [s for s in range(len(record["seats"])) if s not in record["result"]["winners"]]
    record["result"]["winners"] = others[:1]


def change_options(record: Record) -> None:
    game = get_game(record["game_id"])
    schema = game.options_model.model_json_schema()["properties"]
    for name, spec in schema.items():
        if spec.get("type") == "integer":
            low, high = spec.get("minimum", 0), spec.get("maximum", 10**6)
            value = record["options"][name]
            record["options"][name] = value + 1 if value < high else value - 1
            assert low <= record["options"][name] <= high
            return
        if spec.get("type") == "boolean":
            record["options"][name] = not record["options"][name]
            return
    record["options"]["hand_size"] = 3  # a game without options has none to change: add one


def add_a_seat(record: Record) -> None:
    record["seats"].append({"name": "Extra", "bot": True})
    record["contributions"].append("")


def change_game(record: Record) -> None:
    record["game_id"] = next(g for g in GAMES if g != record["game_id"])


def unseal(record: Record) -> None:
    record["sealed"] = False


def add_an_action_after_the_end(record: Record) -> None:
    last = copy.deepcopy(record["actions"][-1])
    last["version"] += 1
    record["actions"].append(last)


def scores_as_floats(record: Record) -> None:
    record["result"]["scores"] = [float(s) for s in record["result"]["scores"]]


def seat_as_true(record: Record) -> None:
    """``true`` is 1 to Python: a record must say seat 1, not true."""
    first = next(a for a in record["actions"] if a["seat"] == 1)
    first["seat"] = True


def unknown_player(record: Record) -> None:
    record["actions"][0]["by"] = "someone"


def sealed_as_a_string(record: Record) -> None:
    record["sealed"] = "no"


def a_seat_that_is_not_an_object(record: Record) -> None:
    record["seats"][0] = "P0"


def no_room(record: Record) -> None:
    del record["room"]


def a_contribution_with_a_line_break(record: Record) -> None:
    """A line break would move a contribution to the next seat in the derived text."""
    record["contributions"][0] += "\n"


TAMPERS: list[Callable[[Record], None]] = [
    change_action,
    change_seat_of_an_action,
    change_events,
    drop_the_last_action,
    drop_an_action,
    swap_two_versions,
    change_seed,
    change_server_seed,
    change_commitment,
    change_server_seed_and_commitment,
    change_contribution,
    drop_a_contribution,
    change_result_scores,
    change_result_winners,
    change_options,
    add_a_seat,
    change_game,
    unseal,
    add_an_action_after_the_end,
    scores_as_floats,
    seat_as_true,
    unknown_player,
    sealed_as_a_string,
    a_seat_that_is_not_an_object,
    no_room,
    a_contribution_with_a_line_break,
]


@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.__name__ for t in TAMPERS])
def test_a_changed_record_fails_verification(
    record: Record, tamper: Callable[[Record], None]
) -> None:
    changed = copy.deepcopy(record)
    tamper(changed)
    assert json.dumps(changed) != json.dumps(record), "the record as JSON changed"
    assert records.verify(changed), f"{tamper.__name__} was not caught"


def test_parlor_verify_exits_0_for_a_good_record_and_1_for_a_changed_one(
    tmp_path: Path,
) -> None:
    record = finished_record("floor", seats=2)
    good, bad, junk = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "junk.json"
    good.write_text(json.dumps(record))
    changed = copy.deepcopy(record)
    change_contribution(changed)
    bad.write_text(json.dumps(changed))
    junk.write_text("{not json")
    assert parlor_verify(good).returncode == 0
    failed = parlor_verify(bad)
    assert failed.returncode == 1
    assert "FAIL: the deal seed is not the one derived from the seeds" in failed.stdout
    assert parlor_verify(junk).returncode == 2
    assert parlor_verify(tmp_path / "missing.json").returncode == 2
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    nested = parlor_verify(deep)
    assert nested.returncode == 2 and "Traceback" not in nested.stderr, nested.stderr


def test_a_record_that_is_not_one_is_refused_in_words() -> None:
    junks: list[Any] = [[], {"record": 2}, {"record": 1}]
    for junk in [*junks, {"record": 1, "seats": 3, "contributions": []}]:
        problems = records.verify(junk)
        assert problems and all(isinstance(p, str) for p in problems)


def test_a_room_from_before_sealing_deals_unsealed_and_its_record_fails_verification() -> None:
    """A room record written before deals were sealed has no committed seed: its games are
    dealt from the server's fresh seed, shown as unsealed, and ``parlor verify`` says so."""
    from server import rooms, views

    room = commands.create(
        "OLDRM", "floor", None, 0, commands.Context(now=1.0), secret="s", created_by="c"
    )
    raw = unpack(rooms.encode(room))
    for key in ("next_seed", "next_commitment", "deal"):
        del raw[key]
    old = rooms.decode(pack(raw))
    assert old.next_seed == "" and "next_deal" not in views.room_info(old, frozenset(), 1.0)
    for i in range(2):
        old = commands.join(old, f"P{i}", f"h{i}", 1.0, name_max=24).room
    change = commands.start(old, old.host, 12345, 2.0, _hex("next"))
    assert change.room.seed == 12345, "dealt from the server's fresh seed"
    assert "seal" not in views.room_info(change.room, frozenset(), 2.0)
    archive = list(change.archive)
    room = replace(change.room, seats=tuple(replace(s, away=True) for s in change.room.seats))
    while room.phase is Phase.PLAYING:
        step = commands.bot_move(room, room.version, 3.0)
        room, archive = step.room, [*archive, *step.archive]
    assert views.room_info(room, frozenset(), 4.0)["deal"]["sealed"] is False
    record = json.loads(json.dumps(records.build("OLDRM", 1, [unpack(pack(a)) for a in archive])))
    assert records.verify(record) == [
        "the deal was not sealed: its commitment was not published before it"
    ]
    assert views.room_info(room, frozenset(), 4.0)["next_deal"]["commitment"], (
        "the rematch is sealed: the deal drew its server seed"
    )


def test_a_seat_a_bot_takes_over_contributes_nothing_to_the_next_deal() -> None:
    ctx = commands.Context(now=1.0, seal=_hex("first"))
    room = commands.create("BOTTY", "floor", None, 0, ctx, secret="s", created_by="c")
    for i in range(3):
        room = commands.join(room, f"P{i}", f"h{i}", 1.0, name_max=24).room
    room = commands.start(room, room.host, 0, 2.0, _hex("second")).room
    room = replace(room, phase=Phase.FINISHED)  # the game is over; the next deal is open
    leaver = room.seats[2].id
    room = commands.contribute(room, leaver, "ab" * 16, room.next_commitment, 3.0).room
    assert room.seats[2].contribution == "ab" * 16
    room = commands.leave(room, leaver, 4.0).room
    assert room.seats[2].bot and room.seats[2].contribution == ""


def test_a_sealed_rooms_deal_refuses_to_go_without_the_next_server_seed() -> None:
    ctx = commands.Context(now=1.0, seal=_hex("first"))
    room = commands.create("SEALD", "floor", None, 0, ctx, secret="s", created_by="c")
    for i in range(2):
        room = commands.join(room, f"P{i}", f"h{i}", 1.0, name_max=24).room
    with pytest.raises(ValueError, match="next server seed"):
        commands.start(room, room.host, 0, 2.0)


def test_a_contribution_in_a_room_whose_deals_are_not_sealed_is_refused() -> None:
    from server.errors import RoomError

    room = commands.create(
        "UNSLD", "floor", None, 0, commands.Context(now=1.0), secret="s", created_by="c"
    )
    room = commands.join(room, "P0", "h0", 1.0, name_max=24).room
    with pytest.raises(RoomError) as refused:
        commands.contribute(room, room.seats[0].id, "ab" * 16, "0" * 64, 2.0)
    assert refused.value.code == "wrong_phase"


def test_a_contribution_with_anything_after_its_hex_digits_is_refused() -> None:
    """The pure command checks the whole value, not only its start (the wire's validation is
    not its only caller)."""
    from server.errors import RoomError

    ctx = commands.Context(now=1.0, seal=_hex("first"))
    room = commands.create("HEXXX", "floor", None, 0, ctx, secret="s", created_by="c")
    room = commands.join(room, "P0", "h0", 1.0, name_max=24).room
    for bad in ("ab" * 16 + "\n", "ab" * 16 + "zz"):
        with pytest.raises(RoomError) as refused:
            commands.contribute(room, room.seats[0].id, bad, room.next_commitment, 2.0)
        assert refused.value.code == "bad_message"
        offered = (bad, room.next_commitment)
        joined = commands.join(room, "P1", "h1", 1.0, name_max=24, contribution=offered).room
        assert joined.seats[1].contribution == "", "a join leaves it out"

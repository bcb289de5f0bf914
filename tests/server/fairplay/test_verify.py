"""``parlor verify`` (server/fairplay/verify.py): a game record checks out only as the server
recorded
it. Each field of a record, changed in turn, is caught; so is every way around the strict
checks: unknown fields, numbers out of range, who played a move, a bot move the bot policy
would not pick, a contribution on a bot seat or off its commitment, a record relabelled to
another room or game, and a page's views that are not the record's (docs/fairplay.md).

The records are made here, in-process, from the rules alone: dealt from a seed as
``parlor-deal/2`` derives it, with every bot move picked as the server picks it
(``records.bot_rng``), so that they do not depend on the room flow. Two tests make theirs
through the real room commands."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from rules.codec import pack, unpack
from rules.contract import DEFAULT_BOT_LEVEL
from rules.registry import get_game
from rules.rng import Rng
from server import cli, rooms
from server.errors import RoomError
from server.fairplay import records
from server.fairplay.verify import Verdict, printable, verify
from server.rooms import Phase, commands
from tests.server.harness import parlor_verify

GAMES = ["numberswap", "warp99", "floor"]
ROOT = Path(__file__).resolve().parents[3]
ROOM = "K7QXM"
Record = dict[str, Any]


def _hex(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()


def problems(record: Any, seen: Any = None) -> list[str]:
    return verify(record, seen).problems


# -- records made from the rules -----------------------------------------------------------------


@dataclass(frozen=True)
class Sit:
    """A seat of a made record: a person's (``level`` None) or a bot's at ``level``."""

    name: str
    level: str | None = None


TABLE = (Sit("Ana"), Sit("Ben"), Sit("Bot 1", "normal"))
#: Asked with (action number, who played it, whether a bot seat): play another legal move.
Swap = Callable[[int, str, bool], bool]


def make_record(
    game_id: str = "floor",
    seats: tuple[Sit, ...] = TABLE,
    *,
    room: str = ROOM,
    number: int = 1,
    server_seed: str | None = None,
    values: list[str] | None = None,
    commitments: list[str] | None = None,
    fmt: int = 2,
    dealt: int = 12,
    swap: Swap | None = None,
    timers: bool = True,
    play_seed: int = 1,
) -> Record:
    """A finished game's record, as the server would write it. ``values``: each seat's
    contribution (default: every person's browser contributes); ``commitments``: the locked
    set (default: each value's hash). Person seats mostly act; with ``timers``, every fifth of
    their moves is a turn timer's (``timeout``) and every fifth another an away seat's
    (``bot``), both the default-level bot move. ``swap`` picks the one move played differently
    from what it would be (so the record holds together, events and result included, but for
    that move)."""
    game = get_game(game_id)
    server_seed = server_seed or _hex(f"server seed of {room} {number} {play_seed}")
    if values is None:
        size = 64 if fmt >= 2 else 32
        values = [
            "" if s.level else _hex(f"value {i} {play_seed}")[:size] for i, s in enumerate(seats)
        ]
    if commitments is None:
        commitments = [records.contribution_commitment(v) if v else "" for v in values]
    if fmt >= 2:
        seed = records.deal_seed(server_seed, values, room, number)
    else:
        seed = records.deal_seed_1(server_seed, values)
    options = game.parse_options({}).model_dump(mode="json")
    state = game.new_game(len(seats), options, seed)
    rnd = random.Random(play_seed)
    version, person_moves, swapped = dealt, 0, swap is None
    actions: list[dict[str, Any]] = []
    while game.result(state) is None:
        assert len(actions) < 30_000, "the game does not end"
        version += 2 if len(actions) % 7 == 6 else 1  # now and then a change that is no move
        for index in sorted(game.to_act(state)):
            bot = seats[index].level is not None
            if bot:
                by = "bot"
            else:
                person_moves += 1
                by = {2: "timeout", 4: "bot"}.get(person_moves % 5, "act") if timers else "act"
            if by == "act" or (fmt < 2 and bot):
                # Any legal move (a format-1 bot's is not one this verifier re-derives).
                rng = Rng.from_seed(rnd.getrandbits(64))
                action = game.bot_action(state, index, rng, DEFAULT_BOT_LEVEL)
            else:
                level = seats[index].level or DEFAULT_BOT_LEVEL
                rng = records.bot_rng(seed, version - 1, index)
                action = game.bot_action(state, index, rng, level)
            if action is None:
                continue  # the seat chooses to wait
            legal = game.legal_actions(state, index)
            if not swapped and swap is not None and swap(len(actions) + 1, by, bot):
                others = [a for a in legal if game.dump_action(a) != game.dump_action(action)]
                if others:
                    action, swapped = others[0], True
            state, events = game.apply(state, index, action)
            actions.append(
                {
                    "version": version,
                    "seat": index,
                    "by": by,
                    "action": game.dump_action(action),
                    "events": events,
                }
            )
            break
        else:
            pytest.fail("every seat to act chose to wait")
    assert swapped, "no move could be played differently"
    result = game.result(state)
    assert result is not None
    record: Record = {
        "record": fmt,
        "room": room,
        "game": number,
        "game_id": game_id,
        "options": options,
        "seats": [_seat(s, fmt) for s in seats],
        "sealed": True,
        "commitment": records.commitment(server_seed),
        "server_seed": server_seed,
    }
    if fmt >= 2:
        record["commitments"] = commitments
    record["contributions"] = values
    record["seed"] = records.seed_hex(seed)
    if fmt >= 2:
        record["dealt"] = dealt
        record["bots"] = records.BOT_POLICY
    record["actions"] = actions
    record["result"] = result.to_wire()
    made: Record = json.loads(json.dumps(record))
    return made


def _seat(sit: Sit, fmt: int) -> dict[str, Any]:
    if sit.level is None:
        return {"name": sit.name, "bot": False}
    if fmt < 2:
        return {"name": sit.name, "bot": True}
    return {"name": sit.name, "bot": True, "level": sit.level}


def view_log(record: Record, viewer: int | None = 0, **changes: Any) -> dict[str, Any]:
    """The view log a page at seat ``viewer`` (None: a spectator) would keep of ``record``'s
    game: the view after the deal, after each action, and at versions between (when the room
    changed otherwise)."""
    game = get_game(record["game_id"])
    views: list[list[Any]] = []
    actions = record["actions"]
    for number, step in enumerate(records.replay(record)):
        version = record["dealt"] if step.action is None else step.action["version"]
        digest = records.view_digest(game.view(step.state, viewer))
        views.append([version, digest])
        following = actions[number]["version"] if number < len(actions) else version + 3
        if following > version + 1:
            views.append([version + 1, digest])
    log = {
        "seen": 1,
        "room": record["room"],
        "game": record["game"],
        "seat": viewer,
        "commitment": record["commitment"],
        "commitments": record["commitments"],
        "contribution": None if viewer is None else (record["contributions"][viewer] or None),
        "views": views,
    }
    log.update(changes)
    return log


def _index(record: Record, predicate: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, a in enumerate(record["actions"]) if predicate(a))


def _is_bot_seat(record: Record, action: dict[str, Any]) -> bool:
    return bool(record["seats"][action["seat"]]["bot"])


def _default_bot_pick(record: Record, index: int) -> dict[str, Any] | None:
    """The move the default-level bot would pick for action ``index``'s seat, before it."""
    game = get_game(record["game_id"])
    steps = list(records.replay(record))
    played = record["actions"][index]
    rng = records.bot_rng(int(record["seed"], 16), played["version"] - 1, played["seat"])
    picked = game.bot_action(steps[index].state, played["seat"], rng, DEFAULT_BOT_LEVEL)
    return None if picked is None else game.dump_action(picked)


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """The real ``parlor verify`` command, its output as bytes."""
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "verify", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value))
    return path


@pytest.fixture(scope="module", params=GAMES)
def record(request: pytest.FixtureRequest) -> Record:
    return make_record(str(request.param))


@pytest.fixture(scope="module")
def floor() -> Record:
    return make_record("floor")


@pytest.fixture(scope="module")
def warp() -> Record:
    return make_record("warp99")


# -- the record as made verifies; each field changed does not ----------------------------------


def test_an_untouched_record_verifies(record: Record) -> None:
    verdict = verify(record)
    assert verdict.problems == [] and verdict.ok
    bot_moves = sum(1 for a in record["actions"] if a["by"] != "act")
    assert verdict.bot_moves == bot_moves > 0, "every bot move is re-derived"
    assert verdict.moves == len(record["actions"])


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


def seed_in_capitals(record: Record) -> None:
    record["seed"] = record["seed"].upper() if record["seed"].upper() != record["seed"] else "0x1"


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


def change_contribution_and_its_commitment(record: Record) -> None:
    """The value and its commitment agree: the deal seed does not."""
    record["contributions"][0] = "ff" * 32
    record["commitments"][0] = records.contribution_commitment("ff" * 32)


def drop_a_contribution(record: Record) -> None:
    record["contributions"].pop()


def drop_a_commitment(record: Record) -> None:
    record["commitments"].pop()


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


def an_option_as_a_string(record: Record) -> None:
    """The rules read "3" as 3: a record must say 3."""
    for name, value in record["options"].items():
        if type(value) is int:
            record["options"][name] = str(value)
            return
    record["options"]["hand_size"] = "3"


def add_a_seat(record: Record) -> None:
    record["seats"].append({"name": "Extra", "bot": True, "level": "normal"})
    record["contributions"].append("")
    record["commitments"].append("")


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


def version_as_a_float(record: Record) -> None:
    record["actions"][0]["version"] = float(record["actions"][0]["version"])


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


def change_a_bots_level(record: Record) -> None:
    bot = next(s for s in record["seats"] if s["bot"])
    bot["level"] = "superb"


def a_level_on_a_persons_seat(record: Record) -> None:
    record["seats"][0]["level"] = "normal"


def dealt_after_the_first_action(record: Record) -> None:
    record["dealt"] = record["actions"][0]["version"]


def another_bot_policy(record: Record) -> None:
    record["bots"] = "parlor-bots/0"


TAMPERS: list[Callable[[Record], None]] = [
    change_action,
    change_seat_of_an_action,
    change_events,
    drop_the_last_action,
    drop_an_action,
    swap_two_versions,
    change_seed,
    seed_in_capitals,
    change_server_seed,
    change_commitment,
    change_server_seed_and_commitment,
    change_contribution,
    change_contribution_and_its_commitment,
    drop_a_contribution,
    drop_a_commitment,
    change_result_scores,
    change_result_winners,
    change_options,
    an_option_as_a_string,
    add_a_seat,
    change_game,
    unseal,
    add_an_action_after_the_end,
    scores_as_floats,
    seat_as_true,
    version_as_a_float,
    unknown_player,
    sealed_as_a_string,
    a_seat_that_is_not_an_object,
    no_room,
    a_contribution_with_a_line_break,
    change_a_bots_level,
    a_level_on_a_persons_seat,
    dealt_after_the_first_action,
    another_bot_policy,
]


@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.__name__ for t in TAMPERS])
def test_a_changed_record_fails_verification(
    record: Record, tamper: Callable[[Record], None]
) -> None:
    changed = copy.deepcopy(record)
    tamper(changed)
    assert json.dumps(changed) != json.dumps(record), "the record as JSON changed"
    verdict = verify(changed)
    assert verdict.problems and not verdict.ok, f"{tamper.__name__} was not caught"
    assert verdict.line().startswith("FAIL: ")


def test_a_record_that_is_not_one_is_refused_in_words() -> None:
    junks: list[Any] = [[], {"record": 2}, {"record": 1}, None, "record", {"record": True}]
    for junk in [*junks, {"record": 1, "seats": 3, "contributions": []}]:
        verdict = verify(junk)
        assert not verdict.ok and verdict.problems
        assert all(isinstance(p, str) and p.isprintable() for p in verdict.problems)


# -- strict fields --------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["record", "seat", "action"])
def test_an_unknown_field_fails(floor: Record, where: str) -> None:
    changed = copy.deepcopy(floor)
    {"record": changed, "seat": changed["seats"][0], "action": changed["actions"][-1]}[where][
        "note"
    ] = "hello"
    found = problems(changed)
    assert any('unknown field "note"' in p for p in found), found


def test_a_version_too_large_fails_cleanly(floor: Record, tmp_path: Path) -> None:
    changed = copy.deepcopy(floor)
    changed["actions"][-1]["version"] = 10**400
    found = problems(changed)
    assert found and any("version" in p and "2^53" in p for p in found), found
    ran = run_cli(_write(tmp_path / "big.json", changed))
    assert ran.returncode == 1 and b"Traceback" not in ran.stderr


def test_a_record_format_too_large_fails_cleanly(floor: Record) -> None:
    changed = dict(floor, record=10**400)
    (problem,) = problems(changed)
    assert "not a Parlor game record" in problem and "bit number" in problem


@pytest.mark.parametrize("number", [0, -1, True, 2**53 + 1])
def test_a_game_number_out_of_range_fails(floor: Record, number: Any) -> None:
    assert any("game" in p and "2^53" in p for p in problems(dict(floor, game=number)))


@pytest.mark.parametrize("room", ["ZZZZ", "zzzzz", "ABCD0", "K7QXM\n", 12345])
def test_a_room_that_is_not_a_room_code_fails(floor: Record, room: Any) -> None:
    assert any("not a room code" in p for p in problems(dict(floor, room=room)))


# -- who played each move, and the bot moves ---------------------------------------------------


def test_a_persons_move_relabelled_as_a_bots_fails(warp: Record) -> None:
    """A person's own move, marked as the bot's (``act`` → ``bot``): the default-level bot
    would have picked another."""
    changed = copy.deepcopy(warp)
    index = next(
        i
        for i, a in enumerate(warp["actions"])
        if a["by"] == "act" and _default_bot_pick(warp, i) != a["action"]
    )
    changed["actions"][index]["by"] = "bot"
    found = problems(changed)
    assert any(f"action {index + 1} " in p and "bot policy" in p for p in found), found


def test_a_bot_seats_move_relabelled_as_played_by_a_person_fails(floor: Record) -> None:
    changed = copy.deepcopy(floor)
    index = _index(floor, lambda a: _is_bot_seat(floor, a))
    changed["actions"][index]["by"] = "act"
    found = problems(changed)
    assert any("is a bot seat, yet the move is marked act" in p for p in found), found


@pytest.mark.parametrize("by", ["timeout", "takeover"])
def test_a_bot_seats_move_marked_as_a_timer_fails(floor: Record, by: str) -> None:
    changed = copy.deepcopy(floor)
    changed["actions"][_index(floor, lambda a: _is_bot_seat(floor, a))]["by"] = by
    assert any(f"marked {by}" in p for p in problems(changed))


def test_a_persons_timeout_move_changed_fails() -> None:
    """The turn timer's move, played otherwise: the record holds together (events, result)
    but for the move the default-level bot would have made."""
    changed = make_record("warp99", swap=lambda number, by, bot: by == "timeout")
    found = problems(changed)
    assert len(found) == 1 and "bot policy" in found[0] and "(timeout)" in found[0], found


def test_a_bot_seats_move_changed_fails() -> None:
    changed = make_record("warp99", swap=lambda number, by, bot: bot and number > 5)
    found = problems(changed)
    assert len(found) == 1 and "bot seat 2 at level normal" in found[0], found


def test_a_bot_plays_at_its_recorded_level() -> None:
    strong = make_record("warp99", seats=(Sit("Ana"), Sit("Bot 1", "strong")))
    assert verify(strong).ok
    relabelled = copy.deepcopy(strong)
    relabelled["seats"][1]["level"] = "easy"
    assert not verify(relabelled).ok, "the easy bot would have played otherwise"


def test_a_bot_policy_this_verifier_lacks_fails_in_words(floor: Record) -> None:
    found = problems(dict(floor, bots="parlor-bots/9"))
    assert found == [
        'the bot moves were made by bot policy "parlor-bots/9"; this verifier has '
        "parlor-bots/1 only, so the bot moves cannot be re-derived by this verifier"
    ]


# -- contributions and their commitments -----------------------------------------------------


def test_a_contribution_on_a_bot_seat_fails() -> None:
    """A bot seat's slot with a value and its matching commitment, the seed derived from
    them: every other check holds."""
    values = [_hex("value 0"), _hex("value 1"), _hex("the bot's")]
    changed = make_record(values=values)
    found = problems(changed)
    assert found == ["seat 2 is a bot seat, yet it has a contribution: a bot contributes nothing"]


def test_a_commitment_on_a_bot_seat_fails() -> None:
    values = [_hex("value 0"), _hex("value 1"), ""]
    hashes = [records.contribution_commitment(v) for v in values[:2]] + [_hex("bot")]
    found = problems(make_record(values=values, commitments=hashes))
    assert found == ["seat 2 is a bot seat, yet it has a commitment: a bot contributes nothing"]


def test_a_commitment_that_does_not_match_its_contribution_fails() -> None:
    values = [_hex("value 0"), _hex("value 1"), ""]
    hashes = [_hex("not value 0's"), records.contribution_commitment(values[1]), ""]
    found = problems(make_record(values=values, commitments=hashes))
    assert found == ["seat 0's contribution does not match its commitment"]


def test_a_contribution_without_a_commitment_fails() -> None:
    values = [_hex("value 0"), _hex("value 1"), ""]
    hashes = ["", records.contribution_commitment(values[1]), ""]
    found = problems(make_record(values=values, commitments=hashes))
    assert found == ["seat 0 has a contribution but no locked commitment"]


def test_a_commitment_whose_value_was_withheld_counts_as_empty() -> None:
    values = ["", _hex("value 1"), ""]
    hashes = [records.contribution_commitment(v) for v in (_hex("value 0"), values[1])] + [""]
    verdict = verify(make_record(values=values, commitments=hashes))
    assert verdict.ok, verdict.problems
    assert any("seat 0's browser committed" in n for n in verdict.notes)
    assert "dealt from the server seed and 1 contribution;" in verdict.line()


def test_a_deal_with_no_contribution_says_it_rests_on_the_server_seed_alone() -> None:
    verdict = verify(make_record(values=["", "", ""]))
    assert verdict.ok, verdict.problems
    assert any("rests on the server's seed alone" in n for n in verdict.notes)
    assert "dealt from the server seed alone" in verdict.line()
    assert "contributions" not in verdict.line()


# -- the deal seed binds the room and the game -------------------------------------------------


def test_a_record_relabelled_to_another_room_fails(floor: Record) -> None:
    found = problems(dict(floor, room="ZZZZZ"))
    assert found == [
        "the deal seed is not the one derived from the server seed, the room code, the game "
        "number and the contributions"
    ]


@pytest.mark.parametrize("number", [0, 2])
def test_a_record_relabelled_to_another_game_fails(floor: Record, number: int) -> None:
    assert problems(dict(floor, game=number))


def test_a_record_spliced_from_another_room_fails() -> None:
    """Room ABCDE's game 3, told as its own: the server seed, the browsers' values and the
    deal of room K7QXM's first game, the room code and game number of ABCDE's third."""
    theirs = make_record("floor", room="K7QXM", number=1)
    spliced = dict(theirs, room="ABCDE", game=3)
    found = problems(spliced)
    assert found and "the deal seed is not the one derived" in found[0]


# -- what is printed ----------------------------------------------------------------------------


def test_a_name_that_paints_a_line_is_printed_escaped(tmp_path: Path) -> None:
    painted = "\x1b[2K\rOK: all good\x9b2K\u202e\u2066\x00"
    good = make_record(seats=(Sit(painted), Sit("Ben"), Sit("Bot\n1", "normal")))
    bad = dict(good, room=painted, commitment=painted)
    for record, status in ((good, 0), (bad, 1)):
        ran = run_cli(_write(tmp_path / "named.json", record))
        assert ran.returncode == status, ran.stderr
        for raw in (b"\x1b", b"\r", b"\xc2\x9b", "\u202e".encode(), "\u2066".encode(), b"\x00"):
            assert raw not in ran.stdout, (raw, ran.stdout)
        text = ran.stdout.decode()
        assert "\\x1b[2K\\x0dOK: all good\\x9b2K\\u202e\\u2066\\x00" in text, text
        assert _verdict_line(text).startswith("OK: " if status == 0 else "FAIL: room ")
        assert sum(1 for line in text.splitlines() if line.startswith("OK")) == 1 - status


def test_printable_escapes_controls_and_leaves_the_rest() -> None:
    assert printable("Ana é 😀") == "Ana é 😀"
    assert printable("a\x1bb\x9bc\u200fd\u2028e\ud800") == "a\\x1bb\\x9bc\\u200fd\\u2028e\\ud800"
    assert printable(printable("\x1b")) == "\\x1b"


def test_the_verdict_line_names_room_game_and_commitment(floor: Record, tmp_path: Path) -> None:
    ran = cli_main(["verify", str(_write(tmp_path / "r.json", floor))])
    bots = sum(1 for a in floor["actions"] if a["by"] != "act")
    assert ran[0] == 0
    assert ran[1].startswith("OK: ")
    assert ran[1].splitlines()[1:] == [f"  note: {n}" for n in verify(floor).notes]
    assert _verdict_line(ran[1]) == (
        f"OK: room K7QXM game 1 (floor), commitment {floor['commitment'][:8]}…: dealt from the "
        f"server seed and 2 contributions; {len(floor['actions'])} moves replayed, "
        f"{bots} bot moves re-derived"
    )
    changed = dict(floor, game=2, bots="x")
    ran = cli_main(["verify", str(_write(tmp_path / "bad.json", changed))])
    lines = [line for line in ran[1].splitlines() if not line.startswith("  note: ")]
    assert ran[0] == 1
    assert lines[-1] == _verdict_line(ran[1])
    assert lines[-1].startswith(
        f"FAIL: room K7QXM game 2 (floor), commitment {floor['commitment'][:8]}…"
    )
    assert lines[-1].endswith(": 2 problems")
    assert [line for line in lines if line.startswith("FAIL: ")][:-1] == [
        f"FAIL: {p}" for p in verify(changed).problems
    ]


def _verdict_line(printed: str) -> str:
    """The verdict among what ``parlor verify`` printed: the line after the FAIL lines, before
    the notes."""
    lines = [line for line in printed.splitlines() if not line.startswith("  note: ")]
    assert all(line.startswith("FAIL: ") for line in lines[:-1]), printed
    return lines[-1]


def cli_main(argv: list[str]) -> tuple[int, str]:
    """``parlor`` run in this process: its status and what it printed."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(argv)
    return status, out.getvalue()


def test_json_output_is_one_object(floor: Record, tmp_path: Path) -> None:
    status, out = cli_main(["verify", "--json", str(_write(tmp_path / "r.json", floor))])
    verdict = json.loads(out)
    assert status == 0 and out.count("\n") == 1
    assert set(verdict) == {"ok", "room", "game", "commitment", "problems", "notes", "verdict"}
    assert verdict["ok"] is True and verdict["room"] == ROOM and verdict["game"] == 1
    assert verdict["commitment"] == floor["commitment"] and verdict["problems"] == []
    changed = dict(floor, room="\x1bZZZZ")
    status, out = cli_main(["verify", "--json", str(_write(tmp_path / "bad.json", changed))])
    assert status == 1 and "\x1b" not in out and out.isascii()
    verdict = json.loads(out)
    assert verdict["ok"] is False and verdict["room"] == "\x1bZZZZ"
    assert verdict["problems"] == verify(changed).problems


def test_parlor_verify_exits_0_for_a_good_record_1_for_a_changed_one_2_for_junk(
    floor: Record, tmp_path: Path
) -> None:
    good, bad = _write(tmp_path / "good.json", floor), tmp_path / "bad.json"
    changed = copy.deepcopy(floor)
    change_contribution_and_its_commitment(changed)
    _write(bad, changed)
    assert parlor_verify(good).returncode == 0
    failed = parlor_verify(bad)
    assert failed.returncode == 1
    assert "FAIL: the deal seed is not the one derived from the server seed" in failed.stdout
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(floor)[:-1] + ', "room": "ZZZZZ"}')
    nan = tmp_path / "nan.json"
    nan.write_text(json.dumps(floor)[:-1] + ', "extra": NaN}')
    huge = tmp_path / "huge.json"
    huge.write_text('{"record": ' + "9" * 5000 + "}")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for path in (junk, twice, nan, huge, deep, tmp_path / "missing.json"):
        ran = parlor_verify(path)
        assert ran.returncode == 2 and "Traceback" not in ran.stderr, (path, ran.stderr)
    assert "appears twice" in parlor_verify(twice).stderr


# -- the views a page saw ------------------------------------------------------------------------


def test_the_views_a_page_saw_match_its_record(floor: Record, tmp_path: Path) -> None:
    log = view_log(floor, 0)
    verdict = verify(floor, log)
    assert verdict.ok, verdict.problems
    assert verdict.views == len(log["views"]) > len(floor["actions"])
    assert verdict.line().endswith(f"; {len(log['views'])} views you saw match")
    record, seen = _write(tmp_path / "r.json", floor), _write(tmp_path / "seen.json", log)
    assert cli_main(["verify", str(record), "--seen", str(seen)])[0] == 0
    assert verify(floor, view_log(floor, None)).ok, "a spectator's log"


def test_a_view_that_is_not_the_records_fails_naming_its_version(floor: Record) -> None:
    log = view_log(floor, 0)
    log["views"][3][1] = "0" * 32
    log["views"][5][1] = "0" * 32
    found = problems(floor, log)
    assert found == [
        f"the view you saw at version {log['views'][3][0]} is not the one the record replays "
        f"to (2 of {len(log['views'])} views differ)"
    ]


def test_a_view_log_of_another_seat_fails(floor: Record) -> None:
    """The log says seat 1, with seat 0's views and value."""
    log = view_log(floor, 0, seat=1)
    found = problems(floor, log)
    assert "seat 1's contribution in the record is not the one your page revealed" in found
    assert any(p.startswith("the view you saw at version ") for p in found), found


def test_a_view_log_that_is_not_the_records_in_its_seeds_fails(floor: Record) -> None:
    other = _hex("another")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"commitment": other}, "the server's commitment your page saw"),
        ({"commitments": [other, *floor["commitments"][1:]]}, "the locked commitments"),
        ({"contribution": other}, "is not the one your page revealed"),
        ({"room": "ZZZZZ"}, "the view log is of room"),
        ({"game": 2}, "the view log is of game 2"),
        ({"seat": 2, "contribution": None}, "a bot seat in the record"),
        ({"seat": 3}, "not one of the record's seats"),
        ({"seen": 3}, "not of format 1 or 2"),
        ({"extra": 1}, 'unknown field "extra"'),
        ({"views": [[10**400, "0" * 32]]}, "views are not a list"),
        ({"views": [[1, "0" * 32]]}, "before the deal"),
    ]
    for change, words in cases:
        found = problems(floor, view_log(floor, 0, **change))
        assert any(words in p for p in found), (change, found)


def _hash(value: str) -> str:
    return records.contribution_commitment(value)


def _seen_by_id(record: Record, **changes: Any) -> dict[str, Any]:
    """The log of a page at seat 0 that saw four seats locked (ids 1, 5, 2, 3) and seat id 5
    leave the lobby after the lock: the record's three seats are ids 1, 2 and 3."""
    hashes = record["commitments"]
    left = _hash(_hex("the value of the seat that left"))
    log = view_log(
        record,
        0,
        seen=2,
        commitments=[hashes[0], left, *hashes[1:]],
        locked_seats=[1, 5, 2, 3],
        dealt_seats=[1, 2, 3],
    )
    log.update(changes)
    return log


def test_a_seat_that_left_the_lobby_after_the_lock_does_not_fail_an_honest_log(
    floor: Record,
) -> None:
    """The locked set is compared by seat id: a seat that left after the lock shifted the
    others' indexes, and its commitment is in no slot of the record."""
    verdict = verify(floor, _seen_by_id(floor))
    assert verdict.ok, verdict.problems


def test_a_log_by_seat_id_fails_a_record_whose_seat_has_another_commitment(
    floor: Record,
) -> None:
    """A record that holds together, but deals with the value of the seat that left in Ben's
    slot: Ben's page locked another commitment for him."""
    gone = _hex("the value of the seat that left")
    other = make_record(values=[floor["contributions"][0], gone, ""])
    log = _seen_by_id(
        other, commitments=[*floor["commitments"][:1], _hash(gone), *floor["commitments"][1:]]
    )
    found = problems(other, log)
    assert found == [
        "the record's commitments are not the ones your page saw locked for its seats (seat 1)"
    ], found


def test_a_log_by_seat_id_accepts_a_seat_that_became_a_bot_with_no_commitment() -> None:
    """Seat 1 was a person at the lock and a bot by the deal: its slot is empty."""
    record = make_record(seats=(TABLE[0], Sit("Ben", "normal"), *TABLE[2:]))
    bens = _hash(_hex("ben's value"))
    log = _seen_by_id(record, commitments=[record["commitments"][0], _hash(_hex("x")), bens, ""])
    verdict = verify(record, log)
    assert verdict.ok, verdict.problems


def test_a_format_2_log_with_bad_seat_ids_fails(floor: Record) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"locked_seats": [1, 1, 2, 3]}, "locked_seats is not null or a list of distinct"),
        ({"locked_seats": [1, 2, 3]}, "locked_seats does not pair up with its commitments"),
        ({"dealt_seats": [1, 2]}, "dealt_seats has 2 seats, the record 3"),
        ({"dealt_seats": [1, 2, -3]}, "dealt_seats is not null or a list of distinct"),
        ({"dealt_seats": "1,2,3"}, "dealt_seats is not null or a list of distinct"),
    ]
    for change, words in cases:
        found = problems(floor, _seen_by_id(floor, **change))
        assert any(words in p for p in found), (change, found)
    log = _seen_by_id(floor)
    del log["dealt_seats"]
    assert any("no dealt_seats" in p for p in problems(floor, log))


def test_a_view_log_that_saw_no_seeds_says_so(floor: Record) -> None:
    verdict = verify(floor, view_log(floor, 0, commitment=None, commitments=None))
    assert verdict.ok
    assert any("did not see the server's commitment" in n for n in verdict.notes)


def test_a_bundle_verifies_both_its_parts(floor: Record, tmp_path: Path) -> None:
    bundle = {"record": floor, "seen": view_log(floor, 0)}
    assert verify(bundle).ok and verify(bundle).views == len(bundle["seen"]["views"])
    assert cli_main(["verify", str(_write(tmp_path / "mine.json", bundle))])[0] == 0
    seen_wrong = copy.deepcopy(bundle)
    seen_wrong["seen"]["views"][0][1] = "f" * 32
    assert not verify(seen_wrong).ok
    record_wrong = copy.deepcopy(bundle)
    change_events(record_wrong["record"])
    assert not verify(record_wrong).ok
    assert problems(dict(bundle, extra=1)) == ['the bundle has an unknown field "extra"']
    twice = verify(bundle, view_log(floor, 0))
    assert "give --seen or a bundle, not both" in twice.problems[0]


# -- format 1 -------------------------------------------------------------------------------------


def test_a_format_1_record_still_verifies(tmp_path: Path) -> None:
    """Dealt from a parlor-deal/1 seed, every move a person's legal one (``act``)."""
    old = make_record("warp99", (Sit("Ana"), Sit("Ben"), Sit("Cy")), fmt=1, timers=False)
    assert {a["by"] for a in old["actions"]} == {"act"} and "commitments" not in old
    assert old["seed"] == records.seed_hex(
        records.deal_seed_1(old["server_seed"], old["contributions"])
    )
    verdict = verify(old)
    assert verdict.ok, verdict.problems
    assert verdict.bot_moves is None and "bot moves not re-derived (format 1)" in verdict.line()
    assert any("format-1 record (parlor-deal/1)" in n for n in verdict.notes)
    assert cli_main(["verify", str(_write(tmp_path / "old.json", old))])[0] == 0
    assert verify(dict(old, room="ZZZZZ")).ok, "parlor-deal/1 binds no room: the note says so"
    changed = copy.deepcopy(old)
    changed["contributions"][2] = "ab" * 8
    assert not verify(changed).ok
    changed = copy.deepcopy(old)
    changed["seats"][2]["level"] = "normal"
    assert not verify(changed).ok, "a format-1 seat has no level"


def test_a_format_1_records_bot_moves_are_not_re_derived() -> None:
    """A format-1 bot seat's moves, from a generator this verifier does not know."""
    with_a_bot = make_record("floor", TABLE, fmt=1)
    assert {a["by"] for a in with_a_bot["actions"]} == {"act", "timeout", "bot"}
    assert verify(with_a_bot).ok
    changed = copy.deepcopy(with_a_bot)
    changed["actions"][_index(changed, lambda a: _is_bot_seat(changed, a))]["by"] = "act"
    assert not verify(changed).ok, "a bot seat's moves are still the bot's"


def test_a_format_1_record_with_a_contribution_on_a_bot_seat_fails() -> None:
    values = ["ab" * 16, "cd" * 16, "ef" * 16]
    found = problems(make_record("floor", TABLE, fmt=1, values=values))
    assert found == ["seat 2 is a bot seat, yet it has a contribution: a bot contributes nothing"]


# -- records made by the real room commands ----------------------------------------------------

LIMITS = commands.Limits(commit_window=15.0, reveal_window=10.0)


def _ctx(now: float, seal: str) -> commands.Context:
    return commands.Context(now=now, seed=7, limits=LIMITS, seal=seal)


def test_a_record_the_room_commands_make_verifies_strictly() -> None:
    """Two people whose browsers commit and reveal, a strong bot; the people go away and bots
    play for them at the default level. Every bot move is re-derived."""
    ctx = _ctx(0.0, _hex("first"))
    room = commands.create(ROOM, "warp99", None, 0, ctx, secret="s", created_by="c")
    for i in range(2):
        room = commands.join(room, f"P{i}", f"token-{i}", 1.0, name_max=24).room
    room = commands.add_bot(room, room.host, 1.0, "strong").room
    values = [_hex(f"browser {i}") for i in range(2)]
    archive: list[Any] = []

    def step(change: commands.Change) -> rooms.Room:
        archive.extend(change.archive)
        return change.room

    for i, value in enumerate(values):
        hashed = records.contribution_commitment(value)
        seat = room.seats[i].id
        room = step(commands.commit(room, seat, hashed, room.next_commitment, _ctx(2.0, "")))
    room = step(commands.start(room, room.host, _ctx(3.0, _hex("second"))))
    for i, value in enumerate(values):
        room = step(commands.reveal(room, room.seats[i].id, value, _ctx(4.0, _hex("second"))))
    assert room.phase is Phase.PLAYING
    room = replace(room, seats=tuple(replace(s, away=not s.bot) for s in room.seats))
    while room.phase is Phase.PLAYING:
        room = step(commands.bot_move(room, room.version, 5.0))
    built = records.build(ROOM, 1, [unpack(pack(entry)) for entry in archive])
    record: Record = json.loads(json.dumps(built))
    verdict = verify(record)
    assert verdict.ok, verdict.problems
    assert verdict.bot_moves == len(record["actions"])
    assert record["seats"][2] == {"name": "Bot 1", "bot": True, "level": "strong"}


def _unsealed_game() -> tuple[rooms.Room, Record]:
    """A room record written before deals were sealed (no committed seed), its first game
    dealt from the server's fresh seed and played to the end by bots, and its record."""
    from server.transport import state_messages

    room = commands.create(
        "XLDRM", "floor", None, 0, commands.Context(now=1.0), secret="s", created_by="c"
    )
    raw = unpack(rooms.encode(room))
    for key in ("form", "next_seed", "next_commitment", "deal"):
        raw.pop(key, None)
    old = rooms.decode(pack(raw))
    assert old.next_seed == "" and "next_deal" not in state_messages.room_info(
        old, frozenset(), 1.0
    )
    for i in range(2):
        old = commands.join(old, f"P{i}", f"h{i}", 1.0, name_max=24).room
    change = commands.start(old, old.host, commands.Context(now=2.0, seed=12345, seal=_hex("n")))
    assert change.room.seed == 12345, "dealt from the server's fresh seed"
    assert "seal" not in state_messages.room_info(change.room, frozenset(), 2.0)
    archive = list(change.archive)
    room = replace(change.room, seats=tuple(replace(s, away=True) for s in change.room.seats))
    while room.phase is Phase.PLAYING:
        step = commands.bot_move(room, room.version, 3.0)
        room, archive = step.room, [*archive, *step.archive]
    assert state_messages.room_info(room, frozenset(), 4.0)["deal"]["sealed"] is False
    record = json.loads(json.dumps(records.build("XLDRM", 1, [unpack(pack(a)) for a in archive])))
    return room, record


def test_a_room_from_before_sealing_deals_unsealed_and_its_record_fails_verification() -> None:
    _, record = _unsealed_game()
    assert problems(record) == [
        "the deal was not sealed: its commitment was not published before it"
    ]


def test_the_game_after_an_unsealed_deal_is_sealed() -> None:
    from server.transport import state_messages

    room, _ = _unsealed_game()
    assert (
        state_messages.room_info(room, frozenset(), 4.0).get("next_deal", {}).get("commitment")
    ), "the rematch is sealed: the deal drew its server seed"


# -- the sealing commands' own checks on what a browser sends ----------------------------------


def test_a_seat_a_bot_takes_over_contributes_nothing_to_the_next_deal() -> None:
    ctx = _ctx(1.0, _hex("first"))
    room = commands.create("BOTTY", "floor", None, 0, ctx, secret="s", created_by="c")
    for i in range(3):
        room = commands.join(room, f"P{i}", f"h{i}", 1.0, name_max=24).room
    room = replace(room, phase=Phase.FINISHED)  # a game is over; the next deal is open
    leaver = room.seats[2].id
    hashed = records.contribution_commitment("ab" * 32)
    room = commands.commit(room, leaver, hashed, room.next_commitment, _ctx(3.0, "")).room
    assert room.seats[2].commitment == hashed
    room = commands.leave(room, leaver, 4.0).room
    assert room.seats[2].bot and room.seats[2].commitment == ""


def test_a_sealed_rooms_deal_refuses_to_go_without_the_next_server_seed() -> None:
    room = commands.create(
        "SEALD", "floor", None, 0, _ctx(1.0, _hex("first")), secret="s", created_by="c"
    )
    for i in range(2):
        room = commands.join(room, f"P{i}", f"h{i}", 1.0, name_max=24).room
    at_once = commands.Context(now=2.0, limits=commands.Limits(commit_window=0.0))
    with pytest.raises(ValueError, match="next server seed"):
        commands.start(room, room.host, at_once)


def test_a_commitment_in_a_room_whose_deals_are_not_sealed_is_refused() -> None:
    room = commands.create(
        "UNSLD", "floor", None, 0, commands.Context(now=1.0), secret="s", created_by="c"
    )
    room = commands.join(room, "P0", "h0", 1.0, name_max=24).room
    with pytest.raises(RoomError) as refused:
        commands.commit(room, room.seats[0].id, "ab" * 32, "0" * 64, _ctx(2.0, ""))
    assert refused.value.code == "wrong_phase"


def test_a_commitment_or_value_with_anything_after_its_hex_digits_is_refused() -> None:
    """The pure commands check the whole value, not only its start (the wire's validation is
    not their only caller)."""
    room = commands.create(
        "HEXXX", "floor", None, 0, _ctx(1.0, _hex("first")), secret="s", created_by="c"
    )
    room = commands.join(room, "P0", "h0", 1.0, name_max=24).room
    room = commands.join(room, "P1", "h1", 1.0, name_max=24).room
    value = "ab" * 32
    hashed = records.contribution_commitment(value)
    for bad in (hashed + "\n", hashed[:-2] + "zz"):
        with pytest.raises(RoomError) as refused:
            commands.commit(room, room.seats[0].id, bad, room.next_commitment, _ctx(2.0, ""))
        assert refused.value.code == "bad_message"
    committed = commands.commit(room, room.seats[0].id, hashed, room.next_commitment, _ctx(2, ""))
    room = committed.room
    room = commands.start(room, room.host, _ctx(3.0, _hex("second"))).room
    room = commands.seal_due(room, _ctx(3.0 + LIMITS.commit_window, _hex("second"))).room
    assert room.sealing is not None and room.sealing.locked is not None
    for bad in (value + "\n", value[:-2] + "zz"):
        with pytest.raises(RoomError) as refused:
            commands.reveal(room, room.seats[0].id, bad, _ctx(4.0, _hex("second")))
        assert refused.value.code == "bad_message"


def test_every_problem_and_note_is_printable(floor: Record) -> None:
    changed = copy.deepcopy(floor)
    changed["seats"][0]["name"] = "\x1b]0;title\x07"
    changed["extra\x1b"] = "\u202e"
    changed["game_id"] = "\x9bfloor"
    for record in (floor, changed, dict(floor, bots="\x1b[31m")):
        verdict: Verdict = verify(record)
        for text in [*verdict.problems, *verdict.notes, verdict.line()]:
            assert text.isprintable(), text

"""Fair deals and game records: the commit-reveal of a deal's seed, and the record of a game.

Pure: no I/O, clock or randomness (the caller draws server seeds). ``parlor verify`` and the
web client (with Web Crypto) compute the same things; ``docs/fairplay.md`` is the description
a reader can check them against.

* A **server seed** is 32 random bytes, written as 64 lowercase hex digits. Its
  **commitment** is the SHA-256 of those 32 bytes, in hex.
* A **contribution** is 16 to 64 lowercase hex digits a seated player's client chose.
* The **deal seed** is the first 16 hex digits (64 bits, big-endian) of the SHA-256 of the
  UTF-8 text ``"parlor-deal/1"``, the server seed, and every seat's contribution in seat order
  (the empty string for a seat without one), joined with ``"\\n"``. The game's rules deal from
  it (``Game.new_game(seats, options, seed)``), and every later random draw of the game comes
  from the generator inside the game state that this seed started.
* A **record** (:func:`build`) holds everything the pure rules need to play the game again:
  the game, its options and seats, the seeds, and every accepted action with its seat, in
  order, each with the public events it produced when it was played.
"""

from __future__ import annotations

import collections
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.errors import RulesError
from rules.registry import get_game

#: The name of the derivation, first in the hashed text: a change to it gets a new name.
DERIVATION = "parlor-deal/1"
#: What a record says it is (``record``), for a reader and for a future format.
FORMAT = 1
#: A contribution: what a client may send.
CONTRIBUTION = re.compile(r"[0-9a-f]{16,64}")
SERVER_SEED = re.compile(r"[0-9a-f]{64}")
#: Who played an action in a record (``by``).
PLAYED_BY = frozenset({"act", "bot", "timeout", "takeover"})
_SEED_BITS = 64


def commitment(server_seed: str) -> str:
    """The SHA-256 of the server seed's 32 bytes, in hex: published before the deal."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def deal_seed(server_seed: str, contributions: Sequence[str]) -> int:
    """The seed the rules deal from (see the module's description)."""
    text = "\n".join([DERIVATION, server_seed, *contributions])
    return int(hashlib.sha256(text.encode()).hexdigest()[: _SEED_BITS // 4], 16)


def seed_hex(seed: int) -> str:
    """A deal seed as the 16 hex digits the wire and the record use (JavaScript numbers cannot
    hold 64 bits exactly)."""
    return f"{seed:016x}"


# -- what the store keeps (the room's archive) -------------------------------------------------
#
# One entry per fact, msgpack, appended in the same atomic save as the change it describes:
#   {"k": "deal", "round", "version", "game", "options", "seats": [[name, bot], ...],
#    "server_seed", "commitment", "contributions", "seed", "sealed"}
#   [round, version, seat, by, action, events]     one accepted action
#   {"k": "end", "round", "version", "result"}      the game is over


def deal_entry(
    *,
    round: int,
    version: int,
    game: str,
    options: Mapping[str, Any],
    seats: Iterable[tuple[str, bool]],
    server_seed: str,
    commitment: str,
    contributions: Sequence[str],
    seed: int,
    sealed: bool,
) -> dict[str, Any]:
    """The deal of a game: ``commitment`` as it was published (not recomputed from the seed,
    so that a record holds what the players were shown)."""
    return {
        "k": "deal",
        "round": round,
        "version": version,
        "game": game,
        "options": dict(options),
        "seats": [[name, bot] for name, bot in seats],
        "server_seed": server_seed,
        "commitment": commitment,
        "contributions": list(contributions),
        "seed": seed,
        "sealed": sealed,
    }


def action_entry(
    round: int, version: int, seat: int, by: str, action: Any, events: Sequence[Any]
) -> list[Any]:
    return [round, version, seat, by, action, list(events)]


def end_entry(round: int, version: int, result: Mapping[str, Any]) -> dict[str, Any]:
    return {"k": "end", "round": round, "version": version, "result": dict(result)}


class NoRecord(Exception):
    """The archive holds no complete record of that game."""


@dataclass(frozen=True, slots=True)
class _Game:
    deal: dict[str, Any]
    actions: list[list[Any]]
    end: dict[str, Any] | None


def _game_of(entries: Iterable[Any], number: int) -> _Game:
    deal: dict[str, Any] | None = None
    actions: list[list[Any]] = []
    end: dict[str, Any] | None = None
    for entry in entries:
        if isinstance(entry, dict):
            if entry.get("round") != number:
                continue
            if entry.get("k") == "deal":
                deal, actions, end = entry, [], None
            elif entry.get("k") == "end":
                end = entry
        elif entry[0] == number:
            actions.append(entry)
    if deal is None:
        raise NoRecord(f"no record of game {number} is kept")
    return _Game(deal, actions, end)


def build(code: str, number: int, entries: Iterable[Any], *, over: bool = True) -> dict[str, Any]:
    """The record of game ``number`` from the room's archive entries (decoded, oldest first).
    Raises :class:`NoRecord` if its deal is not there or the game is not over. ``over=False``
    (for checks on the server's side, never sent: it would show hidden cards) builds the
    record of a game still in play, with ``result`` None."""
    game = _game_of(entries, number)
    if game.end is None and over:
        raise NoRecord(f"game {number} is not over")
    deal = game.deal
    return {
        "record": FORMAT,
        "room": code,
        "game": number,
        "game_id": deal["game"],
        "options": deal["options"],
        "seats": [{"name": name, "bot": bot} for name, bot in deal["seats"]],
        "sealed": deal["sealed"],
        "commitment": deal["commitment"],
        "server_seed": deal["server_seed"],
        "contributions": deal["contributions"],
        "seed": seed_hex(deal["seed"]),
        "actions": [
            {"version": v, "seat": seat, "by": by, "action": action, "events": events}
            for _, v, seat, by, action, events in game.actions
        ],
        "result": None if game.end is None else game.end["result"],
    }


# -- checking a record -------------------------------------------------------------------------


def _plain(value: Any) -> str:
    """Canonical JSON: what two sides compare, so that 1, 1.0 and true are told apart."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Step:
    """One state of a replayed game: after the deal (``action`` None) or after an action."""

    state: Any
    action: Mapping[str, Any] | None


def verify(record: Any) -> list[str]:
    """Every way ``record`` fails to check out, in words (empty: it all matches): the
    commitment, the deal seed, and a replay through the rules in which every action must be
    the seat's to take and legal, produce the events recorded for it, and leave the game over
    exactly after the last one with the recorded result."""
    try:
        return _verify(record)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        return [f"the record is malformed: {type(exc).__name__}: {exc}"]


def _shape(record: dict[str, Any]) -> list[str]:
    """What is wrong with the record's fields as fields (before anything is computed)."""
    wanted: dict[str, type | tuple[type, ...]] = {
        "room": str,
        "game": int,
        "game_id": str,
        "options": dict,
        "seats": list,
        "sealed": bool,
        "commitment": str,
        "server_seed": str,
        "contributions": list,
        "seed": str,
        "actions": list,
        "result": dict,
    }
    problems = [
        f"{name} is missing or not a {kind.__name__ if isinstance(kind, type) else kind}"
        for name, kind in wanted.items()
        if name not in record or type(record[name]) is not kind
    ]
    if problems:
        return problems
    for seat in record["seats"]:
        if (
            type(seat) is not dict
            or type(seat.get("name")) is not str
            or type(seat.get("bot")) is not bool
        ):
            problems.append("each seat is an object with a name and a bot flag")
            break
    if not all(type(c) is str for c in record["contributions"]):
        problems.append("each contribution is a string")
    for entry in record["actions"]:
        if (
            type(entry) is not dict
            or type(entry.get("version")) is not int
            or type(entry.get("seat")) is not int
            or entry.get("by") not in PLAYED_BY
            or type(entry.get("action")) is not dict
            or type(entry.get("events")) is not list
        ):
            problems.append(
                "each action is an object with an integer version and seat, who played it "
                f"(one of {', '.join(sorted(PLAYED_BY))}), the action and its events"
            )
            break
    return problems


def _verify(record: Any) -> list[str]:
    problems: list[str] = []
    if not isinstance(record, dict):
        return ["the record is not a JSON object"]
    if record.get("record") != FORMAT or type(record.get("record")) is not int:
        return [f"this is not a format-{FORMAT} Parlor game record"]
    shape = _shape(record)
    if shape:
        return shape
    seats, contributions = record["seats"], record["contributions"]
    if len(contributions) != len(seats):
        problems.append(f"{len(contributions)} contributions for {len(seats)} seats")
    server_seed = record["server_seed"]
    if not record["sealed"]:
        problems.append("the deal was not sealed: its commitment was not published before it")
    elif not SERVER_SEED.fullmatch(server_seed):  # its type: checked by _shape
        problems.append("the server seed is not 64 hex digits")
    else:
        if commitment(server_seed) != record["commitment"]:
            problems.append("the server seed does not match the commitment")
        if not all(not c or CONTRIBUTION.fullmatch(c) for c in contributions):
            problems.append("a contribution is not hex")
        elif seed_hex(deal_seed(server_seed, contributions)) != record["seed"]:
            problems.append("the deal seed is not the one derived from the seeds")
    try:
        (last,) = collections.deque(replay(record), maxlen=1)  # only the last state is kept
    except ReplayError as exc:
        problems.append(str(exc))
        return problems
    game = get_game(record["game_id"])
    result = game.result(last.state)
    if result is None:
        problems.append("the game is not over after the last action")
    elif _plain(result.to_wire()) != _plain(record["result"]):
        problems.append("the result is not the one the replay gives")
    return problems


class ReplayError(Exception):
    """A record whose actions the rules do not accept as recorded."""


def replay(record: Mapping[str, Any]) -> Iterable[Step]:
    """The record's states: after the deal, then after each action. Raises
    :class:`ReplayError` at the first action that is not the seat's, is illegal, or does not
    produce its recorded events; the game must not be over before the last action."""
    try:
        game = get_game(record["game_id"])
    except KeyError:
        raise ReplayError(f"there is no game {record['game_id']!r}") from None
    try:
        state = game.new_game(len(record["seats"]), record["options"], int(record["seed"], 16))
    except RulesError as exc:
        raise ReplayError(f"the game cannot be dealt: {exc.message}") from None
    yield Step(state, None)
    last = 0
    for number, entry in enumerate(record["actions"], 1):
        where = f"action {number} (version {entry.get('version')})"
        if type(entry["version"]) is not int or entry["version"] <= last:
            raise ReplayError(f"{where}: versions must increase")
        last = entry["version"]
        seat = entry["seat"]
        if game.result(state) is not None:
            raise ReplayError(f"{where}: the game was already over")
        if type(seat) is not int or seat not in game.to_act(state):
            raise ReplayError(f"{where}: seat {seat} was not one to act")
        try:
            action = game.parse_action(entry["action"])
            state, events = game.apply(state, seat, action)
        except RulesError as exc:
            raise ReplayError(f"{where}: the rules refuse it: {exc.message}") from None
        if _plain(list(events)) != _plain(entry["events"]):
            raise ReplayError(f"{where}: it does not produce the recorded events")
        yield Step(state, entry)


# -- the replay viewer's views -------------------------------------------------------------------

#: ``Replays.views``' ``seat`` for the view with everything revealed (``Game.open_view``).
EVERYTHING = "all"
#: The most steps one page of the replay may hold.
PAGE_MAX = 500
#: A replayed game keeps every this many steps' state, so a page is played from the nearest.
CHECKPOINT_EVERY = 64


class Replays:
    """The replay viewer's pages: each game's record replayed once, with every
    :data:`CHECKPOINT_EVERY`-th state kept (a few of the latest games), so that a page costs
    its own steps and at most :data:`CHECKPOINT_EVERY` before them, wherever it is."""

    def __init__(self, games: int = 16) -> None:
        self._games = games
        self._kept: collections.OrderedDict[tuple[Any, ...], list[Any]] = collections.OrderedDict()
        self._records: collections.OrderedDict[tuple[Any, ...], dict[str, Any]] = (
            collections.OrderedDict()
        )

    def record(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        """The record kept under ``key`` (see :meth:`keep`), or None."""
        kept = self._records.get(key)
        if kept is not None:
            self._records.move_to_end(key)
        return kept

    def keep(self, key: tuple[Any, ...], record: dict[str, Any]) -> None:
        """Keep a built record: the viewer asks for it with every page, and building it reads
        the room's whole archive. ``key`` must name one game's final record for good (the
        caller makes it from the room's identity, the game, and for the room's latest game
        its version)."""
        self._records[key] = record
        if len(self._records) > self._games:
            self._records.popitem(last=False)

    def _checkpoints(self, record: Mapping[str, Any]) -> list[Any]:
        # A room code outlives its room, so the key holds what is the game's alone.
        key = (
            *(record["room"], record["game"], record["server_seed"], record["seed"]),
            len(record["actions"]),
        )
        kept = self._kept.get(key)
        if kept is None:
            kept = [
                step.state for i, step in enumerate(replay(record)) if i % CHECKPOINT_EVERY == 0
            ]
            self._kept[key] = kept
            if len(self._kept) > self._games:
                self._kept.popitem(last=False)
        self._kept.move_to_end(key)
        return kept

    def views(
        self, record: Mapping[str, Any], seat: int | str | None, start: int, count: int
    ) -> dict[str, Any]:
        """Steps ``start`` to ``start + count - 1`` of the replayed game (step 0: the deal,
        step k: after action k), each with the view of ``seat`` (an index, None for a
        spectator, or :data:`EVERYTHING`) and the action that led to it."""
        game = get_game(record["game_id"])
        if isinstance(seat, int) and not 0 <= seat < len(record["seats"]):
            raise ValueError(f"there is no seat {seat}")
        actions = record["actions"]
        total = len(actions) + 1
        checkpoints = self._checkpoints(record)
        first = min(start, total - 1) // CHECKPOINT_EVERY * CHECKPOINT_EVERY
        state = checkpoints[first // CHECKPOINT_EVERY]
        steps: list[dict[str, Any]] = []
        for number in range(first, min(total, start + count)):
            done = None if number == 0 else actions[number - 1]
            if number > first and done is not None:
                state, _ = game.apply(state, done["seat"], game.parse_action(done["action"]))
            if number < start:
                continue
            if seat == EVERYTHING:
                view = game.open_view(state)
            else:
                view = game.view(state, seat if isinstance(seat, int) else None)
            steps.append(
                {
                    "step": number,
                    "view": view,
                    "version": None if done is None else done["version"],
                    "seat": None if done is None else done["seat"],
                    "by": None if done is None else done["by"],
                    "events": [] if done is None else done["events"],
                }
            )
        return {"total": total, "from": start, "steps": steps}

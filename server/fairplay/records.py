"""Fair deals and game records: the commit-reveal of a deal's seed, and the record of a game.

Pure: no I/O, clock or randomness (the caller draws server seeds). ``parlor verify`` and the
web client (with Web Crypto) compute the same things; ``docs/fairplay.md`` is the description
a reader can check them against.

* A **server seed** is 32 random bytes, written as 64 lowercase hex digits. Its
  **commitment** is the SHA-256 of those 32 bytes, in hex.
* A **contribution** is 64 lowercase hex digits (32 bytes) a seated person's browser chose.
  Before anyone reveals one, each browser sends its **contribution commitment**, the SHA-256
  of those 32 bytes; the set is locked before the first reveal (docs/fairplay.md).
* The **deal seed** (``parlor-deal/2``) is the first 16 hex digits (64 bits, big-endian) of
  the SHA-256 of the UTF-8 text ``"parlor-deal/2"``, the room code, the game number in
  decimal, the server seed, and every seat's revealed contribution in seat order (the empty
  string for a seat without one), joined with ``"\\n"``. Records of ``parlor-deal/1`` (no room
  code, no game number; contributions were sent in the clear) verify as they did. The game's
  rules deal from the seed (``Game.new_game(seats, options, seed)``), and every later random
  draw of the game comes from the generator inside the game state that this seed started.
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
from rules.rng import Rng

#: The name of the derivation, first in the hashed text: a change to it gets a new name.
DERIVATION = "parlor-deal/2"
#: The first derivation (no room code or game number), which old records use.
DERIVATION_1 = "parlor-deal/1"
#: What a record says it is (``record``): 2 for ``parlor-deal/2`` deals, 1 for the first.
FORMAT = 2
FORMATS = (1, 2)
#: A contribution: 32 bytes, as a client reveals it (a format-1 record's were 16 to 64 digits).
CONTRIBUTION = re.compile(r"[0-9a-f]{64}")
CONTRIBUTION_1 = re.compile(r"[0-9a-f]{16,64}")
SERVER_SEED = re.compile(r"[0-9a-f]{64}")
#: A SHA-256 in hex: the server's commitment, and each contribution's.
HASH = re.compile(r"[0-9a-f]{64}")
#: Which bot policies a record's bot moves come from: bumped whenever any game's bot, or the
#: way a bot's generator is seeded, changes the move it picks (``parlor verify`` re-derives
#: every bot move of a record with the same policy).
BOT_POLICY = "parlor-bots/1"
#: Who played an action in a record (``by``).
PLAYED_BY = frozenset({"act", "bot", "timeout", "takeover"})
_SEED_BITS = 64


def commitment(server_seed: str) -> str:
    """The SHA-256 of the server seed's 32 bytes, in hex: published before the deal."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def contribution_commitment(value: str) -> str:
    """The SHA-256 of a contribution's 32 bytes, in hex: what a browser sends before it
    reveals the value."""
    return hashlib.sha256(bytes.fromhex(value)).hexdigest()


def deal_seed(server_seed: str, contributions: Sequence[str], room: str, game: int) -> int:
    """The seed the rules deal ``room``'s game ``game`` from (``parlor-deal/2``, see the
    module's description)."""
    text = "\n".join([DERIVATION, room, str(game), server_seed, *contributions])
    return int(hashlib.sha256(text.encode()).hexdigest()[: _SEED_BITS // 4], 16)


def deal_seed_1(server_seed: str, contributions: Sequence[str]) -> int:
    """The seed of a ``parlor-deal/1`` deal (format-1 records)."""
    text = "\n".join([DERIVATION_1, server_seed, *contributions])
    return int(hashlib.sha256(text.encode()).hexdigest()[: _SEED_BITS // 4], 16)


def bot_rng(seed: int, version: int, index: int) -> Rng:
    """The generator of a bot's move for seat ``index`` of a game dealt from ``seed``, in the
    room at ``version`` (the version before the move): every instance picks the same move,
    and ``parlor verify`` picks it again."""
    return Rng.from_seed(seed ^ (version * 0x9E3779B1) ^ (index << 48))


def seed_hex(seed: int) -> str:
    """A deal seed as the 16 hex digits the wire and the record use (JavaScript numbers cannot
    hold 64 bits exactly)."""
    return f"{seed:016x}"


# -- what the store keeps (the room's archive) -------------------------------------------------
#
# One entry per fact, msgpack, appended in the same atomic save as the change it describes:
#   {"k": "deal", "round", "version", "game", "options", "seats": [[name, bot, level], ...],
#    "server_seed", "commitment", "commitments", "contributions", "seed", "sealed",
#    "format": 2, "bots"}                         a format-1 deal has no "format", "bots",
#                                                 "commitments", nor levels
#   [round, version, seat, by, action, events]     one accepted action
#   {"k": "end", "round", "version", "result"}      the game is over


def deal_entry(
    *,
    round: int,
    version: int,
    game: str,
    options: Mapping[str, Any],
    seats: Iterable[tuple[str, bool, str]],
    server_seed: str,
    commitment: str,
    commitments: Sequence[str],
    contributions: Sequence[str],
    seed: int,
    sealed: bool,
) -> dict[str, Any]:
    """The deal of a game: ``commitment`` as it was published (not recomputed from the seed,
    so that a record holds what the players were shown), ``commitments`` the locked set of
    contribution commitments, ``contributions`` the values revealed for them."""
    return {
        "k": "deal",
        "round": round,
        "version": version,
        "game": game,
        "options": dict(options),
        "seats": [[name, bot, level] for name, bot, level in seats],
        "server_seed": server_seed,
        "commitment": commitment,
        "commitments": list(commitments),
        "contributions": list(contributions),
        "seed": seed,
        "sealed": sealed,
        "format": FORMAT,
        "bots": BOT_POLICY,
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
    fmt = deal.get("format", 1)
    record: dict[str, Any] = {
        "record": fmt,
        "room": code,
        "game": number,
        "game_id": deal["game"],
        "options": deal["options"],
        "seats": [_seat_entry(seat, fmt) for seat in deal["seats"]],
        "sealed": deal["sealed"],
        "commitment": deal["commitment"],
        "server_seed": deal["server_seed"],
    }
    if fmt >= 2:
        record["commitments"] = deal["commitments"]
    record["contributions"] = deal["contributions"]
    record["seed"] = seed_hex(deal["seed"])
    if fmt >= 2:
        record["dealt"] = deal["version"]
        record["bots"] = deal["bots"]
    record["actions"] = [
        {"version": v, "seat": seat, "by": by, "action": action, "events": events}
        for _, v, seat, by, action, events in game.actions
    ]
    record["result"] = None if game.end is None else game.end["result"]
    return record


def _seat_entry(seat: Sequence[Any], fmt: int) -> dict[str, Any]:
    """A record's seat: its name and bot flag, and (format 2) a bot's level."""
    entry: dict[str, Any] = {"name": seat[0], "bot": seat[1]}
    if fmt >= 2 and seat[1]:
        entry["level"] = seat[2]
    return entry


def view_digest(view: Any) -> str:
    """What a page keeps of each view it was shown (docs/fairplay.md, "The views you saw"):
    the first 32 hex digits of the SHA-256 of the view as canonical JSON (keys sorted, no
    spaces, UTF-8 unescaped, as ``client-web/js/fairplay.js`` writes it)."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# -- checking a record -------------------------------------------------------------------------


def _plain(value: Any) -> str:
    """Canonical JSON: what two sides compare, so that 1, 1.0 and true are told apart."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Step:
    """One state of a replayed game: after the deal (``action`` None) or after an action."""

    state: Any
    action: Mapping[str, Any] | None


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

"""``parlor verify``: whether a game record (docs/fairplay.md, "Game records") checks out in
every respect, and whether the views a page was shown are the ones the record replays to.

Strict: a record holds exactly the fields of its format (no unknown field anywhere, each of
its exact type, a bool never standing for an integer, integers within 1 to 2^53), its seeds
and commitments hold together, every action replays through the rules as recorded, and every
bot move is the one the bot policy picks again. Anything from the file that a verdict shows
is escaped (:func:`printable`), so that a seat's name cannot paint a line of its own.

Pure: no I/O; the CLI (``server/cli.py``) reads the files and prints the :class:`Verdict`.
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.contract import BOT_LEVELS, DEFAULT_BOT_LEVEL
from rules.errors import RulesError
from rules.registry import get_game
from server import codes
from server.fairplay import records

#: The largest version, game number or ``dealt`` a record may hold: what a JavaScript number
#: (the browser's) holds exactly.
INT_MAX = 2**53
#: A record's deal seed: 64 bits as 16 lowercase hex digits.
SEED = re.compile(r"[0-9a-f]{16}")
#: What a page keeps of a view (records.view_digest).
DIGEST = re.compile(r"[0-9a-f]{32}")
#: What a view log says it is (``seen``): 2 adds the seats' ids, so that the locked set is
#: compared seat by seat even when seats left the lobby after the lock; 1 still verifies.
SEEN_FORMATS = (1, 2)
#: Problems with single actions listed before the rest are only counted.
ACTION_PROBLEMS_LISTED = 10
#: The longest piece of a string from the file a problem or note shows.
SHOWN_MAX = 64

_KEYS = {
    1: (
        *("record", "room", "game", "game_id", "options", "seats", "sealed", "commitment"),
        *("server_seed", "contributions", "seed", "actions", "result"),
    ),
    2: (
        *("record", "room", "game", "game_id", "options", "seats", "sealed", "commitment"),
        *("server_seed", "commitments", "contributions", "seed", "dealt", "bots", "actions"),
        "result",
    ),
}
_ACTION_KEYS = ("version", "seat", "by", "action", "events")
_SEEN_KEYS_1 = (
    "seen",
    "room",
    "game",
    "seat",
    "commitment",
    "commitments",
    "contribution",
    "views",
)
_SEEN_KEYS = {1: _SEEN_KEYS_1, 2: (*_SEEN_KEYS_1, "locked_seats", "dealt_seats")}
_BUNDLE_KEYS = ("record", "seen")
_BOT_MOVES = frozenset(records.PLAYED_BY - {"act"})


# -- showing what came from a file ---------------------------------------------------------------


def printable(text: str) -> str:
    """``text`` with every character that is not printable (control characters such as ESC
    and CSI, line breaks, bidi and other format controls, unassigned or private code points,
    lone surrogates) written as ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``. Idempotent: what it
    gives is printable."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def shown(value: Any, limit: int = SHOWN_MAX) -> str:
    """A value from the file as a problem or note shows it: a string quoted (its quotes and
    backslashes escaped, and everything :func:`printable` escapes), anything else as JSON;
    cut after ``limit`` characters."""
    if type(value) is str:
        body = value[:limit].replace("\\", "\\\\").replace('"', '\\"')
        return f'"{printable(body)}"' + ("…" if len(value) > limit else "")
    if type(value) is int and value.bit_length() > 64:
        return f"a {value.bit_length()}-bit number"
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = f"a {type(value).__name__}"
    return printable(text[:limit]) + ("…" if len(text) > limit else "")


def _plain(value: Any) -> str:
    """Canonical JSON: what two sides compare, so that 1, 1.0 and true are told apart."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _whole(value: Any, low: int = 1, high: int = INT_MAX) -> bool:
    """An integer (not a bool) from ``low`` to ``high``."""
    return type(value) is int and low <= value <= high


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# -- the verdict -------------------------------------------------------------------------------


@dataclass(slots=True)
class Verdict:
    """What ``parlor verify`` found. ``ok`` only with no problem; ``room``, ``game`` and
    ``commitment`` are the record's (None where it has none of the right type), as in the file:
    :meth:`line` escapes them. ``notes`` say what the verdict rests on (not problems)."""

    ok: bool
    room: str | None
    game: int | None
    commitment: str | None
    problems: list[str]
    notes: list[str]
    game_id: str | None = None
    #: How the deal was made, in words ("dealt from the server seed and 2 contributions").
    deal: str = ""
    moves: int = 0
    #: Bot moves re-derived, or None where they were not (a format-1 record).
    bot_moves: int | None = None
    #: Views of the page's log that match, or None without a view log.
    views: int | None = None

    def line(self) -> str:
        """The one verdict line: ``OK: …`` or ``FAIL: …``, naming the room, the game and the
        commitment, escaped."""
        room = self.room if self.room is not None and _is_code(self.room) else None
        head = f"room {room or (shown(self.room) if self.room is not None else '?')}"
        head += f" game {self.game if self.game is not None else '?'}"
        if self.game_id is not None:
            head += f" ({self.game_id})"
        head += f", commitment {_short_commitment(self.commitment)}"
        if not self.ok:
            return printable(f"FAIL: {head}: {_plural(len(self.problems), 'problem')}")
        parts = [self.deal]
        moves = f"{_plural(self.moves, 'move')} replayed"
        if self.bot_moves is None:
            moves += ", bot moves not re-derived (format 1)"
        else:
            moves += f", {_plural(self.bot_moves, 'bot move')} re-derived"
        parts.append(moves)
        if self.views is not None:
            parts.append(f"{_plural(self.views, 'view')} you saw match")
        return printable(f"OK: {head}: {'; '.join(parts)}")

    def to_json(self) -> dict[str, Any]:
        """What ``parlor verify --json`` prints."""
        return {
            "ok": self.ok,
            "room": self.room,
            "game": self.game,
            "commitment": self.commitment,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "verdict": self.line(),
        }


def _is_code(room: str) -> bool:
    return codes.normalize(room) == room


def _short_commitment(commitment: str | None) -> str:
    if commitment is None:
        return "?"
    if commitment == "":
        return "none"
    if records.HASH.fullmatch(commitment):
        return f"{commitment[:8]}…"
    return shown(commitment, 16)


@dataclass
class _Check:
    """The verdict as it is being made."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    room: str | None = None
    game: int | None = None
    commitment: str | None = None
    game_id: str | None = None
    deal: str = ""
    moves: int = 0
    bot_moves: int | None = None
    views: int | None = None
    listed: int = 0
    unlisted: int = 0

    def fail(self, problem: str) -> None:
        self.problems.append(printable(problem))

    def note(self, note: str) -> None:
        self.notes.append(printable(note))

    def action_problem(self, problem: str) -> None:
        """A problem with one action: the first few are listed, the rest counted."""
        if self.listed < ACTION_PROBLEMS_LISTED:
            self.listed += 1
            self.fail(problem)
        else:
            self.unlisted += 1

    def verdict(self) -> Verdict:
        problems = list(self.problems)
        if self.unlisted:
            problems.append(f"… and {_plural(self.unlisted, 'more problem')} with actions")
        return Verdict(
            ok=not problems,
            room=self.room,
            game=self.game,
            commitment=self.commitment,
            problems=problems,
            notes=list(self.notes),
            game_id=self.game_id,
            deal=self.deal,
            moves=self.moves,
            bot_moves=self.bot_moves,
            views=self.views,
        )


def verify(record: Any, seen: Any = None) -> Verdict:
    """Check ``record`` (a record as JSON gives it, or a bundle ``{"record": …, "seen": …}``
    as the browser saves it) and, if given, the page's view log ``seen`` against it
    (docs/fairplay.md, "``parlor verify``"). Never raises: what cannot be checked is a
    problem."""
    check = _Check()
    try:
        _verify(check, record, seen)
    except Exception as exc:  # a verifier fails closed, whatever the file holds
        check.fail(f"the record could not be checked: {type(exc).__name__}: {shown(str(exc))}")
    return check.verdict()


def _verify(check: _Check, data: Any, seen: Any) -> None:
    record = data
    if type(data) is dict and type(data.get("record")) is dict:
        # A bundle: the record and the page's view log, as "Download my game" saves them.
        record = data["record"]
        _exact_keys(check, data, _BUNDLE_KEYS, "the bundle")
        if seen is not None:
            check.fail("a bundle holds its own view log: give --seen or a bundle, not both")
        seen = data.get("seen")
    fmt = _record_shape(check, record)
    if fmt is None:
        return
    if seen is not None:
        _seen_shape(check, seen, record, fmt)
    if check.problems:
        return
    check.note("seats: " + ", ".join(_seat_words(i, s) for i, s in enumerate(record["seats"])))
    _seeds(check, record, fmt)
    if seen is not None:
        _seen_values(check, seen, record, fmt)
    _replay(check, record, fmt, seen)


def _seat_words(index: int, seat: Mapping[str, Any]) -> str:
    if not seat["bot"]:
        return f"{index} {shown(seat['name'])}"
    level = f", {seat['level']}" if "level" in seat else ""
    return f"{index} {shown(seat['name'])} (bot{level})"


# -- the record's fields -------------------------------------------------------------------------


def _exact_keys(
    check: _Check,
    value: Mapping[str, Any],
    keys: Sequence[str],
    what: str,
    report: Callable[[str], None] | None = None,
) -> bool:
    """Whether ``value`` has exactly the fields ``keys``; a problem (``report``ed) if not."""
    unknown = [k for k in value if k not in keys]
    missing = [k for k in keys if k not in value]
    wrong = []
    if unknown:
        listed = ", ".join(shown(k, 32) for k in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        many = "unknown fields" if len(unknown) > 1 else "an unknown field"
        wrong.append(f"{many} {listed}{more}")
    if missing:
        wrong.append(f"no {', '.join(missing)}")
    if wrong:
        (report or check.fail)(f"{what} has {' and '.join(wrong)}")
    return not wrong


def _record_shape(check: _Check, record: Any) -> int | None:
    """The record's format if its fields are each there and of the right kind (problems
    otherwise, and None)."""
    if type(record) is not dict:
        check.fail("the record is not a JSON object")
        return None
    fmt = record.get("record")
    if type(fmt) is not int or fmt not in records.FORMATS:
        check.fail(
            "this is not a Parlor game record of format "
            f"{' or '.join(str(f) for f in records.FORMATS)} (its record field is {shown(fmt)})"
        )
        return None
    if type(record.get("room")) is str:
        check.room = record["room"]
    if _whole(record.get("game")):
        check.game = record["game"]
    if type(record.get("commitment")) is str:
        check.commitment = record["commitment"]
    if not _exact_keys(check, record, _KEYS[fmt], "the record"):
        return None
    room, number, game_id = record["room"], record["game"], record["game_id"]
    if type(room) is not str or not _is_code(room):
        check.fail(
            f"the record's room {shown(room)} is not a room code "
            f"({codes.LENGTH} of {codes.ALPHABET})"
        )
    if not _whole(number):
        check.fail(f"the record's game {shown(number)} is not a whole number from 1 to 2^53")
    if type(game_id) is not str:
        check.fail("game_id is not a string")
    else:
        try:
            get_game(game_id)
            check.game_id = game_id
        except KeyError:
            check.fail(f"there is no game {shown(game_id)}")
    for name, kind in (
        ("options", dict),
        ("sealed", bool),
        ("commitment", str),
        ("server_seed", str),
        ("result", dict),
    ):
        if type(record[name]) is not kind:
            check.fail(f"{name} is not {_kind(kind)}")
    if type(record["seed"]) is not str or not SEED.fullmatch(record["seed"]):
        check.fail("the deal seed is not 16 lowercase hex digits")
    seats = record["seats"]
    if type(seats) is not list or not seats:
        check.fail("seats is not a list of seats")
        return None
    if check.game_id is not None:
        game = get_game(check.game_id)
        if not game.min_seats <= len(seats) <= game.max_seats:
            check.fail(
                f"{_plural(len(seats), 'seat')}: {game.name} is for "
                f"{game.min_seats} to {game.max_seats}"
            )
            return None
    for index, seat in enumerate(seats):
        _seat_shape(check, index, seat, fmt)
    listed = ["contributions", "commitments"] if fmt >= 2 else ["contributions"]
    for name in listed:
        values = record[name]
        if type(values) is not list or not all(type(v) is str for v in values):
            check.fail(f"{name} is not a list of strings")
        elif len(values) != len(seats):
            check.fail(f"{_plural(len(values), name[:-1])} for {_plural(len(seats), 'seat')}")
    if fmt >= 2:
        if not _whole(record["dealt"]):
            check.fail(f"dealt {shown(record['dealt'])} is not a whole number from 1 to 2^53")
        if type(record["bots"]) is not str:
            check.fail("bots is not a string")
    _actions_shape(check, record["actions"], len(seats))
    return None if check.problems else fmt


def _kind(kind: type) -> str:
    return {dict: "an object", bool: "true or false", str: "a string", list: "a list"}[kind]


def _seat_shape(check: _Check, index: int, seat: Any, fmt: int) -> None:
    what = f"seat {index}"
    if type(seat) is not dict:
        check.fail(f"{what} is not an object with a name and a bot flag")
        return
    bot = seat.get("bot")
    keys = ("name", "bot", "level") if fmt >= 2 and bot is True else ("name", "bot")
    if not _exact_keys(check, seat, keys, what):
        return
    if type(seat["name"]) is not str:
        check.fail(f"{what}'s name is not a string")
    if type(bot) is not bool:
        check.fail(f"{what}'s bot flag is not true or false")
    if "level" in keys and seat["level"] not in BOT_LEVELS:
        check.fail(f"{what}'s level {shown(seat['level'])} is not one of {', '.join(BOT_LEVELS)}")


def _actions_shape(check: _Check, actions: Any, seats: int) -> None:
    if type(actions) is not list:
        check.fail("actions is not a list")
        return
    for number, entry in enumerate(actions, 1):
        what = f"action {number}"
        if type(entry) is not dict:
            check.action_problem(f"{what} is not an object")
            continue
        if not _exact_keys(check, entry, _ACTION_KEYS, what, check.action_problem):
            continue
        wrong = []
        if not _whole(entry["version"]):
            wrong.append(f"its version {shown(entry['version'])} is not from 1 to 2^53")
        if not _whole(entry["seat"], 0, seats - 1):
            wrong.append(f"its seat {shown(entry['seat'])} is not one of the record's")
        if type(entry["by"]) is not str or entry["by"] not in records.PLAYED_BY:
            wrong.append(
                f"who played it, {shown(entry['by'])}, is not one of "
                f"{', '.join(sorted(records.PLAYED_BY))}"
            )
        if type(entry["action"]) is not dict:
            wrong.append("its action is not an object")
        if type(entry["events"]) is not list:
            wrong.append("its events are not a list")
        if wrong:
            check.action_problem(f"{what}: {'; '.join(wrong)}")


# -- the seeds -----------------------------------------------------------------------------------


def _seeds(check: _Check, record: Mapping[str, Any], fmt: int) -> None:
    """The commitment, the contributions (and in format 2 their commitments) and the deal
    seed derived from them."""
    seats, contributions = record["seats"], record["contributions"]
    commitments = record["commitments"] if fmt >= 2 else ["" for _ in seats]
    if fmt == 1:
        check.note(
            "a format-1 record (parlor-deal/1): its deal seed binds neither the room code nor "
            "the game number, its contributions were not committed to before they were sent, "
            "and its bot moves are not re-derived (the record does not say which bot policy "
            "or level made them)"
        )
    pattern = records.CONTRIBUTION if fmt >= 2 else records.CONTRIBUTION_1
    digits = "64" if fmt >= 2 else "16 to 64"
    fine = True
    for index, (seat, value, hashed) in enumerate(
        zip(seats, contributions, commitments, strict=True)
    ):
        what = f"seat {index}"
        if seat["bot"] and (value or hashed):
            check.fail(
                f"{what} is a bot seat, yet it has a "
                f"{'contribution' if value else 'commitment'}: a bot contributes nothing"
            )
            fine = False
            continue
        if value and not pattern.fullmatch(value):
            check.fail(f"{what}'s contribution is not {digits} lowercase hex digits")
            fine = False
            continue
        if fmt < 2:
            continue
        if hashed and not records.HASH.fullmatch(hashed):
            check.fail(f"{what}'s commitment is not 64 lowercase hex digits")
            fine = False
        elif value and not hashed:
            check.fail(f"{what} has a contribution but no locked commitment")
            fine = False
        elif value and records.contribution_commitment(value) != hashed:
            check.fail(f"{what}'s contribution does not match its commitment")
            fine = False
        elif hashed and not value:
            check.note(
                f"{what}'s browser committed, but its value was not revealed in time: its slot "
                "in the deal is empty"
            )
    given = sum(1 for value in contributions if value)
    if not record["sealed"]:
        check.fail("the deal was not sealed: its commitment was not published before it")
        check.deal = "dealt unsealed"
        return
    if given:
        check.deal = f"dealt from the server seed and {_plural(given, 'contribution')}"
    else:
        check.deal = (
            "dealt from the server seed alone: no one contributed, so the server chose this deal"
        )
        check.note(
            "no seat contributed to this deal: it rests on the server's seed alone, which was "
            "fixed before the game (the commitment) but chosen freely by the server"
        )
    server_seed = record["server_seed"]
    if not records.SERVER_SEED.fullmatch(server_seed):
        check.fail("the server seed is not 64 lowercase hex digits")
        return
    if records.commitment(server_seed) != record["commitment"]:
        check.fail("the server seed does not match the commitment")
    if not fine:
        return
    if fmt >= 2:
        derived = records.deal_seed(server_seed, contributions, record["room"], record["game"])
        source = "the server seed, the room code, the game number and the contributions"
    else:
        derived = records.deal_seed_1(server_seed, contributions)
        source = "the server seed and the contributions (parlor-deal/1)"
    if records.seed_hex(derived) != record["seed"]:
        check.fail(f"the deal seed is not the one derived from {source}")


# -- the page's view log ----------------------------------------------------------------------


def _seen_shape(check: _Check, seen: Any, record: Mapping[str, Any], fmt: int) -> None:
    what = "the view log"
    if type(seen) is not dict:
        check.fail(f"{what} is not a JSON object")
        return
    form = seen.get("seen")
    if type(form) is not int or form not in SEEN_FORMATS:
        check.fail(f"{what} is not of format 1 or 2 (its seen field is {shown(form)})")
        return
    if not _exact_keys(check, seen, _SEEN_KEYS[form], what):
        return
    if type(seen["room"]) is not str:
        check.fail(f"{what}'s room is not a string")
    if not _whole(seen["game"]):
        check.fail(f"{what}'s game is not a whole number from 1 to 2^53")
    seat = seen["seat"]
    if seat is not None and not _whole(seat, 0, len(record["seats"]) - 1):
        check.fail(f"{what}'s seat {shown(seat)} is not one of the record's seats")
    commitment, commitments = seen["commitment"], seen["commitments"]
    if commitment is not None and (
        type(commitment) is not str or not records.HASH.fullmatch(commitment)
    ):
        check.fail(f"{what}'s commitment is not null or 64 lowercase hex digits")
    if commitments is not None and (
        type(commitments) is not list
        or not all(type(h) is str and (h == "" or records.HASH.fullmatch(h)) for h in commitments)
    ):
        check.fail(f'{what}\'s commitments are not null or a list of "" or 64 hex digits')
    if form >= 2:
        _seen_seat_ids(check, seen, record)
    contribution = seen["contribution"]
    if contribution is not None and (
        type(contribution) is not str or not records.CONTRIBUTION.fullmatch(contribution)
    ):
        check.fail(f"{what}'s contribution is not null or 64 lowercase hex digits")
    views = seen["views"]
    if type(views) is not list or not all(
        type(v) is list
        and len(v) == 2
        and _whole(v[0])
        and type(v[1]) is str
        and DIGEST.fullmatch(v[1])
        for v in views
    ):
        check.fail(f"{what}'s views are not a list of [version, 32 hex digits]")
    elif fmt < 2 and views:
        check.fail(
            "a format-1 record does not say at which version the game was dealt: the views "
            "you saw cannot be placed in its replay"
        )


def _seen_seat_ids(check: _Check, seen: Mapping[str, Any], record: Mapping[str, Any]) -> None:
    """Format 2's seat ids: ``locked_seats``, each seat's id at the lock beside
    ``commitments``; ``dealt_seats``, the ids of the record's seats in its order."""
    what = "the view log"
    for key, paired, length in (
        ("locked_seats", "commitments", None),
        ("dealt_seats", None, len(record["seats"])),
    ):
        ids = seen[key]
        if ids is None:
            continue
        if type(ids) is not list or not all(_whole(i, 0) for i in ids) or len(set(ids)) != len(ids):
            check.fail(f"{what}'s {key} is not null or a list of distinct seat ids")
        elif paired is not None and (
            type(seen[paired]) is not list or len(seen[paired]) != len(ids)
        ):
            check.fail(f"{what}'s {key} does not pair up with its {paired}")
        elif length is not None and len(ids) != length:
            check.fail(f"{what}'s {key} has {len(ids)} seats, the record {length}")


def _seen_values(
    check: _Check, seen: Mapping[str, Any], record: Mapping[str, Any], fmt: int
) -> None:
    """The view log's room, game, commitments and contribution against the record's."""
    if seen["room"] != record["room"]:
        check.fail(f"the view log is of room {shown(seen['room'])}, the record of another")
    if seen["game"] != record["game"]:
        check.fail(f"the view log is of game {seen['game']}, the record of game {record['game']}")
    if seen["commitment"] is None:
        check.note(
            "your page did not see the server's commitment before the deal: the record's "
            "server seed is not tied to anything it saw"
        )
    elif seen["commitment"] != record["commitment"]:
        check.fail(
            f"the server's commitment your page saw before the deal, {seen['commitment'][:8]}…, "
            "is not the record's"
        )
    if seen["commitments"] is None:
        check.note("your page did not see the locked set of commitments before it revealed")
    elif fmt < 2:
        check.fail("a format-1 record holds no locked commitments to compare with yours")
    elif seen.get("locked_seats") is not None and seen.get("dealt_seats") is not None:
        # Seat by seat, by seat id (indexes shift when a seat leaves the lobby after the lock):
        # each of the record's seats has the commitment locked for it, or none; a seat that
        # became a bot since may have none.
        locked = dict(zip(seen["locked_seats"], seen["commitments"], strict=True))
        differ = [
            str(i)
            for i, seat_id in enumerate(seen["dealt_seats"])
            if record["commitments"][i] != locked.get(seat_id, "")
            and not (record["commitments"][i] == "" and record["seats"][i]["bot"])
        ]
        if differ:
            check.fail(
                "the record's commitments are not the ones your page saw locked for its seats "
                f"(seat {', '.join(differ)})"
            )
    elif seen["commitments"] != record["commitments"]:
        differ = [
            str(i)
            for i in range(max(len(seen["commitments"]), len(record["commitments"])))
            if seen["commitments"][i : i + 1] != record["commitments"][i : i + 1]
        ]
        check.fail(
            f"the locked commitments your page saw are not the record's (seat {', '.join(differ)})"
        )
    seat, contribution = seen["seat"], seen["contribution"]
    if seat is not None and record["seats"][seat]["bot"]:
        check.fail(f"the view log is of seat {seat}, a bot seat in the record")
    if contribution is None:
        return
    if seat is None:
        check.fail("the view log has a contribution but no seat")
        return
    recorded = record["contributions"][seat]
    if not recorded:
        check.fail(f"your page's contribution is not in the record: seat {seat} has none")
    elif recorded != contribution:
        check.fail(f"seat {seat}'s contribution in the record is not the one your page revealed")


# -- the replay ---------------------------------------------------------------------------------


@dataclass
class _Views:
    """The page's views, in version order, checked against the replay step by step."""

    seat: int | None
    pending: collections.deque[tuple[int, str]]
    checked: int = 0
    first_wrong: int | None = None
    wrong: int = 0

    def upto(self, game: Any, state: Any, below: int | None) -> None:
        """Check the views of versions before ``below`` (all, for None) against ``state``."""
        digest: str | None = None
        while self.pending and (below is None or self.pending[0][0] < below):
            _, wanted = self.pending.popleft()
            if digest is None:
                digest = records.view_digest(game.view(state, self.seat))
            self.checked += 1
            if wanted != digest:
                self.wrong += 1
                if self.first_wrong is None:
                    self.first_wrong = self.checked - 1

    def done(self, check: _Check, versions: list[int], total: int) -> None:
        if self.first_wrong is not None:
            check.fail(
                f"the view you saw at version {versions[self.first_wrong]} is not the one the "
                f"record replays to ({self.wrong} of {_plural(total, 'view')} differ)"
            )
        elif self.pending:
            check.fail(
                f"{_plural(len(self.pending), 'view')} you saw could not be checked: the replay "
                "stopped before them"
            )
        else:
            check.views = self.checked


def _replay(check: _Check, record: Mapping[str, Any], fmt: int, seen: Any) -> None:
    """Play the record through the rules (records.replay) and check each action on the way:
    it is written as the rules write it, who played it suits its seat, and every bot move is
    the one the bot policy picks again."""
    game = get_game(record["game_id"])
    seats, actions = record["seats"], record["actions"]
    check.moves = len(actions)
    options = record["options"]
    try:
        canonical = game.parse_options(options).model_dump(mode="json")
    except RulesError:
        canonical = None  # the replay says why the game cannot be dealt
    if canonical is not None:
        for name, value in options.items():
            if _plain(value) != _plain(canonical.get(name)):
                check.fail(f"option {shown(name)} is not written as the rules write it")
    rederive = fmt >= 2
    if fmt >= 2 and record["bots"] != records.BOT_POLICY:
        check.fail(
            f"the bot moves were made by bot policy {shown(record['bots'])}; this verifier has "
            f"{records.BOT_POLICY} only, so the bot moves cannot be re-derived by this verifier"
        )
        rederive = False
    if fmt >= 2 and actions and actions[0]["version"] <= record["dealt"]:
        check.fail(
            f"action 1 (version {actions[0]['version']}) is not after the deal "
            f"(version {record['dealt']})"
        )
    seed = int(record["seed"], 16)
    views: _Views | None = None
    versions: list[int] = []
    if seen is not None:
        ordered = sorted(((v, d) for v, d in seen["views"]), key=lambda view: view[0])
        versions = [v for v, _ in ordered]
        views = _Views(seen["seat"], collections.deque(ordered))
        early = [v for v in versions if v < record["dealt"]]
        if early:
            check.fail(
                f"the view log has a view at version {early[0]}, before the deal "
                f"(version {record['dealt']})"
            )
            views.pending = collections.deque((v, d) for v, d in ordered if v >= record["dealt"])
            versions = [v for v, _ in views.pending]
    rederived = 0
    before: Any = None
    last: Any = None
    try:
        for number, step in enumerate(records.replay(record)):
            entry = step.action
            if entry is None:
                last = step.state
                continue
            if views is not None:
                views.upto(game, last, entry["version"])
            before, last = last, step.state
            rederived += _check_action(check, game, seats, seed, number, entry, before, rederive)
    except records.ReplayError as exc:
        check.fail(str(exc))
        if views is not None:
            views.done(check, versions, len(versions))
        return
    if views is not None:
        views.upto(game, last, None)
        views.done(check, versions, len(versions))
    check.bot_moves = rederived if rederive else None
    result = game.result(last)
    if result is None:
        check.fail("the game is not over after the last action")
    elif _plain(result.to_wire()) != _plain(record["result"]):
        check.fail("the result is not the one the replay gives")


def _check_action(
    check: _Check,
    game: Any,
    seats: Sequence[Mapping[str, Any]],
    seed: int,
    number: int,
    entry: Mapping[str, Any],
    before: Any,
    rederive: bool,
) -> int:
    """Problems with one replayed action beyond its legality and events; 1 if it is a bot
    move re-derived."""
    where = f"action {number} (version {entry['version']})"
    index, by, written = entry["seat"], entry["by"], entry["action"]
    if _plain(game.dump_action(game.parse_action(written))) != _plain(written):
        check.action_problem(f"{where}: the action is not written as the rules write it")
    bot = seats[index]["bot"]
    if bot and by != "bot":
        check.action_problem(f"{where}: seat {index} is a bot seat, yet the move is marked {by}")
        return 0
    if by not in _BOT_MOVES or not rederive:
        return 0
    level = seats[index]["level"] if bot else DEFAULT_BOT_LEVEL
    rng = records.bot_rng(seed, entry["version"] - 1, index)
    try:
        picked = game.bot_action(before, index, rng, level)
    except RulesError:
        picked = None
    if picked is None or _plain(game.dump_action(picked)) != _plain(written):
        whose = f"bot seat {index} at level {level}" if bot else f"seat {index} ({by})"
        check.action_problem(
            f"{where}: the move of {whose} is not the one the bot policy "
            f"{records.BOT_POLICY} picks"
            + (" (it would wait)" if picked is None else f" ({shown(game.dump_action(picked))})")
        )
        return 0
    return 1

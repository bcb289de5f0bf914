"""Pure room transitions: (room, command) -> next room and its move-log entry, or a refusal.

No I/O, no clock, no randomness: the caller passes ``now`` and seeds in, so the same inputs give
the same room. The service runs these inside its compare-and-set loop; when a save loses a race
it simply calls the function again on the fresher room, which re-validates everything.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from rules.codec import pack
from rules.contract import BOT_LEVELS, DEFAULT_BOT_LEVEL, Event
from rules.errors import RulesError
from rules.evolve import replace
from rules.registry import get_game
from server import records, rooms
from server.errors import RoomError, Stale
from server.protocol import (
    Act,
    AddBot,
    Back,
    BotLevelMessage,
    Chat,
    Commit,
    ErrorCode,
    GiveHost,
    Kick,
    Leave,
    Lock,
    Options,
    Rematch,
    Reveal,
    Sequenced,
    SitOut,
    Start,
)
from server.rooms import ChatLine, Phase, Room, Sealing, Seat

MAX_SEATS = 8
#: How far past its ``last_seq`` a seat's next command may jump. A client that lost count
#: (or a hostile one) is told the expected range instead of ever reaching the ceiling.
MAX_SEQ_STEP = 1000
#: How many (seq, version) results a seat remembers for resent commands.
ACKS_KEPT = 8


@dataclass(frozen=True, slots=True)
class Limits:
    """The room rules that come from settings (the same on every instance)."""

    name_max: int = 24
    chat_max_len: int = 200
    chat_keep: int = 50
    min_turn_timer: float = 5.0
    max_turn_timer: float = 600.0
    #: The longest a game's pause may last (see :func:`turn_deadline`).
    max_pause: float = math.inf
    #: How long a start or rematch waits for the seated people's browsers to commit to their
    #: contributions (0: the commitments made so far are locked at once), and then for them
    #: to reveal the values (docs/fairplay.md).
    commit_window: float = 15.0
    reveal_window: float = 10.0

    @property
    def timer_range(self) -> tuple[float, float]:
        return (self.min_turn_timer, self.max_turn_timer)


@dataclass(frozen=True, slots=True)
class Context:
    """What a command may not compute itself: the time, fresh randomness, and the limits.

    ``seal`` is a fresh server seed (64 hex digits, docs/fairplay.md): a new room's first deal
    is sealed with it, and a deal draws the one after it from it. ``seed`` deals a game whose
    room has no sealed seed (a room made before deals were sealed); "" and 0 are for tests."""

    now: float
    seed: int = 0
    limits: Limits = Limits()
    seal: str = ""


@dataclass(frozen=True, slots=True)
class Change:
    """The outcome of a command. ``entry`` is None when nothing changes (e.g. a duplicate).

    ``version`` is the room version the command produced: for a resent command, the version
    its first application produced (when the seat still remembers it)."""

    room: Room
    entry: dict[str, Any] | None
    seat_id: int | None = None
    events: tuple[Event, ...] = ()
    version: int | None = None
    #: Set when this send is the one that applied it, though the save's reply was lost and
    #: the room had to be read again to find out (so it is not a duplicate to the sender).
    settled: bool = False
    #: What the change adds to the room's game records (server/records.py), in order.
    archive: tuple[Any, ...] = ()
    #: A new command (a fresh ``seq``) that found nothing to change (the same commitment
    #: again, "back" when not away): answered, but not as a duplicate, which is what a
    #: ``seq`` already used gets (docs/protocol.md).
    unchanged: bool = False

    @property
    def duplicate(self) -> bool:
        return self.entry is None and not self.settled and not self.unchanged

    @property
    def result_version(self) -> int:
        return self.room.version if self.version is None else self.version


def _bump(room: Room, now: float, *, max_pause: float = math.inf, **changes: Any) -> Room:
    new = replace(room, version=room.version + 1, changed_at=now, **changes)
    deadline = turn_deadline(room, new, now, max_pause)
    if deadline != new.deadline:
        # ``new`` was made on the line above and nothing else holds it yet: its deadline is
        # set on it rather than on a second copy of the room.
        _settle(new, "deadline", deadline)
    return new


def _settle(fresh: Room, name: str, value: Any) -> None:
    """Set a field of a room made by this module that no one else has seen yet (so it is
    not yet anyone's immutable value): one copy of the room fewer per command."""
    object.__setattr__(fresh, name, value)


def pause_limit(room: Room) -> float | None:
    """Seconds the game's current phase lasts at most if it is a pause (a phase that ends by
    itself, such as Number Swap's round end), else None."""
    if room.phase is not Phase.PLAYING or room.state is None:
        return None
    return room.game.pause_limit(room.state)


def turn_deadline(old: Room, new: Room, now: float, max_pause: float = math.inf) -> float:
    """When the seats to act in ``new`` run out of time (0: no timer runs).

    The clock starts again when the game moves on, the timer changes, or a seat that must
    act becomes one a person plays; a chat line or a lock leaves it running.

    A pause (``Game.pause_limit``) has a clock of its own, whatever the turn timer, even off:
    it ends at the game's limit (at most ``max_pause``) after the pause began, and does not
    start again as seats get ready within it.

    While a deal is being sealed, it is when the sealing's stage ends."""
    if new.sealing is not None:
        return new.sealing.until
    if new.phase is not Phase.PLAYING or not timed_seats(new):
        return 0.0
    pause = pause_limit(new)
    if pause is not None:
        if old.deadline and pause_limit(old) is not None:
            return old.deadline
        return now + min(pause, max_pause)
    if new.turn_timer <= 0:
        return 0.0
    if old.deadline and new.state is old.state and new.turn_timer == old.turn_timer:
        return old.deadline
    return now + new.turn_timer


def timed_seats(room: Room) -> list[int]:
    """Seat indexes to act that a person plays (a turn timer runs for them)."""
    return seats_to_act(room)[1]


def seats_to_act(room: Room) -> tuple[list[int], list[int]]:
    """The seat indexes to act, in order, split in two: those a bot must play now (bot seats,
    and away seats: :func:`bot_seats`) and those a person plays (:func:`timed_seats`)."""
    bots: list[int] = []
    people: list[int] = []
    if room.phase is not Phase.PLAYING:
        return bots, people
    seats = room.seats
    for i in sorted(room.game.to_act(room.state)):
        seat = seats[i]
        (bots if seat.token_hash is None or seat.away else people).append(i)
    return bots, people


#: The turn timer a new room gets unless its creator says otherwise, per game: long enough
#: for a person to think, short enough that a friend who fell asleep does not hold the table.
#: Number Swap's turns are one or two taps; a Warp 99 turn has three steps (A, B, C) and may
#: chain several plays; Floor's turns are a single play or a draw.
DEFAULT_TURN_TIMERS = {"numberswap": 45.0, "warp99": 90.0, "floor": 30.0}
FALLBACK_TURN_TIMER = 60.0


def default_turn_timer(game_id: str) -> float:
    return DEFAULT_TURN_TIMERS.get(game_id, FALLBACK_TURN_TIMER)


def _with_seat(room: Room, index: int, seat: Seat) -> tuple[Seat, ...]:
    return (*room.seats[:index], seat, *room.seats[index + 1 :])


def _seat_limit(room: Room) -> int:
    return min(MAX_SEATS, room.game.max_seats)


def _require_host(room: Room, seat_id: int | None) -> None:
    if seat_id is None or seat_id != room.host:
        raise RoomError(ErrorCode.NOT_HOST, "Only the host can do that")


def _require_phase(room: Room, *phases: Phase) -> None:
    if room.phase not in phases:
        names = " or ".join(p.value for p in phases)
        raise RoomError(ErrorCode.WRONG_PHASE, f"Only possible while the room is {names}")


def _seat(room: Room, seat_id: int) -> tuple[int, Seat]:
    index = room.index_of(seat_id)
    if index is None:
        raise RoomError(ErrorCode.NO_SEAT, f"There is no seat with id {seat_id}")
    return index, room.seats[index]


def clean_text(text: str, limit: int, what: str, code: ErrorCode = ErrorCode.BAD_MESSAGE) -> str:
    """Trimmed text without control characters, or a refusal."""
    cleaned = "".join(c for c in text if unicodedata.category(c)[0] != "C").strip()
    if not cleaned:
        raise RoomError(ErrorCode.BAD_MESSAGE, f"The {what} is empty")
    if len(cleaned) > limit:
        raise RoomError(code, f"The {what} is longer than {limit} characters")
    return cleaned


def check_turn_timer(seconds: float, limits: Limits) -> float:
    """A turn timer is 0 (off) or within the limits."""
    low, high = limits.timer_range
    if seconds != 0 and not low <= seconds <= high:
        raise RoomError(
            ErrorCode.BAD_MESSAGE, f"The turn timer is 0 (off) or {low:g} to {high:g} seconds"
        )
    return float(seconds)


def _pass_host(room: Room, seats: tuple[Seat, ...]) -> int | None:
    """The host stays if still seated and human; otherwise the first human seat takes over."""
    if room.host is not None and any(s.id == room.host and not s.bot for s in seats):
        return room.host
    return next((s.id for s in seats if not s.bot), None)


# -- tokens and keys -----------------------------------------------------------------------------


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def seat_token(room: Room, key: str) -> str:
    """The seat token for a join key: the same key always gives the same token in one room,
    and nobody without the room's secret can compute it."""
    mac = hmac.new(room.secret.encode(), key.encode(), hashlib.sha256).hexdigest()
    return mac[:32]


# -- exactly once --------------------------------------------------------------------------------


def command_digest(kind: str, body: Any) -> str:
    """What identifies a command's content, to tell a resend from a new command that reuses
    its number (two tabs of one seat counting on their own). In one canonical form: the same
    command with its keys in another order is the same command."""
    return hashlib.sha256(pack([kind, _canonical(body)])).hexdigest()[:16]


def _digest_as_sent(kind: str, body: Any) -> str:
    """The digest servers made before :func:`command_digest` was canonical (keys in the order
    they came): a command applied before an upgrade and resent after it is still known."""
    return hashlib.sha256(pack([kind, body])).hexdigest()[:16]


def _canonical(value: Any) -> Any:
    """``value`` with every object's keys in sorted order (a message's keys are strings)."""
    if type(value) is dict:
        return {key: _canonical(value[key]) for key in sorted(value, key=str)}
    if type(value) is list:
        return [_canonical(item) for item in value]
    return value


def sequenced(
    room: Room,
    seat_id: int,
    seq: int,
    run: Callable[[Room], Change],
    digest: str = "",
    as_sent: Callable[[], str] | None = None,
) -> Change:
    """Run a seated player's command exactly once per (seat, seq).

    A ``seq`` the seat has used is answered with its original version and changes nothing —
    unless the seat remembers that number for a different command (``digest``): then it is
    refused with ``seq_reused`` and the seat's ``last_seq``, so the sender renumbers it
    instead of losing it. One too far ahead is refused so that a seat can never run out of
    numbers. The applied ``seq`` is recorded in the same change, so the compare-and-set that
    saves the change is also what makes it exactly-once, on any instance."""
    _, seat = _seat(room, seat_id)
    if seq <= seat.last_seq:
        known = next((a for a in seat.acks if a[0] == seq), None)
        if (
            known is not None
            and digest
            and known[2]
            and known[2] != digest
            and (as_sent is None or known[2] != as_sent())
        ):
            raise RoomError(
                ErrorCode.SEQ_REUSED,
                f"Number {seq} was used for another command; the next one is {seat.last_seq + 1}",
                last_seq=seat.last_seq,
            )
        return Change(room, None, seat_id, version=None if known is None else known[1])
    if seq > seat.last_seq + MAX_SEQ_STEP:
        raise RoomError(
            ErrorCode.BAD_SEQ,
            f"The next seq must be {seat.last_seq + 1} to {seat.last_seq + MAX_SEQ_STEP}",
            last_seq=seat.last_seq,
        )
    change = run(room)
    if change.entry is None:
        return replace(change, unchanged=True)
    new = change.room
    index = new.index_of(seat_id)
    if index is not None:
        seat = new.seats[index]
        acks = (*seat.acks, (seq, new.version, digest))[-ACKS_KEPT:]
        seats = _with_seat(new, index, replace(seat, last_seq=seq, acks=acks))
        if new is not room and new.version > room.version:
            # The command's own new room, held by nothing but its change yet (every command
            # that changes a room makes it anew, through _bump).
            _settle(new, "seats", seats)
        else:
            new = replace(new, seats=seats)
    return replace(change, room=new, entry={**change.entry, "seq": seq})


# -- creating, joining and leaving -------------------------------------------------------------


def create(
    code: str,
    game_id: str,
    options: Mapping[str, Any] | None,
    turn_timer: float | None,
    ctx: Context,
    *,
    secret: str,
    created_by: str,
) -> Room:
    """A new room in the lobby, with the game's options validated."""
    try:
        game = get_game(game_id)
    except KeyError:
        raise RoomError(ErrorCode.BAD_MESSAGE, f"There is no game {game_id!r}") from None
    parsed = game.parse_options(options).model_dump(mode="json")
    wanted = default_turn_timer(game_id) if turn_timer is None else turn_timer
    timer = check_turn_timer(wanted, ctx.limits)
    return rooms.new_room(
        code,
        game_id,
        parsed,
        timer,
        ctx.now,
        secret=secret,
        created_by=created_by,
        next_seed=ctx.seal,
    )


def join(
    room: Room,
    name: str,
    token_hash: str,
    now: float,
    *,
    name_max: int,
) -> Change:
    """A new seat, or (for a token that already holds one: a resent join) that seat again."""
    held = room.seat_by_token(token_hash)
    if held is not None:
        return Change(room, None, held.id)
    name = clean_text(name, name_max, "name")
    if room.phase is not Phase.LOBBY:
        raise RoomError(ErrorCode.IN_PROGRESS, "The game has started; you can watch instead")
    if room.sealing is not None and room.sealing.locked is not None:
        raise RoomError(
            ErrorCode.IN_PROGRESS, "The cards are being dealt; you can watch, or join next game"
        )
    if room.locked:
        raise RoomError(ErrorCode.ROOM_LOCKED, "The host has locked this room")
    if len(room.seats) >= _seat_limit(room):
        raise RoomError(ErrorCode.ROOM_FULL, "Every seat is taken; you can watch instead")
    seat = Seat(id=room.next_id, name=name, token_hash=token_hash)
    seats = (*room.seats, seat)
    host = room.host if room.host is not None else seat.id
    new = _bump(room, now, seats=seats, next_id=room.next_id + 1, host=host)
    return Change(new, {"kind": "join", "seat_id": seat.id, "name": name}, seat.id)


def _without(room: Room, seat_id: int, now: float, kind: str) -> Change:
    index, seat = _seat(room, seat_id)
    if room.phase is Phase.LOBBY:
        seats = room.seats[:index] + room.seats[index + 1 :]
    else:
        # Mid-game the seat must stay: a bot plays it from now on (and a bot contributes
        # nothing to the next deal).
        seats = _with_seat(room, index, replace(seat, token_hash=None, away=False, commitment=""))
    new = _bump(room, now, seats=seats, host=None if room.host == seat_id else room.host)
    new = replace(new, host=_pass_host(new, seats))
    return Change(new, {"kind": kind, "seat_id": seat_id}, seat_id)


def leave(room: Room, seat_id: int, now: float, ctx: Context | None = None) -> Change:
    """A person leaves (in the lobby the seat goes; in a game a bot plays it). While the host's
    start waits for commitments, a leave that leaves everyone else committed locks them
    (``ctx`` gives the deal its randomness if that deals at once); one that leaves no person
    at the table calls the deal off."""
    change = _without(room, seat_id, now, "leave")
    new = change.room
    if new.sealing is None:
        return change
    if not _people(new) or len(new.seats) < new.game.min_seats:
        # Nobody left to deal for, or too few seats: the deal is called off (the host starts
        # again, and a new sealing begins).
        return replace(change, room=replace(new, sealing=None, deadline=0.0))
    if new.sealing.locked is not None:
        if ctx is not None and _all_revealed(new, new.sealing):
            # The values of everyone still at the table are in: deal now rather than wait
            # out the window for the one who left (one change, one version, as below).
            dealt = _sealed_deal(replace(new, version=room.version), ctx, change.entry or {})
            return replace(dealt, seat_id=seat_id)
        return change
    if ctx is not None and _all_committed(new):
        # One change, one version: the lock is made on the room as the leave left it, at
        # the version before.
        return _lock(replace(new, version=room.version), ctx, change.entry or {}, seat_id)
    return change


def kick(room: Room, by: int | None, target: int, now: float) -> Change:
    _require_host(room, by)
    if target == by:
        raise RoomError(ErrorCode.BAD_MESSAGE, "Use leave to leave the room")
    _, seat = _seat(room, target)
    _require_no_deal_under_way(room)
    if seat.bot and room.phase is not Phase.LOBBY:
        raise RoomError(ErrorCode.WRONG_PHASE, "A bot seat can only be removed in the lobby")
    return _without(room, target, now, "kick")


def back(room: Room, seat_id: int, now: float, *, max_pause: float = math.inf) -> Change:
    """The player of an away seat is back: the bot stops playing for it."""
    index, seat = _seat(room, seat_id)
    if not seat.away:
        return Change(room, None, seat_id)
    seats = _with_seat(room, index, replace(seat, away=False, covered=0))
    new = _bump(room, now, seats=seats, max_pause=max_pause)
    return Change(new, {"kind": "back", "seat_id": seat_id}, seat_id)


# -- sealing a deal (docs/fairplay.md) ----------------------------------------------------------


def _require_no_deal_under_way(room: Room) -> None:
    if room.sealing is not None:
        raise RoomError(
            ErrorCode.DEALING, "The cards are being dealt; change the table after the deal"
        )


def commit(room: Room, seat_id: int, hashed: str, seen: str, ctx: Context) -> Change:
    """A seat's browser commits to its secret contribution to the next deal: ``hashed`` is
    the SHA-256 of the value, made after seeing the server's commitment ``seen``. It may be
    replaced until the commitments are locked; one that completes the table's set while the
    host's start waits for it locks them at once."""
    index, seat = _seat(room, seat_id)
    if room.phase is Phase.PLAYING:
        raise RoomError(
            ErrorCode.WRONG_PHASE, "This game is dealt; commit to the next deal after it"
        )
    if not room.next_seed:
        raise RoomError(ErrorCode.WRONG_PHASE, "This room's deals are not sealed")
    if seen != room.next_commitment:
        raise RoomError(
            ErrorCode.WRONG_COMMITMENT,
            "That commitment was made for another deal; "
            f"the next deal's server commitment is {room.next_commitment[:8]}…",
            commitment=room.next_commitment,
        )
    if not records.HASH.fullmatch(hashed):
        raise RoomError(ErrorCode.BAD_MESSAGE, "A commitment is 64 lowercase hex digits")
    if seat.bot:
        raise RoomError(ErrorCode.BAD_MESSAGE, "A bot seat does not contribute")
    if room.sealing is not None and room.sealing.locked is not None:
        raise RoomError(
            ErrorCode.NOT_LOCKED_IN,
            "The commitments for this deal are locked; yours counts from the next one",
        )
    if seat.commitment == hashed:
        return Change(room, None, seat_id)
    seats = _with_seat(room, index, replace(seat, commitment=hashed))
    entry = {"kind": "commit", "seat_id": seat_id, "hash": hashed}
    staged = replace(room, seats=seats)
    if staged.sealing is not None and _all_committed(staged):
        return _lock(staged, ctx, entry, seat_id)
    return Change(_bump(room, ctx.now, seats=seats), entry, seat_id)


def reveal(room: Room, seat_id: int, value: str, ctx: Context) -> Change:
    """The value behind a seat's locked commitment. The one that completes the set deals."""
    _, seat = _seat(room, seat_id)
    sealing = room.sealing
    if sealing is None or sealing.locked is None:
        raise RoomError(
            ErrorCode.WRONG_PHASE, "Values are revealed once the commitments are locked"
        )
    locked = dict(sealing.locked).get(seat_id)
    if locked is None or seat.bot:
        raise RoomError(
            ErrorCode.NOT_LOCKED_IN,
            "Your browser's commitment was not locked in for this deal; it counts from the next",
        )
    if not records.CONTRIBUTION.fullmatch(value):
        raise RoomError(ErrorCode.BAD_MESSAGE, "A contribution is 64 lowercase hex digits")
    if records.contribution_commitment(value) != locked:
        raise RoomError(
            ErrorCode.WRONG_COMMITMENT, "That value does not match your locked commitment"
        )
    if any(sid == seat_id for sid, _ in sealing.revealed):
        return Change(room, None, seat_id)
    sealing = replace(sealing, revealed=(*sealing.revealed, (seat_id, value)))
    entry = {"kind": "reveal", "seat_id": seat_id}
    if _all_revealed(room, sealing):
        return replace(_sealed_deal(replace(room, sealing=sealing), ctx, entry), seat_id=seat_id)
    return Change(_bump(room, ctx.now, sealing=sealing), entry, seat_id)


def seal_due(room: Room, ctx: Context) -> Change:
    """The sealing's stage has run out of time (planned for ``until``): the commitments made
    so far are locked, or the game is dealt with the values revealed so far. Refused as
    stale before its time, or when there is no sealing (exactly once, on any instance)."""
    sealing = room.sealing
    if sealing is None or ctx.now < sealing.until:
        raise Stale()
    if sealing.locked is None:
        return _lock(room, ctx, {"kind": "commit_due"}, None)
    return _sealed_deal(room, ctx, {"kind": "reveal_due"})


def _people(room: Room) -> list[Seat]:
    return [s for s in room.seats if not s.bot]


def _all_committed(room: Room) -> bool:
    return all(s.commitment for s in _people(room))


def _all_revealed(room: Room, sealing: Sealing) -> bool:
    """Whether every locked seat still a person's at the table has revealed its value (one
    that left, or became a bot, is not waited for: its slot stays empty)."""
    people = {s.id for s in _people(room)}
    revealed = {seat_id for seat_id, _ in sealing.revealed}
    return all(seat_id in revealed for seat_id, _ in sealing.locked or () if seat_id in people)


def _lock(room: Room, ctx: Context, entry: dict[str, Any], seat_id: int | None) -> Change:
    """Lock the commitments: from now on nothing can be added, and the browsers reveal.
    With none to wait for, deal at once. ``room`` is at the version before the change (which
    may already hold the rest of it): this makes one new version, as every change does."""
    assert room.sealing is not None
    locked = tuple((s.id, s.commitment) for s in _people(room) if s.commitment)
    if not locked:
        return replace(_sealed_deal(room, ctx, entry), seat_id=seat_id)
    sealing = replace(room.sealing, locked=locked, until=ctx.now + ctx.limits.reveal_window)
    new = _bump(room, ctx.now, sealing=sealing)
    return Change(new, {**entry, "locked": len(locked)}, seat_id)


def _sealed_deal(room: Room, ctx: Context, trigger: dict[str, Any]) -> Change:
    """Deal from the sealing: each locked commitment of a seat still a person's, and the
    value revealed for it (or "" if it was not revealed in time). The move-log entry is the
    deal's (``start`` or ``rematch``), with what made it happen as its ``trigger``."""
    sealing = room.sealing
    assert sealing is not None
    locked = dict(sealing.locked or ())
    revealed = dict(sealing.revealed)
    commitments = tuple("" if s.bot else locked.get(s.id, "") for s in room.seats)
    values = tuple(
        revealed.get(s.id, "") if commitments[i] else "" for i, s in enumerate(room.seats)
    )
    dealt = _deal(room, ctx, sealing.kind, commitments, values)
    return replace(dealt, entry={**(dealt.entry or {}), "trigger": trigger}, seat_id=sealing.by)


# -- host powers ---------------------------------------------------------------------------------


def add_bot(room: Room, by: int | None, now: float, level: str = DEFAULT_BOT_LEVEL) -> Change:
    _require_host(room, by)
    _require_phase(room, Phase.LOBBY)
    _require_no_deal_under_way(room)
    _require_level(level)
    if len(room.seats) >= _seat_limit(room):
        raise RoomError(ErrorCode.ROOM_FULL, "Every seat is taken")
    number = 1 + sum(1 for s in room.seats if s.bot)
    seat = Seat(id=room.next_id, name=f"Bot {number}", token_hash=None, level=level)
    new = _bump(room, now, seats=(*room.seats, seat), next_id=room.next_id + 1)
    return Change(new, {"kind": "add_bot", "seat_id": seat.id, "level": level}, by)


def bot_level(room: Room, by: int | None, target: int, level: str, now: float) -> Change:
    """The host changes a bot's level: before a game starts (the lobby, or after one ends)."""
    _require_host(room, by)
    _require_phase(room, Phase.LOBBY, Phase.FINISHED)
    _require_no_deal_under_way(room)
    _require_level(level)
    index, seat = _seat(room, target)
    if not seat.bot:
        raise RoomError(ErrorCode.BAD_MESSAGE, "Only a bot seat has a level")
    if seat.level == level:
        return Change(room, None, by)
    seats = _with_seat(room, index, replace(seat, level=level))
    entry = {"kind": "bot_level", "seat_id": target, "level": level}
    return Change(_bump(room, now, seats=seats), entry, by)


def _require_level(level: str) -> None:
    if level not in BOT_LEVELS:
        raise RoomError(ErrorCode.BAD_MESSAGE, f"A bot's level is one of {', '.join(BOT_LEVELS)}")


def give_host(room: Room, by: int | None, target: int, now: float) -> Change:
    _require_host(room, by)
    _, seat = _seat(room, target)
    if seat.bot:
        raise RoomError(ErrorCode.BAD_MESSAGE, "A bot cannot be host")
    return Change(_bump(room, now, host=target), {"kind": "give_host", "seat_id": target}, by)


def lock(room: Room, by: int | None, locked: bool, now: float) -> Change:
    _require_host(room, by)
    return Change(_bump(room, now, locked=locked), {"kind": "lock", "locked": locked}, by)


def configure(
    room: Room,
    by: int | None,
    options: Mapping[str, Any] | None,
    turn_timer: float | None,
    now: float,
    *,
    timer_range: tuple[float, float],
) -> Change:
    _require_host(room, by)
    # Options shape the deal, so they wait for the lobby or the end; the timer may change
    # at any time (a host who sees a friend struggling, or one who fell asleep).
    if options is not None:
        _require_phase(room, Phase.LOBBY, Phase.FINISHED)
        _require_no_deal_under_way(room)
    changes: dict[str, Any] = {}
    if options is not None:
        parsed = room.game.parse_options({**room.options, **options})
        changes["options"] = parsed.model_dump(mode="json")
    if turn_timer is not None:
        low, high = timer_range
        changes["turn_timer"] = check_turn_timer(
            turn_timer, Limits(min_turn_timer=low, max_turn_timer=high)
        )
    entry = {"kind": "options", "options": changes.get("options"), "turn_timer": turn_timer}
    return Change(_bump(room, now, **changes), entry, by)


def _deal(
    room: Room,
    ctx: Context,
    kind: str,
    commitments: tuple[str, ...] = (),
    values: tuple[str, ...] = (),
) -> Change:
    """Deal a game (docs/fairplay.md): from the room's committed server seed, the room code,
    the game's number and each seat's revealed contribution, in seat order; ``ctx.seal``
    becomes the next deal's server seed. A room without a committed seed (made before deals
    were sealed) deals from ``ctx.seed``, unsealed."""
    number = room.round + 1
    commitments = commitments or tuple("" for _ in room.seats)
    values = values or tuple("" for _ in room.seats)
    sealed = bool(room.next_seed)
    seal, seed = ctx.seal, ctx.seed
    if sealed and not seal:
        # A sealed room stays sealed: its next deal needs a fresh server seed (a caller's bug).
        raise ValueError("a sealed room's deal needs the next server seed")
    if sealed:
        seed = records.deal_seed(room.next_seed, values, room.code, number)
    state = room.game.new_game(len(room.seats), room.options, seed)
    seats = tuple(replace(s, away=False, commitment="") for s in room.seats)
    deal = rooms.Deal(
        number, room.next_seed, room.next_commitment, values, sealed, commitments, records.FORMAT
    )
    new = _bump(
        room,
        ctx.now,
        phase=Phase.PLAYING,
        state=state,
        seed=seed,
        round=number,
        seats=seats,
        deal=deal,
        # An unsealed room's deal draws the next one's seed too: its later games are sealed.
        next_seed=seal,
        next_commitment=records.commitment(seal) if seal else "",
        sealing=None,
    )
    archived = records.deal_entry(
        round=number,
        version=new.version,
        game=room.game_id,
        options=room.options,
        seats=[(s.name, s.bot, s.level) for s in room.seats],
        server_seed=room.next_seed,
        commitment=room.next_commitment,
        commitments=commitments,
        contributions=values,
        seed=seed,
        sealed=sealed,
    )
    entry = {"kind": kind, "seed": seed, "seats": len(seats), "commitment": deal.commitment}
    return Change(new, entry, archive=(archived,))


def _ask_deal(room: Room, by: int | None, ctx: Context, kind: str) -> Change:
    """The host's start or rematch: a sealed room starts sealing the deal (it waits at most
    ``ctx.limits.commit_window`` for the seated people's commitments), an unsealed one deals
    at once. Asked again while the deal is under way, it changes nothing."""
    if room.sealing is not None:
        return Change(room, None, by)
    # A deal that cannot be made is refused now, not after the sealing (where it would leave
    # the room sealing for good).
    room.game.check_seat_count(len(room.seats))
    if not room.next_seed:
        return replace(_deal(room, ctx, kind), seat_id=by)
    sealing = Sealing(kind=kind, by=by, until=ctx.now + ctx.limits.commit_window)
    entry = {"kind": "deal_asked", "deal": kind}
    if _all_committed(room) or ctx.limits.commit_window <= 0:
        return _lock(replace(room, sealing=sealing), ctx, entry, by)
    return Change(_bump(room, ctx.now, sealing=sealing), entry, by)


def start(room: Room, by: int | None, ctx: Context) -> Change:
    """Start the first game, from the lobby (once its deal is sealed)."""
    _require_host(room, by)
    if room.phase is not Phase.LOBBY:
        raise RoomError(ErrorCode.WRONG_PHASE, f"Cannot start while {room.phase.value}")
    return _ask_deal(room, by, ctx, "start")


def rematch(room: Room, by: int | None, ctx: Context) -> Change:
    """A new game once the last one is over: same seats, same options (once its deal is
    sealed)."""
    _require_host(room, by)
    if room.phase is not Phase.FINISHED:
        raise RoomError(ErrorCode.WRONG_PHASE, f"Cannot rematch while {room.phase.value}")
    return _ask_deal(room, by, ctx, "rematch")


def chat(room: Room, seat_id: int, text: str, now: float, *, limit: int, keep: int) -> Change:
    _, seat = _seat(room, seat_id)
    text = clean_text(text, limit, "message", code=ErrorCode.CHAT_TOO_LONG)
    line = ChatLine(seat_id=seat_id, name=seat.name, text=text, at=now)
    new = _bump(room, now, chat=(*room.chat, line)[-keep:], chat_total=room.chat_total + 1)
    return Change(new, {"kind": "chat", "seat_id": seat_id, "text": text}, seat_id)


# -- playing -------------------------------------------------------------------------------------


def _play(
    room: Room,
    index: int,
    action: Any,
    now: float,
    seats: tuple[Seat, ...],
    max_pause: float,
    kind: str,
) -> Change:
    """Apply a seat's action: the change, its log entry (``kind``: who played it) and what it
    adds to the game's record."""
    game = room.game
    state, events = game.apply(room.state, index, action)
    result = game.result(state)
    phase = Phase.FINISHED if result is not None else room.phase
    played = tuple(events)
    version = room.version + 1
    moves = (*room.moves, rooms.Move(version, index, played, kind))[-rooms.MOVES_KEPT :]
    new = _bump(room, now, state=state, seats=seats, phase=phase, moves=moves, max_pause=max_pause)
    dumped = game.dump_action(action)
    seat_id = room.seats[index].id
    entry = {"kind": kind, "seat": index, "seat_id": seat_id, "action": dumped}
    archive: tuple[Any, ...] = (
        records.action_entry(room.round, version, index, kind, dumped, played),
    )
    if result is not None:
        archive = (*archive, records.end_entry(room.round, version, result.to_wire()))
    return Change(new, entry, seat_id, played, archive=archive)


def _act(
    room: Room, seat_id: int, raw_action: Any, now: float, max_pause: float = math.inf
) -> Change:
    index, seat = _seat(room, seat_id)
    if room.phase is Phase.FINISHED:
        raise RoomError(ErrorCode.GAME_OVER, "The game is over")
    _require_phase(room, Phase.PLAYING)
    game = room.game
    action = game.parse_action(raw_action)
    if seat.away or seat.covered:
        seats = _with_seat(room, index, replace(seat, away=False, covered=0))
    else:
        seats = room.seats
    return _play(room, index, action, now, seats, max_pause, "act")


def act(
    room: Room, seat_id: int, seq: int, raw_action: Any, now: float, max_pause: float = math.inf
) -> Change:
    """A player's action, applied exactly once per (seat, seq)."""
    digest = command_digest("act", raw_action)
    return sequenced(
        room,
        seat_id,
        seq,
        lambda r: _act(r, seat_id, raw_action, now, max_pause),
        digest,
        lambda: _digest_as_sent("act", raw_action),
    )


# -- the table: one pure command per seated message ----------------------------------------------

SeatedCommand = Callable[[Room, int, Any, Context], Change]

SEATED: dict[type[BaseModel], SeatedCommand] = {
    Act: lambda r, sid, m, ctx: _act(r, sid, m.action, ctx.now, ctx.limits.max_pause),
    Chat: lambda r, sid, m, ctx: chat(
        r, sid, m.text, ctx.now, limit=ctx.limits.chat_max_len, keep=ctx.limits.chat_keep
    ),
    Options: lambda r, sid, m, ctx: configure(
        r, sid, m.options, m.turn_timer, ctx.now, timer_range=ctx.limits.timer_range
    ),
    AddBot: lambda r, sid, m, ctx: add_bot(r, sid, ctx.now, m.level),
    BotLevelMessage: lambda r, sid, m, ctx: bot_level(r, sid, m.id, m.level, ctx.now),
    Kick: lambda r, sid, m, ctx: kick(r, sid, m.id, ctx.now),
    GiveHost: lambda r, sid, m, ctx: give_host(r, sid, m.id, ctx.now),
    Lock: lambda r, sid, m, ctx: lock(r, sid, m.locked, ctx.now),
    Start: lambda r, sid, m, ctx: start(r, sid, ctx),
    Rematch: lambda r, sid, m, ctx: rematch(r, sid, ctx),
    Commit: lambda r, sid, m, ctx: commit(r, sid, m.hash, m.commitment, ctx),
    Reveal: lambda r, sid, m, ctx: reveal(r, sid, m.value, ctx),
    Leave: lambda r, sid, m, ctx: leave(r, sid, ctx.now, ctx),
    SitOut: lambda r, sid, m, ctx: sit_out(r, sid, m.id, ctx.now),
    Back: lambda r, sid, m, ctx: back(r, sid, ctx.now, max_pause=ctx.limits.max_pause),
}


def seated(room: Room, seat_id: int, message: Sequenced, ctx: Context) -> Change:
    """A seated player's message as one exactly-once command (see :func:`sequenced`)."""
    if isinstance(message, Leave) and room.index_of(seat_id) is None:
        # The seat is gone: this leave (resent after a lost reply) or a kick came first.
        return Change(room, None, seat_id)
    command = SEATED[type(message)]
    # The message's fields as validated (strict types, nothing nested), without pydantic's
    # serializer: the same dict ``model_dump(mode="json", exclude={"seq"})`` gives.
    body = {k: v for k, v in message.__dict__.items() if k != "seq"}
    return sequenced(
        room,
        seat_id,
        message.seq,
        lambda r: command(r, seat_id, message, ctx),
        command_digest("m", body),
        lambda: _digest_as_sent("m", body),
    )


# -- bots and timers -----------------------------------------------------------------------------


def bot_seats(room: Room) -> list[int]:
    """Seat indexes a bot must play now: bot seats and away seats that are to act."""
    return seats_to_act(room)[0]


def _bot_action(room: Room, index: int) -> Any | None:
    """The bot's move for seat ``index``, or None if it chooses to wait (see the contract)."""
    # Seeded by (game seed, version, seat): every instance would pick the same move, and
    # parlor verify picks it again from the record.
    rng = records.bot_rng(room.seed, room.version, index)
    seat = room.seats[index]
    # A bot seat plays at its level; a bot standing in for an absent person, at the default.
    level = seat.level if seat.bot else DEFAULT_BOT_LEVEL
    return room.game.bot_action(room.state, index, rng, level)


def bot_move(
    room: Room, expected_version: int, now: float, *, max_pause: float = math.inf
) -> Change:
    """One bot turn: the first bot (or away) seat to act that does not choose to wait.

    Refused as stale unless the room is still at ``expected_version``, which is what makes it
    exactly-once when several instances plan the same turn."""
    if room.version != expected_version:
        raise Stale()
    for index in bot_seats(room):
        try:
            action = _bot_action(room, index)
            if action is None:
                continue
            seats = room.seats
            if seats[index].away:
                seats = _with_seat(
                    room, index, replace(seats[index], covered=seats[index].covered + 1)
                )
            played = _play(room, index, action, now, seats, max_pause, "bot")
        except RulesError:
            continue
        return replace(played, seat_id=None)
    raise Stale()


def timeout(
    room: Room,
    expected_version: int,
    seat_id: int,
    now: float,
    *,
    connected: frozenset[int] | None = None,
    max_pause: float = math.inf,
) -> Change:
    """A person's seat to act gets a bot, for now: mark it away and play this turn for it.

    Without ``connected`` this is the turn timer running out. With it, it is the takeover
    of a seat whose player has been disconnected for the grace period: refused (stale) if
    the player is connected again. Either way the seat's player gets it back by acting,
    resuming or sending ``back``.

    The end of a pause (``Game.pause_limit``: Number Swap's round end) is different: the
    game's own move for the seat (its ``bot_action``, "Next round") is played and the seat is
    *not* marked away. Not pressing "Next round" in time is not being absent, and a seat
    marked away would have a bot play its whole next round at once."""
    index = room.index_of(seat_id)
    pause = connected is None and pause_limit(room) is not None
    if (
        room.version != expected_version
        or index is None
        or index not in timed_seats(room)
        or (connected is None and room.turn_timer <= 0 and not pause)
        or (connected is not None and seat_id in connected)
    ):
        raise Stale()
    if pause:
        action = _bot_action(room, index)
        if action is None:
            raise Stale()
        played = _play(room, index, action, now, room.seats, max_pause, "timeout")
        return replace(played, entry={**(played.entry or {}), "pause": True}, seat_id=None)
    kind = "timeout" if connected is None else "takeover"
    away = replace(room.seats[index], away=True, covered=0)
    action = _bot_action(room, index)
    if action is None:
        # Nothing the seat must do: it is only marked away (bots play it from now on).
        seats = _with_seat(room, index, away)
        return Change(_bump(room, now, seats=seats), {"kind": "away", "seat_id": seat_id})
    seats = _with_seat(room, index, replace(away, covered=1))
    return replace(_play(room, index, action, now, seats, max_pause, kind), seat_id=None)


def pass_host(room: Room, expected_version: int, connected: frozenset[int], now: float) -> Change:
    """The host has been gone for the grace period: the first connected person takes over."""
    if room.version != expected_version or room.host is None or room.host in connected:
        raise Stale()
    heir = next((s.id for s in room.seats if not s.bot and s.id in connected), None)
    if heir is None:
        raise Stale()
    return Change(_bump(room, now, host=heir), {"kind": "give_host", "seat_id": heir})


def sit_out(room: Room, by: int | None, target: int, now: float) -> Change:
    """The host lets a bot play for a person's seat (they get it back by coming back)."""
    _require_host(room, by)
    _require_phase(room, Phase.PLAYING)
    index, seat = _seat(room, target)
    if seat.bot:
        raise RoomError(ErrorCode.BAD_MESSAGE, "That seat is a bot already")
    if target == by:
        raise RoomError(ErrorCode.BAD_MESSAGE, "The host cannot hand their own seat to a bot")
    if seat.away:
        return Change(room, None, by)
    seats = _with_seat(room, index, replace(seat, away=True, covered=0))
    return Change(_bump(room, now, seats=seats), {"kind": "sit_out", "seat_id": target}, by)


# -- the store went back in time -------------------------------------------------------------


def renumber(room: Room, above: int, now: float) -> Change:
    """The store holds an older record than this instance has sent (a restore, a failover to
    a lagging replica): carry on from what it holds, numbered above every version clients
    have seen, so that versions never go back for anyone."""
    if room.version > above:
        raise Stale()
    new = replace(room, version=above + 1, changed_at=now)
    return Change(new, {"kind": "restored", "from": room.version, "to": new.version})

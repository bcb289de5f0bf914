"""What every command shares: the limits and context a command is given, the change it
returns, and the small checks and steps they are made of."""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from typing import Any

from rules.contract import Event
from rules.evolve import replace
from server.errors import ErrorCode, RoomError
from server.rooms import Phase, Room, Seat

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


def bump(room: Room, now: float, *, max_pause: float = math.inf, **changes: Any) -> Room:
    new = replace(room, version=room.version + 1, changed_at=now, **changes)
    deadline = turn_deadline(room, new, now, max_pause)
    if deadline != new.deadline:
        new = replace(new, deadline=deadline)
    return new


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
    # The seats the game waits for: a seat that only *may* act (an undo) runs no timer, and
    # is not played for.
    for i in sorted(room.game.waiting_for(room.state)):
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


def with_seat(room: Room, index: int, seat: Seat) -> tuple[Seat, ...]:
    return (*room.seats[:index], seat, *room.seats[index + 1 :])


def seat_limit(room: Room) -> int:
    return min(MAX_SEATS, room.game.max_seats)


def require_host(room: Room, seat_id: int | None) -> None:
    if seat_id is None or seat_id != room.host:
        raise RoomError(ErrorCode.NOT_HOST, "Only the host can do that")


def require_phase(room: Room, *phases: Phase) -> None:
    if room.phase not in phases:
        names = " or ".join(p.value for p in phases)
        raise RoomError(ErrorCode.WRONG_PHASE, f"Only possible while the room is {names}")


def find_seat(room: Room, seat_id: int) -> tuple[int, Seat]:
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


def check_turn_timer(seconds: float, limits: Limits, *, turn_based: bool = False) -> float:
    """A turn timer is 0 (off) or within the limits (a turn-based room's: from an hour to a
    week, :data:`TURN_BASED_TIMERS`)."""
    low, high = TURN_BASED_TIMERS if turn_based else limits.timer_range
    if seconds != 0 and not low <= seconds <= high:
        if turn_based:
            raise RoomError(
                ErrorCode.BAD_MESSAGE,
                f"A turn-based room's turn timer is 0 (off) or {low / 3600:g} to "
                f"{high / 3600:g} hours ({low:g} to {high:g} seconds)",
            )
        raise RoomError(
            ErrorCode.BAD_MESSAGE, f"The turn timer is 0 (off) or {low:g} to {high:g} seconds"
        )
    return float(seconds)


#: A turn-based room's turn timer, when its host sets one: from an hour to a week. Off by
#: default: the room waits for whoever is to act.
TURN_BASED_TIMERS = (3600.0, 7 * 24 * 3600.0)


def wake_at(room: Room) -> float:
    """When (server clock) a turn-based room needs a move nobody will make from a browser,
    0 for never: a bot's turn (now: the room's last change), the end of the turn timer, or the
    end of a deal's sealing stage. The store keeps it for every turn-based room, so a room
    nobody has open still moves on (server/runtime/waker.py); a live room is only moved on
    while someone is in it, so it has none."""
    if not room.turn_based:
        return 0.0
    if room.sealing is not None:
        return room.sealing.until
    bots, people = seats_to_act(room)
    if bots:
        return room.changed_at
    if people and room.deadline > 0:
        return room.deadline
    return 0.0


def host_after(room: Room, seats: tuple[Seat, ...]) -> int | None:
    """The host stays if still seated and human; otherwise the first human seat takes over."""
    if room.host is not None and any(s.id == room.host and not s.bot for s in seats):
        return room.host
    return next((s.id for s in seats if not s.bot), None)

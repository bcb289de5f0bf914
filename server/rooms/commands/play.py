"""Playing: a seat's action through the game's rules, bot moves and turn timers, and carrying
on when the store went back in time."""

from __future__ import annotations

import math
from typing import Any

from rules.contract import DEFAULT_BOT_LEVEL
from rules.errors import RulesError
from rules.evolve import replace
from server import rooms
from server.errors import ErrorCode, RoomError, Stale
from server.fairplay import records
from server.rooms import Phase, Room, Seat
from server.rooms.commands.core import (
    Change,
    bump,
    find_seat,
    pause_limit,
    require_phase,
    seats_to_act,
    timed_seats,
    with_seat,
)
from server.rooms.commands.exactly_once import command_digest, digest_as_sent, sequenced

# -- playing -------------------------------------------------------------------------------------


def apply_action(
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
    new = bump(
        room,
        now,
        state=state,
        seats=seats,
        phase=phase,
        moves=moves,
        moved_at=now,
        max_pause=max_pause,
    )
    dumped = game.dump_action(action)
    seat_id = room.seats[index].id
    entry = {"kind": kind, "seat": index, "seat_id": seat_id, "action": dumped}
    archive: tuple[Any, ...] = (
        records.action_entry(room.round, version, index, kind, dumped, played),
    )
    if result is not None:
        archive = (*archive, records.end_entry(room.round, version, result.to_wire()))
    return Change(new, entry, seat_id, played, archive=archive)


def play_action(
    room: Room, seat_id: int, raw_action: Any, now: float, max_pause: float = math.inf
) -> Change:
    index, seat = find_seat(room, seat_id)
    if room.phase is Phase.FINISHED:
        raise RoomError(ErrorCode.GAME_OVER, "The game is over")
    require_phase(room, Phase.PLAYING)
    game = room.game
    action = game.parse_action(raw_action)
    if seat.away or seat.covered:
        seats = with_seat(room, index, replace(seat, away=False, covered=0, turn_only=False))
    else:
        seats = room.seats
    return apply_action(room, index, action, now, seats, max_pause, "act")


def act(
    room: Room, seat_id: int, seq: int, raw_action: Any, now: float, max_pause: float = math.inf
) -> Change:
    """A player's action, applied exactly once per (seat, seq)."""
    digest = command_digest("act", raw_action)
    return sequenced(
        room,
        seat_id,
        seq,
        lambda r: play_action(r, seat_id, raw_action, now, max_pause),
        digest,
        lambda: digest_as_sent("act", raw_action),
    )


# -- bots and timers -----------------------------------------------------------------------------


def bot_seats(room: Room) -> list[int]:
    """Seat indexes a bot must play now: bot seats and away seats that are to act."""
    return seats_to_act(room)[0]


def bot_action(room: Room, index: int) -> Any | None:
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
            action = bot_action(room, index)
            if action is None:
                continue
            seats = room.seats
            if seats[index].away:
                seats = with_seat(
                    room, index, replace(seats[index], covered=seats[index].covered + 1)
                )
            played = apply_action(room, index, action, now, seats, max_pause, "bot")
        except RulesError:
            continue
        return replace(played, room=_turn_played(played.room, index), seat_id=None)
    raise Stale()


def _turn_played(room: Room, index: int) -> Room:
    """In a turn-based room a bot plays a person's seat for one turn only (its turn timer ran
    out): once the seat is no longer to act, it is the person's again (still counting the
    moves the bot made, to tell them)."""
    seat = room.seats[index]
    if not seat.turn_only or index in room.game.waiting_for(room.state):
        return room
    return replace(room, seats=with_seat(room, index, replace(seat, away=False, turn_only=False)))


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
    marked away would have a bot play its whole next round at once.

    In a turn-based room only the turn timer (one the host set) runs out, never a takeover: a
    bot plays that one turn (marked away until it is over, :func:`_turn_played`) and the seat
    is the person's again."""
    index = room.index_of(seat_id)
    pause = connected is None and pause_limit(room) is not None
    if (
        room.version != expected_version
        # A turn-based room waits for its players: being offline is the normal case there.
        or (connected is not None and room.turn_based)
        or index is None
        or index not in timed_seats(room)
        or (connected is None and room.turn_timer <= 0 and not pause)
        or (connected is not None and seat_id in connected)
    ):
        raise Stale()
    if pause:
        action = bot_action(room, index)
        if action is None:
            raise Stale()
        played = apply_action(room, index, action, now, room.seats, max_pause, "timeout")
        return replace(played, entry={**(played.entry or {}), "pause": True}, seat_id=None)
    kind = "timeout" if connected is None else "takeover"
    # In a turn-based room the bot covers this one turn only (see _turn_played).
    away = replace(room.seats[index], away=True, covered=0, turn_only=room.turn_based)
    action = bot_action(room, index)
    if action is None:
        # Nothing the seat must do: it is only marked away (bots play it from now on).
        seats = with_seat(room, index, away)
        return Change(bump(room, now, seats=seats), {"kind": "away", "seat_id": seat_id})
    seats = with_seat(room, index, replace(away, covered=1))
    played = apply_action(room, index, action, now, seats, max_pause, kind)
    return replace(played, room=_turn_played(played.room, index), seat_id=None)


# -- the store went back in time -------------------------------------------------------------


def renumber(room: Room, above: int, now: float) -> Change:
    """The store holds an older record than this instance has sent (a restore, a failover to
    a lagging replica): carry on from what it holds, numbered above every version clients
    have seen, so that versions never go back for anyone."""
    if room.version > above:
        raise Stale()
    new = replace(room, version=above + 1, changed_at=now)
    return Change(new, {"kind": "restored", "from": room.version, "to": new.version})

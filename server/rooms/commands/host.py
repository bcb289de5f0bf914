"""The host's powers over the table: bots and their levels, the host seat, the room lock and
the game's options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.contract import BOT_LEVELS, DEFAULT_BOT_LEVEL
from rules.evolve import replace
from server.errors import ErrorCode, RoomError
from server.rooms import Phase, Room, Seat
from server.rooms.commands.core import (
    Change,
    Limits,
    bump,
    check_turn_timer,
    find_seat,
    require_host,
    require_phase,
    seat_limit,
    with_seat,
)
from server.rooms.commands.sealing import require_no_deal_under_way
from server.rooms.commands.seats import room_options

# -- host powers ---------------------------------------------------------------------------------


def add_bot(room: Room, by: int | None, now: float, level: str = DEFAULT_BOT_LEVEL) -> Change:
    require_host(room, by)
    require_phase(room, Phase.LOBBY)
    require_no_deal_under_way(room)
    require_level(level)
    if len(room.seats) >= seat_limit(room):
        raise RoomError(ErrorCode.ROOM_FULL, "Every seat is taken")
    number = 1 + sum(1 for s in room.seats if s.bot)
    seat = Seat(id=room.next_id, name=f"Bot {number}", token_hash=None, level=level)
    new = bump(room, now, seats=(*room.seats, seat), next_id=room.next_id + 1)
    return Change(new, {"kind": "add_bot", "seat_id": seat.id, "level": level}, by)


def bot_level(room: Room, by: int | None, target: int, level: str, now: float) -> Change:
    """The host changes a bot's level: before a game starts (the lobby, or after one ends)."""
    require_host(room, by)
    require_phase(room, Phase.LOBBY, Phase.FINISHED)
    require_no_deal_under_way(room)
    require_level(level)
    index, seat = find_seat(room, target)
    if not seat.bot:
        raise RoomError(ErrorCode.BAD_MESSAGE, "Only a bot seat has a level")
    if seat.level == level:
        return Change(room, None, by)
    seats = with_seat(room, index, replace(seat, level=level))
    entry = {"kind": "bot_level", "seat_id": target, "level": level}
    return Change(bump(room, now, seats=seats), entry, by)


def require_level(level: str) -> None:
    if level not in BOT_LEVELS:
        raise RoomError(ErrorCode.BAD_MESSAGE, f"A bot's level is one of {', '.join(BOT_LEVELS)}")


def give_host(room: Room, by: int | None, target: int, now: float) -> Change:
    require_host(room, by)
    _, seat = find_seat(room, target)
    if seat.bot:
        raise RoomError(ErrorCode.BAD_MESSAGE, "A bot cannot be host")
    return Change(bump(room, now, host=target), {"kind": "give_host", "seat_id": target}, by)


def lock(room: Room, by: int | None, locked: bool, now: float) -> Change:
    require_host(room, by)
    return Change(bump(room, now, locked=locked), {"kind": "lock", "locked": locked}, by)


def configure(
    room: Room,
    by: int | None,
    options: Mapping[str, Any] | None,
    turn_timer: float | None,
    now: float,
    *,
    timer_range: tuple[float, float],
) -> Change:
    require_host(room, by)
    # Options shape the deal, so they wait for the lobby or the end; the timer may change
    # at any time (a host who sees a friend struggling, or one who fell asleep).
    if options is not None:
        require_phase(room, Phase.LOBBY, Phase.FINISHED)
        require_no_deal_under_way(room)
    changes: dict[str, Any] = {}
    if options is not None:
        changes["options"] = room_options(
            room.game_id, {**room.options, **options}, room.turn_based
        )
    if turn_timer is not None:
        low, high = timer_range
        changes["turn_timer"] = check_turn_timer(
            turn_timer, Limits(min_turn_timer=low, max_turn_timer=high), turn_based=room.turn_based
        )
    entry = {"kind": "options", "options": changes.get("options"), "turn_timer": turn_timer}
    return Change(bump(room, now, **changes), entry, by)

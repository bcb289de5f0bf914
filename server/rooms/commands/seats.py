"""People at the table: creating a room, joining, leaving, being kicked, coming back, sitting
out, passing the host on, and chat."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rules.evolve import replace
from rules.registry import get_game
from server import rooms
from server.errors import ErrorCode, RoomError, Stale
from server.rooms import ChatLine, Mode, Phase, Room, Seat
from server.rooms.commands.core import (
    Change,
    Context,
    bump,
    check_turn_timer,
    clean_text,
    default_turn_timer,
    find_seat,
    host_after,
    require_host,
    require_phase,
    seat_limit,
    with_seat,
)
from server.rooms.commands.sealing import (
    all_committed,
    all_revealed,
    lock_commitments,
    people_of,
    require_no_deal_under_way,
    sealed_deal,
)

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
    mode: Mode = Mode.LIVE,
) -> Room:
    """A new room in the lobby, with the game's options validated. A turn-based room plays
    with the game's ``turn_based_options`` over the creator's, and has no turn timer unless
    asked for one."""
    try:
        get_game(game_id)
    except KeyError:
        raise RoomError(ErrorCode.BAD_MESSAGE, f"There is no game {game_id!r}") from None
    turn_based = mode is Mode.TURNS
    parsed = room_options(game_id, options, turn_based)
    if turn_timer is None:
        wanted = 0.0 if turn_based else default_turn_timer(game_id)
    else:
        wanted = turn_timer
    timer = check_turn_timer(wanted, ctx.limits, turn_based=turn_based)
    return rooms.new_room(
        code,
        game_id,
        parsed,
        timer,
        ctx.now,
        secret=secret,
        created_by=created_by,
        next_seed=ctx.seal,
        mode=mode,
    )


def room_options(game_id: str, options: Mapping[str, Any] | None, turn_based: bool) -> Any:
    """The game's options validated, as wire-clean data; a turn-based room's with the game's
    ``turn_based_options`` over them (Number Swap's blind flips: ruling 11), a live room's
    without them (those are how a game is played by text, not a choice of a live table)."""
    game = get_game(game_id)
    forced = game.turn_based_options
    if turn_based:
        wanted = {**(options or {}), **forced}
    else:
        wanted = {k: v for k, v in (options or {}).items() if k not in forced}
    return game.parse_options(wanted).model_dump(mode="json")


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
    if len(room.seats) >= seat_limit(room):
        raise RoomError(ErrorCode.ROOM_FULL, "Every seat is taken; you can watch instead")
    seat = Seat(id=room.next_id, name=name, token_hash=token_hash)
    seats = (*room.seats, seat)
    host = room.host if room.host is not None else seat.id
    new = bump(room, now, seats=seats, next_id=room.next_id + 1, host=host)
    return Change(new, {"kind": "join", "seat_id": seat.id, "name": name}, seat.id)


def without(room: Room, seat_id: int, now: float, kind: str) -> Change:
    index, seat = find_seat(room, seat_id)
    if room.phase is Phase.LOBBY:
        seats = room.seats[:index] + room.seats[index + 1 :]
    else:
        # Mid-game the seat must stay: a bot plays it from now on (and a bot contributes
        # nothing to the next deal).
        # A device move under way goes with the person (its code must not bring them back).
        gone = replace(
            seat,
            token_hash=None,
            away=False,
            commitment="",
            handoff="",
            handoff_until=0.0,
            turn_only=False,
        )
        seats = with_seat(room, index, gone)
    new = bump(room, now, seats=seats, host=None if room.host == seat_id else room.host)
    new = replace(new, host=host_after(new, seats))
    return Change(new, {"kind": kind, "seat_id": seat_id}, seat_id)


def leave(room: Room, seat_id: int, now: float, ctx: Context | None = None) -> Change:
    """A person leaves (in the lobby the seat goes; in a game a bot plays it). While the host's
    start waits for commitments, a leave that leaves everyone else committed locks them
    (``ctx`` gives the deal its randomness if that deals at once); one that leaves no person
    at the table calls the deal off."""
    change = without(room, seat_id, now, "leave")
    new = change.room
    if new.sealing is None:
        return change
    if not people_of(new) or len(new.seats) < new.game.min_seats:
        # Nobody left to deal for, or too few seats: the deal is called off (the host starts
        # again, and a new sealing begins).
        return replace(change, room=replace(new, sealing=None, deadline=0.0))
    if new.sealing.locked is not None:
        if ctx is not None and all_revealed(new, new.sealing):
            # The values of everyone still at the table are in: deal now rather than wait
            # out the window for the one who left (one change, one version, as below).
            dealt = sealed_deal(replace(new, version=room.version), ctx, change.entry or {})
            return replace(dealt, seat_id=seat_id)
        return change
    if ctx is not None and all_committed(new):
        # One change, one version: the lock is made on the room as the leave left it, at
        # the version before.
        return lock_commitments(
            replace(new, version=room.version), ctx, change.entry or {}, seat_id
        )
    return change


def kick(room: Room, by: int | None, target: int, now: float) -> Change:
    require_host(room, by)
    if target == by:
        raise RoomError(ErrorCode.BAD_MESSAGE, "Use leave to leave the room")
    _, seat = find_seat(room, target)
    require_no_deal_under_way(room)
    if seat.bot and room.phase is not Phase.LOBBY:
        raise RoomError(ErrorCode.WRONG_PHASE, "A bot seat can only be removed in the lobby")
    return without(room, target, now, "kick")


def back(room: Room, seat_id: int, now: float, *, max_pause: float = math.inf) -> Change:
    """The player of an away seat is back: the bot stops playing for it."""
    index, seat = find_seat(room, seat_id)
    if not seat.away:
        return Change(room, None, seat_id)
    seats = with_seat(room, index, replace(seat, away=False, covered=0, turn_only=False))
    new = bump(room, now, seats=seats, max_pause=max_pause)
    return Change(new, {"kind": "back", "seat_id": seat_id}, seat_id)


def chat(room: Room, seat_id: int, text: str, now: float, *, limit: int, keep: int) -> Change:
    _, seat = find_seat(room, seat_id)
    text = clean_text(text, limit, "message", code=ErrorCode.CHAT_TOO_LONG)
    line = ChatLine(seat_id=seat_id, name=seat.name, text=text, at=now)
    new = bump(room, now, chat=(*room.chat, line)[-keep:], chat_total=room.chat_total + 1)
    return Change(new, {"kind": "chat", "seat_id": seat_id, "text": text}, seat_id)


def pass_host(room: Room, expected_version: int, connected: frozenset[int], now: float) -> Change:
    """The host has been gone for the grace period: the first connected person takes over."""
    if room.version != expected_version or room.host is None or room.host in connected:
        raise Stale()
    heir = next((s.id for s in room.seats if not s.bot and s.id in connected), None)
    if heir is None:
        raise Stale()
    return Change(bump(room, now, host=heir), {"kind": "give_host", "seat_id": heir})


def sit_out(room: Room, by: int | None, target: int, now: float) -> Change:
    """The host lets a bot play for a person's seat (they get it back by coming back)."""
    require_host(room, by)
    require_phase(room, Phase.PLAYING)
    index, seat = find_seat(room, target)
    if seat.bot:
        raise RoomError(ErrorCode.BAD_MESSAGE, "That seat is a bot already")
    if target == by:
        raise RoomError(ErrorCode.BAD_MESSAGE, "The host cannot hand their own seat to a bot")
    if seat.away:
        return Change(room, None, by)
    seats = with_seat(room, index, replace(seat, away=True, covered=0))
    return Change(bump(room, now, seats=seats), {"kind": "sit_out", "seat_id": target}, by)


# -- moving a seat to another device -----------------------------------------------------------

#: How long a device move's one-time code can be exchanged for a new seat token.
HANDOFF_TTL = 15 * 60.0


def handoff(room: Room, seat_id: int, code_hash: str, now: float) -> Change:
    """The seat's player asks to move their seat to another device: the SHA-256 of a one-time
    code (made by the caller, shown to the player once) is kept on the seat for
    :data:`HANDOFF_TTL`. A second ask replaces the first code."""
    index, seat = find_seat(room, seat_id)
    seats = with_seat(
        room, index, replace(seat, handoff=code_hash, handoff_until=now + HANDOFF_TTL)
    )
    return Change(bump(room, now, seats=seats), {"kind": "handoff", "seat_id": seat_id}, seat_id)


def claim(room: Room, code_hash: str, token_hash: str, now: float) -> Change:
    """Another device exchanges the one-time code for the seat: the seat's token becomes
    ``token_hash`` (the old one stops working) and the code is used up. A claim resent with
    the same new token (its reply was lost) finds the seat already its own."""
    held = room.seat_by_token(token_hash)
    if held is not None:
        return Change(room, None, held.id)
    for index, seat in enumerate(room.seats):
        if seat.handoff and seat.handoff == code_hash and now < seat.handoff_until and not seat.bot:
            moved = replace(seat, token_hash=token_hash, handoff="", handoff_until=0.0)
            new = bump(room, now, seats=with_seat(room, index, moved))
            return Change(new, {"kind": "claim", "seat_id": seat.id}, seat.id)
    raise RoomError(
        ErrorCode.BAD_TOKEN,
        "That code does not move a seat here: it was used already, has expired (codes last "
        f"{HANDOFF_TTL / 60:g} minutes) or was mistyped",
    )

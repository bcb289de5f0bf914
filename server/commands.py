"""Pure room transitions: (room, command) -> next room and its move-log entry, or a refusal.

No I/O, no clock, no randomness: the caller passes ``now`` and seeds in, so the same inputs give
the same room. The service runs these inside its compare-and-set loop; when a save loses a race
it simply calls the function again on the fresher room, which re-validates everything.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.contract import Event
from rules.errors import RulesError
from rules.rng import Rng
from server.errors import RoomError, Stale
from server.rooms import ChatLine, Phase, Room, Seat

MAX_SEATS = 8


@dataclass(frozen=True, slots=True)
class Change:
    """The outcome of a command. ``entry`` is None when nothing changes (e.g. a duplicate)."""

    room: Room
    entry: dict[str, Any] | None
    seat_id: int | None = None
    events: tuple[Event, ...] = ()


def _bump(room: Room, now: float, **changes: Any) -> Room:
    return replace(room, version=room.version + 1, changed_at=now, **changes)


def _with_seat(room: Room, index: int, seat: Seat) -> tuple[Seat, ...]:
    return (*room.seats[:index], seat, *room.seats[index + 1 :])


def _seat_limit(room: Room) -> int:
    return min(MAX_SEATS, room.game.max_seats)


def _require_host(room: Room, seat_id: int | None) -> None:
    if seat_id is None or seat_id != room.host:
        raise RoomError("not_host", "Only the host can do that")


def _require_phase(room: Room, *phases: Phase) -> None:
    if room.phase not in phases:
        names = " or ".join(p.value for p in phases)
        raise RoomError("wrong_phase", f"Only possible while the room is {names}")


def _seat(room: Room, seat_id: int) -> tuple[int, Seat]:
    index = room.index_of(seat_id)
    if index is None:
        raise RoomError("no_seat", f"There is no seat with id {seat_id}")
    return index, room.seats[index]


def clean_text(text: str, limit: int, what: str, code: str = "bad_message") -> str:
    """Trimmed text without control characters, or a refusal."""
    cleaned = "".join(c for c in text if unicodedata.category(c)[0] != "C").strip()
    if not cleaned:
        raise RoomError("bad_message", f"The {what} is empty")
    if len(cleaned) > limit:
        raise RoomError(code, f"The {what} is longer than {limit} characters")
    return cleaned


def _pass_host(room: Room, seats: tuple[Seat, ...]) -> int | None:
    """The host stays if still seated and human; otherwise the first human seat takes over."""
    if room.host is not None and any(s.id == room.host and not s.bot for s in seats):
        return room.host
    return next((s.id for s in seats if not s.bot), None)


# -- joining and leaving -------------------------------------------------------------------------


def join(room: Room, name: str, token_hash: str, now: float, *, name_max: int) -> Change:
    name = clean_text(name, name_max, "name")
    if room.phase is not Phase.LOBBY:
        raise RoomError("in_progress", "The game has started; you can watch instead")
    if room.locked:
        raise RoomError("room_locked", "The host has locked this room")
    if len(room.seats) >= _seat_limit(room):
        raise RoomError("room_full", "Every seat is taken; you can watch instead")
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
        # Mid-game the seat must stay: a bot plays it from now on.
        seats = _with_seat(room, index, replace(seat, token_hash=None, away=False))
    new = _bump(room, now, seats=seats, host=None if room.host == seat_id else room.host)
    new = replace(new, host=_pass_host(new, seats))
    return Change(new, {"kind": kind, "seat_id": seat_id}, seat_id)


def leave(room: Room, seat_id: int, now: float) -> Change:
    return _without(room, seat_id, now, "leave")


def kick(room: Room, by: int | None, target: int, now: float) -> Change:
    _require_host(room, by)
    if target == by:
        raise RoomError("bad_message", "Use leave to leave the room")
    _, seat = _seat(room, target)
    if seat.bot and room.phase is not Phase.LOBBY:
        raise RoomError("wrong_phase", "A bot seat can only be removed in the lobby")
    return _without(room, target, now, "kick")


def back(room: Room, seat_id: int, now: float) -> Change:
    """The player of an away seat is back: the bot stops playing for it."""
    index, seat = _seat(room, seat_id)
    if not seat.away:
        return Change(room, None, seat_id)
    seats = _with_seat(room, index, replace(seat, away=False))
    return Change(_bump(room, now, seats=seats), {"kind": "back", "seat_id": seat_id}, seat_id)


# -- host powers ---------------------------------------------------------------------------------


def add_bot(room: Room, by: int | None, now: float) -> Change:
    _require_host(room, by)
    _require_phase(room, Phase.LOBBY)
    if len(room.seats) >= _seat_limit(room):
        raise RoomError("room_full", "Every seat is taken")
    number = 1 + sum(1 for s in room.seats if s.bot)
    seat = Seat(id=room.next_id, name=f"Bot {number}", token_hash=None)
    new = _bump(room, now, seats=(*room.seats, seat), next_id=room.next_id + 1)
    return Change(new, {"kind": "add_bot", "seat_id": seat.id}, by)


def give_host(room: Room, by: int | None, target: int, now: float) -> Change:
    _require_host(room, by)
    _, seat = _seat(room, target)
    if seat.bot:
        raise RoomError("bad_message", "A bot cannot be host")
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
    _require_phase(room, Phase.LOBBY, Phase.FINISHED)
    changes: dict[str, Any] = {}
    if options is not None:
        parsed = room.game.parse_options({**room.options, **options})
        changes["options"] = parsed.model_dump(mode="json")
    if turn_timer is not None:
        low, high = timer_range
        if turn_timer != 0 and not low <= turn_timer <= high:
            raise RoomError(
                "bad_message", f"The turn timer is 0 (off) or {low:g} to {high:g} seconds"
            )
        changes["turn_timer"] = float(turn_timer)
    entry = {"kind": "options", "options": changes.get("options"), "turn_timer": turn_timer}
    return Change(_bump(room, now, **changes), entry, by)


def start(room: Room, by: int | None, seed: int, now: float) -> Change:
    """Start the first game (from the lobby) or a rematch (once finished): same seats, options."""
    _require_host(room, by)
    _require_phase(room, Phase.LOBBY, Phase.FINISHED)
    kind = "start" if room.phase is Phase.LOBBY else "rematch"
    state = room.game.new_game(len(room.seats), room.options, seed)
    seats = tuple(replace(s, away=False) for s in room.seats)
    new = _bump(
        room, now, phase=Phase.PLAYING, state=state, seed=seed, round=room.round + 1, seats=seats
    )
    return Change(new, {"kind": kind, "seed": seed, "seats": len(seats)}, by)


def chat(room: Room, seat_id: int, text: str, now: float, *, limit: int, keep: int) -> Change:
    _, seat = _seat(room, seat_id)
    text = clean_text(text, limit, "message", code="chat_too_long")
    line = ChatLine(seat_id=seat_id, name=seat.name, text=text, at=now)
    new = _bump(room, now, chat=(*room.chat, line)[-keep:], chat_total=room.chat_total + 1)
    return Change(new, {"kind": "chat", "seat_id": seat_id, "text": text}, seat_id)


# -- playing -------------------------------------------------------------------------------------


def _play(room: Room, index: int, action: Any, now: float, seats: tuple[Seat, ...]) -> Room:
    state, _events = room.game.apply(room.state, index, action)
    over = room.game.result(state) is not None
    return _bump(room, now, state=state, seats=seats, phase=Phase.FINISHED if over else room.phase)


def act(room: Room, seat_id: int, seq: int, raw_action: Any, now: float) -> Change:
    """A player's action, applied at most once per (seat, seq)."""
    index, seat = _seat(room, seat_id)
    if seq <= seat.last_seq:
        # Already applied (a retry, or another tab of the same seat): acknowledge, change nothing.
        return Change(room, None, seat_id)
    if room.phase is Phase.FINISHED:
        raise RoomError("game_over", "The game is over")
    _require_phase(room, Phase.PLAYING)
    game = room.game
    action = game.parse_action(raw_action)
    state, events = game.apply(room.state, index, action)
    seats = _with_seat(room, index, replace(seat, last_seq=seq, away=False))
    over = game.result(state) is not None
    new = _bump(room, now, state=state, seats=seats, phase=Phase.FINISHED if over else room.phase)
    entry = {
        "kind": "act",
        "seat": index,
        "seat_id": seat_id,
        "seq": seq,
        "action": game.dump_action(action),
    }
    return Change(new, entry, seat_id, tuple(events))


def bot_seats(room: Room) -> list[int]:
    """Seat indexes a bot must play now: bot seats and away seats that are to act."""
    if room.phase is not Phase.PLAYING:
        return []
    to_act = room.game.to_act(room.state)
    return [i for i in sorted(to_act) if room.seats[i].bot or room.seats[i].away]


def _bot_action(room: Room, index: int) -> Any | None:
    """The bot's move for seat ``index``, or None if it chooses to wait (see the contract)."""
    # Seeded by (game seed, version, seat): every instance would pick the same move.
    rng = Rng.from_seed(room.seed ^ (room.version * 0x9E3779B1) ^ (index << 48))
    return room.game.bot_action(room.state, index, rng)


def bot_move(room: Room, expected_version: int, now: float) -> Change:
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
            new = _play(room, index, action, now, room.seats)
        except RulesError:
            continue
        entry = {
            "kind": "bot",
            "seat": index,
            "seat_id": room.seats[index].id,
            "action": room.game.dump_action(action),
        }
        return Change(new, entry)
    raise Stale()


def timeout(room: Room, expected_version: int, seat_id: int, now: float) -> Change:
    """The turn timer ran out for a seat: mark it away and let a bot play this turn for it."""
    index = room.index_of(seat_id)
    if (
        room.version != expected_version
        or index is None
        or room.phase is not Phase.PLAYING
        or room.turn_timer <= 0
        or room.seats[index].bot
        or room.seats[index].away
        or index not in room.game.to_act(room.state)
    ):
        raise Stale()
    seats = _with_seat(room, index, replace(room.seats[index], away=True))
    action = _bot_action(room, index)
    if action is None:
        # Nothing the seat must do: it is only marked away (bots play it from now on).
        return Change(_bump(room, now, seats=seats), {"kind": "away", "seat_id": seat_id})
    new = _play(room, index, action, now, seats)
    entry = {
        "kind": "timeout",
        "seat": index,
        "seat_id": seat_id,
        "action": room.game.dump_action(action),
    }
    return Change(new, entry)

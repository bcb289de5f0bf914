"""Every outgoing description of a room. Game state leaves only through ``game.view``.

A state message is a full snapshot for one seat (or a spectator): room info, the seat's view
with its legal actions, and the room version. Clients never merge deltas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.fairplay import records
from server.rooms import Phase, Room, Seat
from server.transport import wire
from server.transport.wire import Format, Frame, encode


def room_info(
    room: Room,
    connected: frozenset[int],
    now: float,
    takeovers: dict[int, float] | None = None,
) -> dict[str, Any]:
    """Public facts about the room: the same for every connection.

    ``deadline`` is when the seats to act run out of time (0: no timer runs), on the server's
    clock, and ``now`` is the server's clock as the message was made: a client counts down
    ``deadline - now`` from when it received the message, whatever its own clock says.
    ``takeovers`` (seat id -> server time) are the seats whose player dropped on their turn,
    and when a bot starts playing for them: sent as ``takeover`` [{seat, at}] when any."""
    info = {
        "code": room.code,
        "game": room.game_id,
        "phase": room.phase.value,
        "mode": room.mode.value,
        "version": room.version,
        "host": None if room.host is None else room.index_of(room.host),
        "locked": room.locked,
        "options": room.options,
        "turn_timer": room.turn_timer,
        "deadline": room.deadline,
        "now": now,
        "round": room.round,
        "seats": [seat_info(seat, connected) for seat in room.seats],
        **deal_info(room),
    }
    if room.turn_based and room.phase is Phase.PLAYING and room.state is not None:
        # Whose turn it is, as "Your games" says it: the seats the game waits for (not one
        # that only may act, such as Number Swap's open undo), so a page knows whom to send
        # the turn to (docs/protocol.md, "Live and turn-based rooms").
        info["waiting"] = sorted(room.game.waiting_for(room.state))
    if takeovers:
        coming = [
            {"seat": index, "at": takeovers[seat.id]}
            for index, seat in enumerate(room.seats)
            if seat.id in takeovers
        ]
        if coming:
            info["takeover"] = coming
    return info


def your_game(room: Room, seat_id: int) -> dict[str, Any]:
    """One room of "Your games" (``POST /api/mine``, docs/protocol.md), for the seat
    ``seat_id``: the game, the other players, whose turn it is, and when the last move was."""
    index = room.index_of(seat_id)
    to_act: list[int] = []
    if room.phase is Phase.PLAYING and room.state is not None:
        to_act = sorted(room.game.waiting_for(room.state))
    return {
        "code": room.code,
        "game": room.game_id,
        "name": room.game.name,
        "mode": room.mode.value,
        "phase": room.phase.value,
        "seat": index,
        "you": None if index is None else room.seats[index].name,
        "others": [seat.name for seat in room.seats if seat.id != seat_id],
        "to_act": [room.seats[i].name for i in to_act],
        "your_turn": index in to_act,
        "moved_at": room.moved_at or room.changed_at,
        "changed_at": room.changed_at,
    }


def deal_info(room: Room) -> dict[str, Any]:
    """The seals (docs/fairplay.md). While a sealed game is played, ``seal``: its commitment's
    first 8 hex digits, to show (every state message carries it, so it stays small; a client
    checks against the full commitment it saw in ``next_deal`` before the deal). Once the game
    is over, ``deal``: everything, the server seed and the deal seed included. ``next_deal``
    while the next deal is open (the lobby, and after a game): the server's commitment, each
    seat's contribution commitment, and once the host has asked for the deal its ``stage``
    ("commit", then "reveal" with the ``locked`` set and who has ``revealed``) and when the
    stage ends (``until``, server clock). Each is absent when there is none."""
    info: dict[str, Any] = {}
    deal = room.deal
    if deal is not None:
        if room.phase is Phase.FINISHED:
            info["deal"] = {
                "round": deal.round,
                "format": deal.format,
                "sealed": deal.sealed,
                "commitment": deal.commitment,
                "commitments": list(deal.commitments),
                "contributions": list(deal.contributions),
                "server_seed": deal.server_seed,
                "seed": records.seed_hex(room.seed),
            }
        elif deal.sealed:
            info["seal"] = deal.commitment[:8]
    if room.next_commitment and room.phase is not Phase.PLAYING:
        next_deal: dict[str, Any] = {
            "commitment": room.next_commitment,
            "commitments": [s.commitment for s in room.seats],
        }
        sealing = room.sealing
        if sealing is not None:
            next_deal["until"] = sealing.until
            if sealing.locked is None:
                next_deal["stage"] = "commit"
            else:
                locked = dict(sealing.locked)
                revealed = {sid for sid, _ in sealing.revealed}
                next_deal["stage"] = "reveal"
                next_deal["locked"] = [locked.get(s.id, "") for s in room.seats]
                next_deal["revealed"] = [s.id in revealed for s in room.seats]
        info["next_deal"] = next_deal
    return info


def seat_info(seat: Seat, connected: frozenset[int]) -> dict[str, Any]:
    """One seat, compactly (docs/protocol.md, "Seats"): its index is its place in the list;
    ``id``, ``name`` and ``connected`` always; ``bot`` (with the bot's ``level``), ``away`` and
    ``covered`` only when they hold — absent means false, or 0 moves covered."""
    on = seat.id in connected
    # One read-only dict per seat object and presence, shared by every message that shows it
    # (a seat is immutable: a change makes a new one).
    shown = seat.memo.shown
    if shown is not None and shown[0] is on:
        return shown[1]  # type: ignore[no-any-return]
    info: dict[str, Any] = {"id": seat.id, "name": seat.name, "connected": on}
    seat.memo.shown = (on, info)
    if seat.bot:
        info["bot"] = True
        info["level"] = seat.level
    if seat.away:
        info["away"] = True
    if seat.covered:
        info["covered"] = seat.covered
    return info


def seat_views(room: Room, seats: Sequence[int | None]) -> dict[int | None, Any]:
    """Each listed seat's view (None = spectator), rendered together by the game's ``views``.

    The views may share sub-objects: they are encoded straight away, never modified."""
    if room.state is None:
        return dict.fromkeys(seats)
    return dict(zip(seats, room.game.views(room.state, list(seats)), strict=True))


def seat_view_parts(
    room: Room, seats: Sequence[int | None]
) -> tuple[dict[str, Any], dict[int | None, Any]]:
    """:func:`seat_views` in two parts (``Game.view_parts``): what every listed seat's view
    holds alike, and each seat's own part; a seat's view is ``{**shared, **own}``. Nothing
    is shared (``{}``, each part the whole view, or None) before the game."""
    if room.state is None:
        return {}, dict.fromkeys(seats)
    shared, owns = room.game.view_parts(room.state, list(seats))
    return shared, dict(zip(seats, owns, strict=True))


def state_frames(
    room: Room,
    info: dict[str, Any],
    parts: tuple[dict[str, Any], dict[int | None, Any]],
    wanted: Sequence[tuple[int | None, list[Any]]],
    fmt: Format,
) -> list[Frame]:
    """The frames of one fan-out, each exactly ``encode`` of its :func:`state_message`: one
    per ``(seat index, events)`` of ``wanted``, the views given in two parts as
    :func:`seat_view_parts` makes them. In msgpack, what the messages share is packed once
    (``wire.state_frames``); JSON, for people debugging with a plain tool, is encoded
    message by message."""
    shared, own = parts
    if fmt is Format.MSGPACK:
        seats = room.seats
        return list(
            wire.state_frames(
                room.version,
                info,
                [(i, 0 if i is None else seats[i].last_seq, own[i], ev) for i, ev in wanted],
                shared,
            )
        )
    return [
        encode(state_message(room, info, i, {**shared, **own[i]} if shared else own[i], ev), fmt)
        for i, ev in wanted
    ]


def state_message(
    room: Room, info: dict[str, Any], seat: int | None, view: Any, events: list[Any]
) -> dict[str, Any]:
    """The snapshot for seat index ``seat`` (None = spectator) with that seat's view, and the
    public events since the connection's last snapshot (see :func:`events_since`)."""
    return {
        "type": "state",
        "version": room.version,
        "you": seat,
        "last_seq": 0 if seat is None else room.seats[seat].last_seq,
        "room": info,
        "view": view,
        "events": events,
    }


def events_since(room: Room, sent_version: int) -> list[dict[str, Any]]:
    """The public events of every version after ``sent_version`` that the room still keeps,
    oldest first. None for a connection's first snapshot (``sent_version`` 0): with nothing
    to compare against, it only has the state to show."""
    if sent_version <= 0:
        return []
    moves = room.moves
    # Oldest first, so the newer ones are a run at the end (usually one move).
    start = len(moves)
    while start > 0 and moves[start - 1].version > sent_version:
        start -= 1
    return [m.shown() for m in moves[start:]]


def chat_message(room: Room) -> dict[str, Any]:
    return {
        "type": "chat",
        "total": room.chat_total,
        "lines": [
            {"id": line.seat_id, "name": line.name, "text": line.text, "at": line.at}
            for line in room.chat
        ],
    }

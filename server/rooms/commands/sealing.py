"""Sealing a deal (docs/fairplay.md): commitments, the lock, the reveals, and the deal made
from them when the host starts or asks for a rematch."""

from __future__ import annotations

from typing import Any

from rules.evolve import replace
from server import rooms
from server.errors import ErrorCode, RoomError, Stale
from server.fairplay import records
from server.rooms import Phase, Room, Sealing, Seat
from server.rooms.commands.core import Change, Context, bump, find_seat, require_host, with_seat

# -- sealing a deal (docs/fairplay.md) ----------------------------------------------------------


def require_no_deal_under_way(room: Room) -> None:
    if room.sealing is not None:
        raise RoomError(
            ErrorCode.DEALING, "The cards are being dealt; change the table after the deal"
        )


def commit(room: Room, seat_id: int, hashed: str, seen: str, ctx: Context) -> Change:
    """A seat's browser commits to its secret contribution to the next deal: ``hashed`` is
    the SHA-256 of the value, made after seeing the server's commitment ``seen``. It may be
    replaced until the commitments are locked; one that completes the table's set while the
    host's start waits for it locks them at once."""
    index, seat = find_seat(room, seat_id)
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
    seats = with_seat(room, index, replace(seat, commitment=hashed))
    entry = {"kind": "commit", "seat_id": seat_id, "hash": hashed}
    staged = replace(room, seats=seats)
    if staged.sealing is not None and all_committed(staged):
        return lock_commitments(staged, ctx, entry, seat_id)
    return Change(bump(room, ctx.now, seats=seats), entry, seat_id)


def reveal(room: Room, seat_id: int, value: str, ctx: Context) -> Change:
    """The value behind a seat's locked commitment. The one that completes the set deals."""
    _, seat = find_seat(room, seat_id)
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
    if all_revealed(room, sealing):
        return replace(sealed_deal(replace(room, sealing=sealing), ctx, entry), seat_id=seat_id)
    return Change(bump(room, ctx.now, sealing=sealing), entry, seat_id)


def seal_due(room: Room, ctx: Context) -> Change:
    """The sealing's stage has run out of time (planned for ``until``): the commitments made
    so far are locked, or the game is dealt with the values revealed so far. Refused as
    stale before its time, or when there is no sealing (exactly once, on any instance)."""
    sealing = room.sealing
    if sealing is None or ctx.now < sealing.until:
        raise Stale()
    if sealing.locked is None:
        return lock_commitments(room, ctx, {"kind": "commit_due"}, None)
    return sealed_deal(room, ctx, {"kind": "reveal_due"})


def people_of(room: Room) -> list[Seat]:
    return [s for s in room.seats if not s.bot]


def all_committed(room: Room) -> bool:
    return all(s.commitment for s in people_of(room))


def all_revealed(room: Room, sealing: Sealing) -> bool:
    """Whether every locked seat still a person's at the table has revealed its value (one
    that left, or became a bot, is not waited for: its slot stays empty)."""
    people = {s.id for s in people_of(room)}
    revealed = {seat_id for seat_id, _ in sealing.revealed}
    return all(seat_id in revealed for seat_id, _ in sealing.locked or () if seat_id in people)


def lock_commitments(
    room: Room, ctx: Context, entry: dict[str, Any], seat_id: int | None
) -> Change:
    """Lock the commitments: from now on nothing can be added, and the browsers reveal.
    With none to wait for, deal at once. ``room`` is at the version before the change (which
    may already hold the rest of it): this makes one new version, as every change does."""
    assert room.sealing is not None
    locked = tuple((s.id, s.commitment) for s in people_of(room) if s.commitment)
    if not locked:
        return replace(sealed_deal(room, ctx, entry), seat_id=seat_id)
    sealing = replace(room.sealing, locked=locked, until=ctx.now + ctx.limits.reveal_window)
    new = bump(room, ctx.now, sealing=sealing)
    return Change(new, {**entry, "locked": len(locked)}, seat_id)


def sealed_deal(room: Room, ctx: Context, trigger: dict[str, Any]) -> Change:
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
    dealt = deal_game(room, ctx, sealing.kind, commitments, values)
    return replace(dealt, entry={**(dealt.entry or {}), "trigger": trigger}, seat_id=sealing.by)


def deal_game(
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
    new = bump(
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


def ask_deal(room: Room, by: int | None, ctx: Context, kind: str) -> Change:
    """The host's start or rematch: a sealed room starts sealing the deal (it waits at most
    ``ctx.limits.commit_window`` for the seated people's commitments), an unsealed one deals
    at once. Asked again while the deal is under way, it changes nothing."""
    if room.sealing is not None:
        return Change(room, None, by)
    # A deal that cannot be made is refused now, not after the sealing (where it would leave
    # the room sealing for good).
    room.game.check_seat_count(len(room.seats))
    if not room.next_seed:
        return replace(deal_game(room, ctx, kind), seat_id=by)
    sealing = Sealing(kind=kind, by=by, until=ctx.now + ctx.limits.commit_window)
    entry = {"kind": "deal_asked", "deal": kind}
    if all_committed(room) or ctx.limits.commit_window <= 0:
        return lock_commitments(replace(room, sealing=sealing), ctx, entry, by)
    return Change(bump(room, ctx.now, sealing=sealing), entry, by)


def start(room: Room, by: int | None, ctx: Context) -> Change:
    """Start the first game, from the lobby (once its deal is sealed)."""
    require_host(room, by)
    if room.phase is not Phase.LOBBY:
        raise RoomError(ErrorCode.WRONG_PHASE, f"Cannot start while {room.phase.value}")
    return ask_deal(room, by, ctx, "start")


def rematch(room: Room, by: int | None, ctx: Context) -> Change:
    """A new game once the last one is over: same seats, same options (once its deal is
    sealed)."""
    require_host(room, by)
    if room.phase is not Phase.FINISHED:
        raise RoomError(ErrorCode.WRONG_PHASE, f"Cannot rematch while {room.phase.value}")
    return ask_deal(room, by, ctx, "rematch")

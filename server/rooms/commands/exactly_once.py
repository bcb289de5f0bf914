"""Seat tokens, and exactly once: a seat's numbered command is applied once, and a resent one
is answered with its first result."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Any

from rules.codec import pack
from rules.evolve import replace
from server.errors import ErrorCode, RoomError
from server.rooms import Room
from server.rooms.commands.core import ACKS_KEPT, MAX_SEQ_STEP, Change, find_seat, with_seat

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
    return hashlib.sha256(pack([kind, canonical(body)])).hexdigest()[:16]


def digest_as_sent(kind: str, body: Any) -> str:
    """The digest servers made before :func:`command_digest` was canonical (keys in the order
    they came): a command applied before an upgrade and resent after it is still known."""
    return hashlib.sha256(pack([kind, body])).hexdigest()[:16]


def canonical(value: Any) -> Any:
    """``value`` with every object's keys in sorted order (a message's keys are strings)."""
    if type(value) is dict:
        return {key: canonical(value[key]) for key in sorted(value, key=str)}
    if type(value) is list:
        return [canonical(item) for item in value]
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
    _, seat = find_seat(room, seat_id)
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
        new = replace(new, seats=with_seat(new, index, replace(seat, last_seq=seq, acks=acks)))
    return replace(change, room=new, entry={**change.entry, "seq": seq})

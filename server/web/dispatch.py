"""Which pure command each seated message is: the one place the wire protocol's message
classes meet the room commands (:mod:`server.rooms.commands`), which know nothing of them."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from server.errors import ErrorCode, RoomError
from server.rooms import Room
from server.rooms.commands import (
    Change,
    Context,
    add_bot,
    back,
    bot_level,
    chat,
    commit,
    configure,
    give_host,
    handoff,
    kick,
    leave,
    lock,
    play_action,
    rematch,
    reveal,
    sit_out,
    start,
)
from server.rooms.commands.exactly_once import command_digest, digest, digest_as_sent, sequenced
from server.transport.protocol import (
    Act,
    AddBot,
    Back,
    BotLevelMessage,
    Chat,
    Commit,
    GiveHost,
    Handoff,
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

SeatedCommand = Callable[[Room, int, Any, Context], Change]

SEATED: dict[type[BaseModel], SeatedCommand] = {
    Act: lambda r, sid, m, ctx: play_action(r, sid, m.action, ctx.now, ctx.limits.max_pause),
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
    Handoff: lambda r, sid, m, ctx: handoff(
        r, sid, handoff_digest(handoff_code(r, sid, m.seq)), ctx.now
    ),
}


def handoff_code(room: Room, seat_id: int, seq: int) -> str:
    """The one-time code of a seat's device move asked for by command ``seq``: 12 letters and
    digits (60 bits) in three groups, derived from the room's secret so that a resent
    command shows the same code, and nobody without the secret can compute it."""
    mac = hmac.new(room.secret.encode(), f"handoff:{seat_id}:{seq}".encode(), hashlib.sha256)
    letters = base64.b32encode(mac.digest()).decode()[:12]
    return "-".join(letters[i : i + 4] for i in range(0, 12, 4))


def handoff_digest(code: str) -> str:
    """What a seat keeps of its device move's code: the digest of the code as typed, without
    dashes or spaces, in capitals."""
    return digest("".join(code.split()).replace("-", "").upper())


def seated(
    room: Room, seat_id: int, message: Sequenced, ctx: Context, token_hash: str | None = None
) -> Change:
    """A seated player's message as one exactly-once command (see :func:`sequenced`).
    ``token_hash``: the token the connection holds the seat with, which must still be the
    seat's (not moved to another device since)."""
    if token_hash is not None:
        index = room.index_of(seat_id)
        if index is not None and room.seats[index].token_hash not in (None, token_hash):
            raise RoomError(ErrorCode.KICKED, "This seat moved to another device", moved=True)
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
        lambda: digest_as_sent("m", body),
    )

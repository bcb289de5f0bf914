"""Which pure command each seated message is: the one place the wire protocol's message
classes meet the room commands (:mod:`server.rooms.commands`), which know nothing of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

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
    kick,
    leave,
    lock,
    play_action,
    rematch,
    reveal,
    sit_out,
    start,
)
from server.rooms.commands.exactly_once import command_digest, digest_as_sent, sequenced
from server.transport.protocol import (
    Act,
    AddBot,
    Back,
    BotLevelMessage,
    Chat,
    Commit,
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
        lambda: digest_as_sent("m", body),
    )

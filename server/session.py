"""One WebSocket client's conversation: frames in, commands to the service, answers out.

The session owns the per-connection limits (frame size, flood and chat buckets, strikes) and
turns every refusal into an error message for the sender only. Nothing here touches the room
except through :class:`~server.service.RoomService`.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from rules.contract import readable
from rules.errors import RulesError
from server import commands
from server.config import Settings
from server.connections import Connection
from server.errors import ParlorError, RoomError
from server.hub import Hub
from server.limits import TokenBucket
from server.metrics import Metrics
from server.protocol import (
    CLIENT_TYPES,
    Act,
    AddBot,
    Back,
    Chat,
    ClientMessage,
    CloseCode,
    ErrorCode,
    GiveHost,
    Join,
    Kick,
    Leave,
    Lock,
    Options,
    Rematch,
    Resume,
    Start,
    Sync,
    Watch,
    client_message,
    error,
)
from server.rooms import Phase, Room
from server.service import RoomService
from server.store import StoreError
from server.wire import Frame, FrameError, decode

log = logging.getLogger(__name__)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Session:
    def __init__(
        self,
        conn: Connection,
        code: str,
        service: RoomService,
        hub: Hub,
        settings: Settings,
        metrics: Metrics,
    ) -> None:
        self.conn = conn
        self.code = code
        self.service = service
        self.hub = hub
        self.settings = settings
        self.metrics = metrics
        self.flood = TokenBucket(settings.flood_rate, settings.flood_burst)
        self.chat_limit = TokenBucket(settings.chat_rate, settings.chat_burst)
        self.strikes = 0
        self.bound = False

    # -- frames --------------------------------------------------------------------------------

    def _error(self, code: str, message: str, **extra: Any) -> None:
        self.metrics.errors[code] += 1
        self.conn.send(error(code, message, **extra))

    def _strike(self) -> None:
        self.strikes += 1
        if self.strikes >= self.settings.max_strikes:
            self.conn.close_after_pending(CloseCode.POLICY, "too many bad messages")

    async def handle(self, frame: Frame) -> None:
        if self.conn.closing:
            return
        size = len(frame) if isinstance(frame, bytes) else len(frame.encode())
        if size > self.settings.max_frame:
            self._error(ErrorCode.TOO_BIG, f"Frames are limited to {self.settings.max_frame} bytes")
            self.conn.close_after_pending(CloseCode.TOO_BIG, "frame too big")
            return
        if not self.flood.take():
            self._error(ErrorCode.FLOOD, "Too many messages; slow down")
            self._strike()
            return
        try:
            raw = decode(frame, self.conn.fmt)
        except FrameError as exc:
            self._error(ErrorCode.BAD_FRAME, str(exc))
            self._strike()
            return
        kind = raw.get("type")
        if kind not in CLIENT_TYPES:
            self._error(ErrorCode.UNKNOWN_TYPE, f"Unknown message type {str(kind)[:40]!r}")
            self._strike()
            return
        try:
            message = client_message.validate_python(raw)
        except ValidationError as exc:
            self._error(ErrorCode.BAD_MESSAGE, f"Malformed {kind}: {readable(exc, 'message')}")
            return
        extra = {"seq": message.seq} if isinstance(message, Act) else {}
        try:
            await self.dispatch(message)
        except (ParlorError, RulesError) as exc:
            self._error(exc.code, exc.message, **extra)
            if exc.code == ErrorCode.NO_ROOM:
                self.conn.close_after_pending(CloseCode.NO_ROOM, "no such room")
        except StoreError as exc:
            log.warning("store error in %s: %s", self.code, exc)
            self._error(ErrorCode.UNAVAILABLE, "The room store is unavailable; retry", **extra)

    # -- messages ------------------------------------------------------------------------------

    def _seat_id(self) -> int:
        if not self.bound:
            raise RoomError(ErrorCode.NOT_JOINED, "Send join, resume or watch first")
        if self.conn.seat_id is None:
            raise RoomError(ErrorCode.NOT_JOINED, "Spectators cannot do that; join a seat")
        return self.conn.seat_id

    async def _change(self, command: Callable[[Room], commands.Change]) -> commands.Change:
        return await self.service.change(self.code, command)

    async def dispatch(self, message: ClientMessage) -> None:
        now = self.service.clock
        settings = self.settings
        if isinstance(message, Join | Resume | Watch):
            if self.bound:
                raise RoomError(ErrorCode.ALREADY_JOINED, "This connection is already in the room")
            await self._enter(message)
            return
        if isinstance(message, Sync):
            if not self.bound:
                raise RoomError(ErrorCode.NOT_JOINED, "Send join, resume or watch first")
            self.hub.resend(self.conn)
            return
        seat_id = self._seat_id()
        if isinstance(message, Act):
            await self._act(message, seat_id)
        elif isinstance(message, Chat):
            if not self.chat_limit.take():
                raise RoomError(ErrorCode.FLOOD, "You are chatting too fast")
            text = message.text
            await self._change(
                lambda r: commands.chat(
                    r, seat_id, text, now(), limit=settings.chat_max_len, keep=settings.chat_keep
                )
            )
        elif isinstance(message, Options):
            opts, timer = message.options, message.turn_timer
            span = (settings.min_turn_timer, settings.max_turn_timer)
            await self._change(
                lambda r: commands.configure(r, seat_id, opts, timer, now(), timer_range=span)
            )
        elif isinstance(message, AddBot):
            await self._change(lambda r: commands.add_bot(r, seat_id, now()))
        elif isinstance(message, Kick):
            target = message.id
            await self._change(lambda r: commands.kick(r, seat_id, target, now()))
        elif isinstance(message, GiveHost):
            target = message.id
            await self._change(lambda r: commands.give_host(r, seat_id, target, now()))
        elif isinstance(message, Lock):
            locked = message.locked
            await self._change(lambda r: commands.lock(r, seat_id, locked, now()))
        elif isinstance(message, Start | Rematch):
            await self._start(
                seat_id, Phase.LOBBY if isinstance(message, Start) else Phase.FINISHED
            )
        elif isinstance(message, Back):
            await self._change(lambda r: commands.back(r, seat_id, now()))
        elif isinstance(message, Leave):
            # Stop the fan-out first so this connection is not told its own seat was revoked.
            self.hub.detach(self.conn)
            await self._change(lambda r: commands.leave(r, seat_id, now()))
            self.conn.send({"type": "left"})
            self.conn.close_after_pending(CloseCode.NORMAL, "left the room")

    async def _enter(self, message: Join | Resume | Watch) -> None:
        now = self.service.clock
        if isinstance(message, Join):
            token = secrets.token_urlsafe(24)
            digest, name = hash_token(token), message.name
            change = await self._change(
                lambda r: commands.join(r, name, digest, now(), name_max=self.settings.name_max_len)
            )
            seat_id = change.seat_id
            room = change.room
            welcome: dict[str, Any] = {"token": token}
        elif isinstance(message, Resume):
            found = await self.service.get(self.code)
            if found is None:
                raise RoomError(ErrorCode.NO_ROOM, "This room does not exist or has expired")
            seat = found.seat_by_token(hash_token(message.token))
            if seat is None:
                raise RoomError(ErrorCode.BAD_TOKEN, "This token does not hold a seat here")
            room, seat_id, welcome = found, seat.id, {}
        else:
            found = await self.service.get(self.code)
            if found is None:
                raise RoomError(ErrorCode.NO_ROOM, "This room does not exist or has expired")
            room, seat_id, welcome = found, None, {}
        index = None if seat_id is None else room.index_of(seat_id)
        self.conn.seat_id = seat_id
        self.bound = True
        self.conn.send(
            {"type": "welcome", "code": self.code, "seat": index, "id": seat_id, **welcome}
        )
        await self.hub.attach(self.conn, self.code)
        if isinstance(message, Resume) and seat_id is not None:
            sid = seat_id
            await self._change(lambda r: commands.back(r, sid, now()))

    async def _act(self, message: Act, seat_id: int) -> None:
        started = time.perf_counter()
        if message.seat is not None:
            room = self.service.cached(self.code)
            if room is None or room.index_of(seat_id) != message.seat:
                raise RoomError(ErrorCode.NOT_YOUR_SEAT, "You can only act for your own seat")
        seq, action, now = message.seq, message.action, self.service.clock
        change = await self._change(lambda r: commands.act(r, seat_id, seq, action, now()))
        duplicate = change.entry is None
        self.conn.send(
            {"type": "ack", "seq": seq, "version": change.room.version, "duplicate": duplicate}
        )
        if not duplicate:
            self.metrics.actions += 1
            self.metrics.action_latency.observe(time.perf_counter() - started)

    async def _start(self, seat_id: int, phase: Phase) -> None:
        seed, now = self.service.new_seed(), self.service.clock

        def start(room: Room) -> commands.Change:
            if room.host != seat_id:
                raise RoomError(ErrorCode.NOT_HOST, "Only the host can do that")
            if room.phase is not phase:
                what = "start" if phase is Phase.LOBBY else "rematch"
                raise RoomError(ErrorCode.WRONG_PHASE, f"Cannot {what} while {room.phase.value}")
            return commands.start(room, seat_id, seed, now())

        await self._change(start)

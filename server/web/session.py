"""One WebSocket client's conversation: frames in, commands to the service, answers out.

The session owns the per-connection limits (frame size, flood and chat buckets, strikes) and
turns every refusal into an error message for the sender only. Nothing here touches the room
except through :class:`~server.runtime.service.RoomService`.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from rules.contract import readable
from rules.errors import RulesError
from server.errors import ErrorCode, ParlorError, RoomError
from server.ops.config import Settings
from server.ops.metrics import Metrics
from server.rooms import commands
from server.runtime.hub import Hub
from server.runtime.service import RoomService
from server.stores.store import StoreError
from server.transport.clientlog import client
from server.transport.connections import Connection
from server.transport.protocol import (
    CLIENT_TYPES,
    Act,
    Chat,
    ClientMessage,
    CloseCode,
    Commit,
    Handoff,
    Join,
    Leave,
    Ping,
    Rematch,
    Resume,
    Reveal,
    Sequenced,
    Start,
    Sync,
    Watch,
    client_message,
    error,
)
from server.transport.throttle import TokenBucket
from server.transport.wire import Frame, FrameError, decode
from server.web import dispatch

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
        peer: str = "?",
        limit_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.conn = conn
        #: The client's address (for the log).
        self.peer = peer
        self.code = code
        self.service = service
        self.hub = hub
        self.settings = settings
        self.metrics = metrics
        self.flood = TokenBucket(settings.flood_rate, settings.flood_burst, limit_clock)
        self.chat_limit = TokenBucket(settings.chat_rate, settings.chat_burst, limit_clock)
        self.strikes = 0
        self.bound = False

    # -- frames --------------------------------------------------------------------------------

    def _error(self, code: str, message: str, **extra: Any) -> None:
        self.metrics.errors[code] += 1
        self.conn.send(error(code, message, **extra))

    def _refuse(
        self, code: str, message: str, close: tuple[CloseCode, str] | None = None, **extra: Any
    ) -> None:
        """A frame no correct client sends: answered, logged in one line (it is the client's
        fault, not ours: no traceback), and counted as a strike. ``close``: the refusal closes
        the connection itself, with this code (and not 1008, even as the last strike)."""
        self._error(code, message, **extra)
        log.info(
            "refused %s from %s (room %s): %s",
            code,
            self.peer,
            self.code or "-",
            message,
            extra=client(self.peer),
        )
        self.strikes += 1
        if close is not None:
            self.conn.close_after_pending(*close)
        elif self.strikes >= self.settings.max_strikes:
            log.info(
                "closing the connection of %s: %d refused frames",
                self.peer,
                self.strikes,
                extra=client(self.peer),
            )
            self.conn.close_after_pending(CloseCode.POLICY, "too many bad messages")

    def join_timed_out(self) -> None:
        """Nothing bound this connection in time (``join_timeout``): it is closed, with "try
        again later" rather than a policy close, since a well-behaved client gets here too
        when its entry was answered ``unavailable``; it reconnects and enters again."""
        self._error(
            ErrorCode.JOIN_TIMEOUT,
            f"No join, resume or watch within {self.settings.join_timeout:g} s of connecting: "
            "reconnect and send one at once",
        )
        self.conn.close_after_pending(CloseCode.TRY_AGAIN, "no join in time")

    async def handle(self, frame: Frame) -> None:
        if self.conn.closing:
            return
        size = len(frame) if isinstance(frame, bytes) else len(frame.encode(errors="replace"))
        if size > self.settings.max_frame:
            self._refuse(
                ErrorCode.TOO_BIG,
                f"Frames are limited to {self.settings.max_frame} bytes",
                close=(CloseCode.TOO_BIG, "frame too big"),
            )
            return
        try:
            raw = decode(frame, self.conn.fmt)
        except FrameError as exc:
            self._refuse(ErrorCode.BAD_FRAME, str(exc))
            return
        # Every refusal of a sequenced command names its seq, so a client can match it.
        seq = raw.get("seq")
        extra: dict[str, Any] = {"seq": seq} if type(seq) is int else {}
        if not self.flood.take():
            self._refuse(ErrorCode.FLOOD, "Too many messages; slow down", **extra)
            return
        kind = raw.get("type")
        if not isinstance(kind, str) or kind not in CLIENT_TYPES:
            shown = kind[:40] if isinstance(kind, str) else type(kind).__name__
            text = "The message has no type" if kind is None else f"Unknown message type {shown!r}"
            self._refuse(ErrorCode.UNKNOWN_TYPE, text, **extra)
            return
        try:
            message = client_message.validate_python(raw)
        except ValidationError as exc:
            self._refuse(
                ErrorCode.BAD_MESSAGE, f"Malformed {kind}: {readable(exc, 'message')}", **extra
            )
            return
        try:
            await self.dispatch(message)
        except (ParlorError, RulesError) as exc:
            extra_fields = getattr(exc, "extra", {})
            self._error(exc.code, exc.message, **extra, **extra_fields)
            if exc.code == ErrorCode.NO_ROOM:
                self.conn.close_after_pending(CloseCode.NO_ROOM, "no such room")
        except StoreError as exc:
            log.warning("store error in %s: %s", self.code, exc, extra=client(self.peer))
            if isinstance(message, Sequenced | Join):
                text = (
                    "The room store is unavailable: this may or may not have been applied; "
                    "resend it unchanged (same seq or key) to find out"
                )
            else:
                text = "The room store is unavailable; send it again shortly"
            self._error(ErrorCode.UNAVAILABLE, text, **extra)

    # -- messages ------------------------------------------------------------------------------

    def _seat_id(self) -> int:
        if not self.bound:
            raise RoomError(ErrorCode.NOT_JOINED, "Send join, resume or watch first")
        if self.conn.seat_id is None:
            raise RoomError(ErrorCode.NOT_JOINED, "Spectators cannot do that; join a seat")
        return self.conn.seat_id

    async def dispatch(self, message: ClientMessage) -> None:
        if isinstance(message, Ping):
            self.conn.send({"type": "pong"})
        elif isinstance(message, Join | Resume | Watch):
            if self.bound:
                raise RoomError(ErrorCode.ALREADY_JOINED, "This connection is already in the room")
            await self._enter(message)
        elif isinstance(message, Sync):
            if not self.bound:
                raise RoomError(ErrorCode.NOT_JOINED, "Send join, resume or watch first")
            # Read the room here, not only in the hub's background reload: a store that does
            # not answer is then answered (unavailable) instead of leaving the sync unanswered.
            if await self.service.get(self.code) is None:
                raise RoomError(ErrorCode.NO_ROOM, "This room does not exist or has expired")
            self.hub.resend(self.conn)
        else:
            await self._command(message, self._seat_id())

    async def _command(self, message: Sequenced, seat_id: int) -> None:
        """Every seated command: one pure function from ``dispatch.SEATED``, exactly once."""
        started = time.perf_counter()
        if isinstance(message, Act) and message.seat is not None:
            room = self.service.cached(self.code)
            if room is None or room.index_of(seat_id) != message.seat:
                raise RoomError(ErrorCode.NOT_YOUR_SEAT, "You can only act for your own seat")
        if isinstance(message, Chat) and not self.chat_limit.take():
            raise RoomError(ErrorCode.FLOOD, "You are chatting too fast")
        if isinstance(message, Leave):
            # Stop the fan-out first so this connection is not told its own seat was revoked.
            self.hub.detach(self.conn)
        # Randomness for the commands that may deal (a reveal or a commit can complete a deal).
        dealing = isinstance(message, Start | Rematch | Commit | Reveal | Leave)
        ctx = self.service.context(fresh=dealing)
        try:
            token_hash = self.conn.token_hash
            change = await self.service.change(
                self.code, lambda r: dispatch.seated(r, seat_id, message, ctx, token_hash)
            )
        except (ParlorError, RulesError, StoreError):
            if isinstance(message, Leave):
                await self.hub.attach(self.conn, self.code)  # still seated: keep it informed
            raise
        ack: dict[str, Any] = {
            "type": "ack",
            "seq": message.seq,
            "version": change.result_version,
            "duplicate": change.duplicate,
        }
        if isinstance(message, Handoff):
            # The code, made again from the room (a resent command shows the same one).
            index = change.room.index_of(seat_id)
            seat = None if index is None else change.room.seats[index]
            ack["handoff"] = {
                "code": dispatch.handoff_code(change.room, seat_id, message.seq),
                "until": 0.0 if seat is None else seat.handoff_until,
            }
        self.conn.send(ack)
        if isinstance(message, Leave):
            self.conn.send({"type": "left"})
            self.conn.close_after_pending(CloseCode.NORMAL, "left the room")
        if isinstance(message, Act) and not change.duplicate:
            self.metrics.actions += 1
            self.metrics.action_latency.observe(time.perf_counter() - started)

    async def _enter(self, message: Join | Resume | Watch) -> None:
        if isinstance(message, Join):
            name, key, name_max = message.name, message.key, self.settings.name_max_len
            now = self.service.clock
            change = await self.service.change(
                self.code,
                lambda r: commands.join(
                    r, name, hash_token(commands.seat_token(r, key)), now(), name_max=name_max
                ),
            )
            seat_id, room = change.seat_id, change.room
            token = commands.seat_token(room, key)
            welcome: dict[str, Any] = {"token": token}
            self.conn.token_hash = hash_token(token)
        else:
            found = await self.service.get(self.code)
            if found is None:
                raise RoomError(ErrorCode.NO_ROOM, "This room does not exist or has expired")
            room, seat_id, welcome = found, None, {}
            if isinstance(message, Resume):
                seat = found.seat_by_token(hash_token(message.token))
                if seat is None:
                    raise RoomError(ErrorCode.BAD_TOKEN, "This token does not hold a seat here")
                seat_id = seat.id
                self.conn.token_hash = seat.token_hash
        index = None if seat_id is None else room.index_of(seat_id)
        self.conn.seat_id = seat_id
        self.bound = True
        self.conn.send(
            {"type": "welcome", "code": self.code, "seat": index, "id": seat_id, **welcome}
        )
        await self.hub.attach(self.conn, self.code)
        if isinstance(message, Resume) and seat_id is not None:
            sid, now = seat_id, self.service.clock
            await self.service.change(self.code, lambda r: commands.back(r, sid, now()))

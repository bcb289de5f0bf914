"""One client connection's outgoing side: a bounded send queue drained by its own writer task.

Fan-out only ever calls :meth:`Connection.push`, which never waits: a connection whose queue is
full is closed (code 1013) rather than allowed to slow anyone else down. The client reconnects
and, since every state message is a full snapshot, loses nothing by the dropped frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from server.protocol import CloseCode
from server.wire import Format, Frame, encode

log = logging.getLogger(__name__)

SendFn = Callable[[Frame], Awaitable[None]]
CloseFn = Callable[[int, str], Awaitable[None]]

#: How long to wait for a close to be handed to the transport. It never waits for the peer
#: (server.serving writes it at once, and resets a peer that does not finish closing).
CLOSE_TIMEOUT = 2.0


class _Close:
    __slots__ = ("code", "reason")

    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason


class Connection:
    def __init__(self, send: SendFn, close: CloseFn, fmt: Format, queue_size: int) -> None:
        self.fmt = fmt
        self._send = send
        self._close = close
        self._queue: asyncio.Queue[Frame | _Close] = asyncio.Queue(maxsize=queue_size)
        self._writer: asyncio.Task[None] | None = None
        self.closing = False
        self.overflowed = False
        # What this connection is bound to (set by the session, read by the hub).
        self.code: str | None = None
        self.seat_id: int | None = None
        # What it was last sent, so fan-out never sends an older or identical snapshot.
        self.sent_version = 0
        self.sent_presence: frozenset[int] | None = None
        self.sent_chat = -1

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write())

    def push(self, frame: Frame) -> bool:
        """Queue a frame without waiting; a full queue closes the connection."""
        if self.closing:
            return False
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.overflowed = True
            self._abort(CloseCode.TRY_AGAIN, "too slow: reconnect to resync")
            return False
        return True

    def send(self, message: dict[str, Any]) -> bool:
        return self.push(encode(message, self.fmt))

    def close_after_pending(self, code: int, reason: str) -> None:
        """Close once the frames already queued (e.g. an error message) are written."""
        if self.closing:
            return
        try:
            self._queue.put_nowait(_Close(code, reason))
            self.closing = True
        except asyncio.QueueFull:
            self._abort(code, reason)

    def _abort(self, code: int, reason: str) -> None:
        self.closing = True
        if self._writer is not None:
            self._writer.cancel()
        asyncio.get_running_loop().create_task(self._close_now(code, reason))

    async def _close_now(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._close(code, reason), CLOSE_TIMEOUT)

    async def _write(self) -> None:
        try:
            while True:
                item = await self._queue.get()
                if isinstance(item, _Close):
                    await self._close_now(item.code, item.reason)
                    return
                await self._send(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the peer went away mid-send; the reader will notice
            log.debug("writer stopped: %r", exc)
            self.closing = True

    async def stop(self) -> None:
        self.closing = True
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer

"""One client connection's outgoing side: frames written straight to its socket, and a bounded
backlog only while the peer is not reading.

Fan-out only ever calls :meth:`Connection.push`, which never waits. While the socket takes
writes, a frame is written at once, synchronously: no queue, task or coroutine per frame. When
the peer stops reading and the transport's buffer passes its high-water mark, frames wait in a
backlog of at most ``queue_size``; one more closes the connection (code 1013) rather than let
it slow anyone else down or hold memory. The client reconnects and, since every state message
is a full snapshot, loses nothing by the dropped frames.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from server.transport.protocol import CloseCode
from server.transport.wire import Format, Frame, encode

log = logging.getLogger(__name__)


class Socket(Protocol):
    """What a connection needs of its WebSocket (``server.transport.serving.WebSocketProtocol``)."""

    def send_frame(self, frame: Frame, *, force: bool = False) -> bool:
        """Write one message now; False (nothing written) while paused, unless ``force``."""

    def when_writable(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once, as soon as writes are taken again (or the socket is gone)."""

    def close_frame(self, code: int, reason: str) -> None:
        """Begin the closing handshake now, behind what is already written."""


class Connection:
    __slots__ = (
        "_backlog",
        "_limit",
        "_socket",
        "closing",
        "code",
        "fmt",
        "overflowed",
        "seat_id",
        "sent_chat",
        "sent_presence",
        "sent_version",
        "token_hash",
    )

    def __init__(self, socket: Socket, fmt: Format, queue_size: int) -> None:
        self.fmt = fmt
        self._socket = socket
        self._limit = queue_size
        #: Frames waiting for the peer to read; None when nothing waits, which is nearly
        #: always.
        self._backlog: deque[Frame] | None = None
        self.closing = False
        self.overflowed = False
        # What this connection is bound to (set by the session, read by the hub).
        self.code: str | None = None
        self.seat_id: int | None = None
        #: The hash of the seat token it was bound with: a seat moved to another device
        #: (another token) is no longer this connection's.
        self.token_hash: str | None = None
        # What it was last sent, so fan-out never sends an older or identical snapshot.
        self.sent_version = 0
        self.sent_presence: frozenset[int] | None = None
        self.sent_chat = -1

    def push(self, frame: Frame) -> bool:
        """Write a frame, or keep it while the peer is not reading; a full backlog closes the
        connection. False if the frame will never be sent."""
        if self.closing:
            return False
        backlog = self._backlog
        if backlog is None:
            if self._socket.send_frame(frame):
                return True
            backlog = self._backlog = deque()
            self._socket.when_writable(self._drain)
        elif len(backlog) >= self._limit:
            self.overflowed = True
            self._abort(CloseCode.TRY_AGAIN, "too slow: reconnect to resync")
            return False
        backlog.append(frame)
        return True

    def send(self, message: dict[str, Any]) -> bool:
        return self.push(encode(message, self.fmt))

    @property
    def backlog(self) -> int:
        """How many frames wait for the peer to read."""
        return 0 if self._backlog is None else len(self._backlog)

    def close_after_pending(self, code: int, reason: str) -> None:
        """Close once the frames already pushed (e.g. an error message) are written.

        A waiting backlog (at most ``queue_size`` frames) is handed to the transport at once
        with the close behind it, so a peer that stopped reading is not waited for: the socket
        resets it if it does not finish closing in time."""
        if self.closing:
            return
        self.closing = True
        backlog, self._backlog = self._backlog, None
        for frame in backlog or ():
            self._socket.send_frame(frame, force=True)
        self._socket.close_frame(code, reason)

    def _abort(self, code: int, reason: str) -> None:
        """Close now, dropping whatever waits."""
        self.closing = True
        self._backlog = None
        self._socket.close_frame(code, reason)

    def _drain(self) -> None:
        backlog = self._backlog
        while backlog:
            if not self._socket.send_frame(backlog[0]):
                self._socket.when_writable(self._drain)
                return
            backlog.popleft()
        if backlog is self._backlog:
            self._backlog = None

    def stop(self) -> None:
        """The connection is over: nothing more is sent."""
        self.closing = True
        self._backlog = None

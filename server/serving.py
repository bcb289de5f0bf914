"""How an instance runs under uvicorn: its options, and two protocol classes that bound what
uvicorn leaves unbounded.

uvicorn ends a connection with ``transport.close()``, which waits until everything buffered
has been written. A peer that stops reading therefore keeps its socket, and the megabytes the
kernel buffers for it, for as long as it likes, and a graceful shutdown waits for it forever.
Nor does uvicorn time out a connection that never sends a complete request. So:

- WebSockets run on uvicorn's sans-I/O ``websockets`` implementation, picked explicitly, with
  one addition: whenever a connection is closing (the app, the peer, a keepalive timeout or
  shutdown closed it), it gets ``close_timeout`` to finish, and is then reset. A close the app
  sends while the peer is not reading is written at once, behind what is already buffered (a
  slow peer that catches up in time still reads its close code), instead of waiting forever.
- HTTP runs on uvicorn's ``httptools`` implementation, with a deadline for the request head:
  a connection that has not sent a complete request line and headers ``header_timeout`` after
  connecting (or after beginning its next request) is reset.

A reset is an abort with ``SO_LINGER`` 0: the kernel drops the buffers and sends RST at once,
where a plain close would keep sending what the peer does not read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from typing import Any, ClassVar

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server.config import Settings

log = logging.getLogger(__name__)

#: The WebSocket layer's own limit on a message. Far above the protocol's (``max_frame``, which
#: is answered with ``too_big``): only what is too big to be worth reading is cut off here,
#: with a bare 1009.
WS_MAX_SIZE = 2**20


def reset(transport: asyncio.Transport) -> None:
    """Abort the connection and have the kernel drop its buffers (RST, no lingering)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol; a connection that is closing is reset after
    ``close_timeout`` unless it closed by then."""

    close_timeout_s: ClassVar[float] = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn's own timer for a close handshake (it then calls transport.close()).
        self.close_timeout = self.close_timeout_s
        self._reset_timer: asyncio.TimerHandle | None = None

    def _reset_if_closing(self) -> None:
        if self.disconnected or self._reset_timer is not None:
            return
        if self.close_sent or self.transport.is_closing():
            self._reset_timer = self.loop.call_later(self.close_timeout_s, self._reset)

    def _reset(self) -> None:
        self._reset_timer = None
        if not self.disconnected:
            log.info("reset a WebSocket that did not finish closing: %s", self.client)
            reset(self.transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._reset_timer is not None:
            self._reset_timer.cancel()
            self._reset_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._reset_if_closing()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        self._reset_if_closing()

    def shutdown(self) -> None:
        super().shutdown()
        self._reset_if_closing()

    async def run_asgi(self) -> None:
        await super().run_asgi()
        self._reset_if_closing()

    async def send(self, message: ASGISendEvent) -> None:
        if message["type"] == "websocket.close" and self._open() and not self.writable.is_set():
            self._close_now(message.get("code", 1000), message.get("reason") or "")
        else:
            await super().send(message)
        self._reset_if_closing()

    def _open(self) -> bool:
        return self.handshake_complete and self.initial_response is None and not self.close_sent

    def _close_now(self, code: int, reason: str) -> None:
        """What uvicorn does for ``websocket.close``, without first waiting for the peer to
        read everything already buffered (which a peer that stopped reading never does)."""
        if self.disconnected:
            raise ClientDisconnected()
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools HTTP protocol with a deadline for each request's head."""

    header_timeout: ClassVar[float] = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._await_head()

    def on_headers_complete(self) -> None:
        self._head_arrived()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_late)

    def _head_arrived(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            log.info("reset an HTTP connection that sent no request head in time: %s", self.client)
            reset(self.transport)


def _configured(base: type[Any], **attributes: Any) -> type[Any]:
    return type(base.__name__, (base,), {"__module__": __name__, **attributes})


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn options every instance runs with (the CLI adds address and logging)."""
    return {
        "http": _configured(HttpProtocol, header_timeout=settings.header_timeout),
        "ws": _configured(WebSocketProtocol, close_timeout_s=settings.close_timeout),
        "ws_max_size": max(WS_MAX_SIZE, 4 * settings.max_frame),
        # Compression costs ~100 KB per connection, and frames are small: off.
        "ws_per_message_deflate": False,
        "timeout_graceful_shutdown": settings.shutdown_timeout,
        # The server's half of the heartbeat: a protocol ping every ws_ping_interval, and a
        # connection whose peer does not answer within ws_ping_timeout is closed (a phone
        # that lost its network silently). Browsers answer pings by themselves.
        "ws_ping_interval": settings.ws_ping_interval,
        "ws_ping_timeout": settings.ws_ping_timeout,
    }

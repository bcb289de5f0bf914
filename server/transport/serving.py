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

Once a room connection is accepted, Parlor talks to its protocol object directly (it is in the
ASGI scope under ``extensions["parlor.socket"]``) instead of through ASGI messages: a state
frame is one synchronous write to the transport (:meth:`WebSocketProtocol.send_frame`), with
no coroutine layers, queue or writer task per frame, and what a connection holds while idle is
kept small (see docs/benchmarks.md, "Memory per connection").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import Callable
from typing import Any, ClassVar

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import OPEN, Protocol

from server.ops.config import Settings
from server.transport.clientlog import client
from server.transport.protocol import CloseCode

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


#: Where the ASGI scope of an accepted-to-be WebSocket carries its protocol object.
SOCKET_EXTENSION = "parlor.socket"


class _Inbox:
    """What uvicorn uses of an ``asyncio.Queue`` for received events, without its four deques
    and their 64-slot blocks (3 KiB per idle connection): a list and, while the app waits, one
    future."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    async def get(self) -> Any:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


def _header(opcode: int, size: int) -> bytes:
    """The head of one unmasked, unfragmented frame (RFC 6455 section 5.2), as a server sends."""
    if size < 126:
        return bytes((0x80 | opcode, size))
    if size < 1 << 16:
        return struct.pack("!BBH", 0x80 | opcode, 126, size)
    return struct.pack("!BBQ", 0x80 | opcode, 127, size)


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol; a connection that is closing is reset after
    ``close_timeout`` unless it closed by then. Once accepted, the app sends frames and closes
    through :meth:`send_frame`, :meth:`when_writable` and :meth:`close_frame`, synchronously."""

    close_timeout_s: ClassVar[float] = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn's own timer for a close handshake (it then calls transport.close()).
        self.close_timeout = self.close_timeout_s
        self._reset_timer: asyncio.TimerHandle | None = None
        self.queue = _Inbox()  # type: ignore[assignment]
        self._on_writable: Callable[[], None] | None = None

    # -- the direct interface (server.transport.connections.Socket) --------------------------------

    def send_frame(self, frame: bytes | str, *, force: bool = False) -> bool:
        """Write one message now. False (nothing written) if the transport is paused because
        the peer is not reading, unless ``force``; True once written, or if the connection is
        past sending (the frame is dropped: the app hears of the close from :meth:`receive`)."""
        if not force and not self.writable.is_set():
            return False
        conn = self.conn
        if self.close_sent or self.disconnected or conn.state is not OPEN:
            return True
        data = frame.encode() if isinstance(frame, str) else frame
        if conn.extensions:  # never today: compression is off (uvicorn_options)
            if isinstance(frame, str):
                conn.send_text(data)
            else:
                conn.send_binary(data)
            self.transport.write(b"".join(conn.data_to_send()))
        else:
            self.transport.write(_header(1 if isinstance(frame, str) else 2, len(data)) + data)
        return True

    def when_writable(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once, when the transport takes writes again (or is lost)."""
        if self.writable.is_set() or self.disconnected:
            self.loop.call_soon(callback)
        else:
            self._on_writable = callback

    def close_frame(self, code: int, reason: str) -> None:
        """Start the closing handshake now, behind whatever is already written; the peer gets
        ``close_timeout`` to finish it before the connection is reset."""
        if self.disconnected or self.close_sent or self.conn.state is not OPEN:
            return
        writable = self.writable.is_set()
        self._close_now(code, reason)
        if writable:
            # As uvicorn does for an ASGI close: transport.close() if the peer never answers.
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)
        self._reset_if_closing()

    # -- receiving: read on while a few messages wait -----------------------------------------

    #: Messages that may wait for the app before the socket stops being read. uvicorn pauses
    #: reading after every message and resumes it when the app takes it: two event-loop
    #: calls (epoll changes) per message, for a client that sends one message at a time.
    inbox_limit: ClassVar[int] = 16

    def send_receive_event_to_app(self) -> None:
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return  # as uvicorn: discarded, reads stay on until the peer's close reply
        if self.curr_msg_data_type == "text":
            try:
                self.queue.put_nowait({"type": "websocket.receive", "text": data.decode()})
            except UnicodeDecodeError:
                self.logger.info(
                    "Invalid UTF-8 in a text frame from %s",
                    self.client,
                    extra=client(self.client),
                )
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
        else:
            self.queue.put_nowait({"type": "websocket.receive", "bytes": data})
        if not self.read_paused and self.queue.qsize() >= self.inbox_limit:
            self.read_paused = True
            self.transport.pause_reading()

    async def receive(self) -> ASGIReceiveEvent:
        message = await self.queue.get()
        if self.read_paused and self.queue.qsize() < self.inbox_limit // 2:
            self.read_paused = False
            self.transport.resume_reading()
        return message

    def resume_writing(self) -> None:
        super().resume_writing()
        self._writable_again()

    def _writable_again(self) -> None:
        callback, self._on_writable = self._on_writable, None
        if callback is not None:
            callback()

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        if self.handshake_initiated and not self.handshake_complete:
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[SOCKET_EXTENSION] = self

    def _let_go_of_handshake(self) -> None:
        """Drop what only the opening handshake needed (its request and response, the
        request's headers in the scope and in the parser), about 4 KiB per connection."""
        self.request = None  # type: ignore[assignment]
        self.response = None  # type: ignore[assignment]
        self.scope["headers"] = []
        extensions: dict[str, Any] = self.scope["extensions"]
        extensions.pop(SOCKET_EXTENSION, None)
        conn = self.conn
        # (A client that sent part of a frame before our 101, which no conforming client
        # does, may have its header consumed with the buffer then empty: restarting the
        # parser then fails that one connection with 1002.)
        if conn.state is OPEN and not conn.reader.buffer:
            # websockets' server parser keeps the parsed Request in its generator frame for
            # the life of the connection; the frame parser it goes on to is started afresh.
            conn.parser = Protocol.parse(conn)
            next(conn.parser)

    def _reset_if_closing(self) -> None:
        if self.disconnected or self._reset_timer is not None:
            return
        if self.close_sent or self.transport.is_closing():
            self._reset_timer = self.loop.call_later(self.close_timeout_s, self._reset)

    def _reset(self) -> None:
        self._reset_timer = None
        if not self.disconnected:
            log.info(
                "reset a WebSocket that did not finish closing: %s",
                self.client,
                extra=client(self.client),
            )
            reset(self.transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._reset_timer is not None:
            self._reset_timer.cancel()
            self._reset_timer = None
        super().connection_lost(exc)
        self._writable_again()
        scope: Any = getattr(self, "scope", None)
        if scope is not None:  # one refused before accept still holds itself through its scope
            scope["extensions"].pop(SOCKET_EXTENSION, None)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._reset_if_closing()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        self._reset_if_closing()

    def shutdown(self) -> None:
        """The instance is draining: close with 1012 "service restart" (uvicorn sends the code
        without its reason), then as uvicorn does."""
        if self._open() and not self.disconnected and self.conn.state is OPEN:
            self._close_now(CloseCode.SERVICE_RESTART, "service restart")
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
            if message["type"] == "websocket.accept" and self.handshake_complete:
                self._let_go_of_handshake()
            elif message["type"] == "websocket.http.response.body" and not message.get(
                "more_body", False
            ):
                # A refusal sent as an HTTP response (429 at the per-address cap) answers the
                # handshake; uvicorn does not count it so, and would log an ERROR ("returned
                # without completing handshake") for every refused client: a log anyone
                # could flood (docs/architecture.md, "Logging").
                self.handshake_complete = True
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
            log.info(
                "reset an HTTP connection that sent no request head in time: %s",
                self.client,
                extra=client(self.client),
            )
            reset(self.transport)


def _configured(base: type[Any], **attributes: Any) -> type[Any]:
    return type(base.__name__, (base,), {"__module__": __name__, **attributes})


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn options every instance runs with (the CLI adds address and logging): with
    ``plain_asgi``, on uvicorn's own protocols (the app then speaks plain ASGI to its sockets,
    :mod:`server.transport.asgi_socket`)."""
    protocols: dict[str, Any] = {
        "http": _configured(HttpProtocol, header_timeout=settings.header_timeout),
        "ws": _configured(WebSocketProtocol, close_timeout_s=settings.close_timeout),
    }
    if settings.plain_asgi:
        protocols = {"http": "httptools", "ws": "websockets-sansio"}
    return {
        **protocols,
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

"""A room WebSocket spoken to through plain ASGI messages: Parlor on any ASGI server.

Under ``parlor serve`` a room socket is served by :class:`server.transport.serving.
WebSocketProtocol`, which a connection writes frames to directly. Under another ASGI server
(or uvicorn's own protocols, ``PARLOR_PLAIN_ASGI``) the app finds no such object in the scope
and speaks to the socket through this: the same interface (:class:`server.transport.
connections.Socket`), each frame handed to the server as a ``websocket.send`` message by one
writer task. While ``window`` frames wait for the server to take them, the socket counts as
not taking writes, and the connection keeps its own bounded backlog, as it does when a peer
stops reading.

What plain ASGI cannot give: the bounds serving.py adds to uvicorn (a closing connection reset
after ``close_timeout``, a deadline for a request head, reading on while a few messages wait).
The server in front then decides those.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from starlette.types import Message, Receive, Send

from server.transport.wire import Frame


class AsgiSocket:
    def __init__(self, receive: Receive, send: Send, window: int = 16) -> None:
        self._receive = receive
        self._send = send
        self._window = window
        self._out: deque[Message] = deque()
        self._writer: asyncio.Task[None] | None = None
        self._on_writable: Callable[[], None] | None = None
        #: A close was queued, or the server refused a send (the socket is gone).
        self._closing = False
        self._gone = False

    async def receive(self) -> Message:
        return await self._receive()

    def send_frame(self, frame: Frame, *, force: bool = False) -> bool:
        if self._gone or self._closing:
            return True  # dropped: the app hears of the close from receive()
        if not force and len(self._out) >= self._window:
            return False
        if isinstance(frame, str):
            self._out.append({"type": "websocket.send", "text": frame})
        else:
            self._out.append({"type": "websocket.send", "bytes": bytes(frame)})
        self._write_soon()
        return True

    def when_writable(self, callback: Callable[[], None]) -> None:
        if self._gone or len(self._out) < self._window:
            asyncio.get_running_loop().call_soon(callback)
        else:
            self._on_writable = callback

    def close_frame(self, code: int, reason: str) -> None:
        if self._gone or self._closing:
            return
        self._closing = True
        self._out.append({"type": "websocket.close", "code": code, "reason": reason})
        self._write_soon()

    def _write_soon(self) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        try:
            while self._out:
                message = self._out.popleft()
                try:
                    await self._send(message)
                except Exception:  # the socket is gone (a disconnect, a server's refusal)
                    self._gone = True
                    self._out.clear()
                if self._on_writable is not None and (self._gone or len(self._out) < self._window):
                    callback, self._on_writable = self._on_writable, None
                    callback()
        finally:
            self._writer = None

"""``parlor serve`` as a child process with any settings, and a WebSocket client over a plain
socket that can stop reading.

``parlor_serve`` is the real command in a child process (the in-process ``harness.serve``
runs uvicorn with the same options). ``RawWebSocket`` speaks the protocol through the
``websockets`` sans-I/O client, so the test decides when (and whether) the socket is read: a
client that stops reading fills the server's send buffers as a stalled phone does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from rules.codec import pack, unpack
from tests.processes import Process, free_port, http_ok
from tests.server.harness import ROOT

#: Linux's TCP states (include/net/tcp_states.h), as TCP_INFO reports them.
TCP_CLOSE = 7


@contextlib.contextmanager
def parlor_serve(**settings: Any) -> Iterator[tuple[Process, int]]:
    """``parlor serve`` (embedded store, the toy game registered) with ``settings`` applied
    over those it reads from the environment."""
    port = free_port()
    # Applied inside the child over Settings.from_env, so any field can be set.
    boot = (
        "import json, os; from server.ops import config; "
        "read = config.Settings.from_env; "
        "config.Settings.from_env = classmethod(lambda cls, env=None: "
        "read(env).model_copy(update=json.loads(os.environ['TEST_SETTINGS']))); "
        "from rules.registry import register; from tests.server.toygame import ToyGame; "
        "register(ToyGame()); from server.cli import main; main(['serve'])"
    )
    env = {"PARLOR_PORT": str(port), "REDIS_URL": "", "TEST_SETTINGS": json.dumps(settings)}
    with tempfile.TemporaryDirectory() as tmp:
        server = Process(
            [sys.executable, "-c", boot],
            ready=http_ok(port),
            log=Path(tmp) / "serve.log",
            name="parlor serve",
            env=env,
            cwd=ROOT,
        )
        with server:
            yield server, port


class RawWebSocket:
    """A msgpack WebSocket client on a non-blocking socket that reads only when asked."""

    def __init__(self, sock: socket.socket, protocol: ClientProtocol) -> None:
        self.sock = sock
        self.protocol = protocol
        self.messages: list[dict[str, Any]] = []
        self.close: Close | None = None

    @classmethod
    async def open(cls, base: str, path: str, *, rcvbuf: int | None = None) -> RawWebSocket:
        uri = parse_uri(f"{base}{path}")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            # Before connecting, so the window the server is offered is small from the start.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (uri.host, uri.port))
        protocol = ClientProtocol(uri)
        protocol.send_request(protocol.connect())
        client = cls(sock, protocol)
        await client._flush()
        while not any(isinstance(e, Response) for e in await client._read()):
            pass
        if protocol.handshake_exc is not None:
            raise protocol.handshake_exc
        return client

    async def _flush(self) -> None:
        data = b"".join(self.protocol.data_to_send())
        if data:
            await asyncio.get_running_loop().sock_sendall(self.sock, data)

    async def _read(self, size: int = 65536) -> list[Any]:
        data = await asyncio.get_running_loop().sock_recv(self.sock, size)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        events = self.protocol.events_received()
        for event in events:
            if isinstance(event, Frame) and event.opcode is Opcode.BINARY:
                self.messages.append(unpack(event.data))
            elif isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                self.close = Close.parse(event.data)
        if not data:
            raise EOFError("the server closed the connection")
        return events

    async def send(self, message: dict[str, Any]) -> None:
        self.protocol.send_binary(pack(message))
        await self._flush()

    async def expect(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        """Read until a message of type ``kind`` arrives; return it."""
        async with asyncio.timeout(timeout):
            while True:
                for i, message in enumerate(self.messages):
                    if message["type"] == kind:
                        del self.messages[: i + 1]
                        return message
                await self._read()

    async def read_to_close(self, timeout: float = 10.0, pace: float = 0.0) -> Close:
        """Read everything the server sent until its close frame; return that frame. With a
        ``pace``, read as a slow link does: 4 KiB, then a pause of ``pace`` seconds."""
        async with asyncio.timeout(timeout):
            while self.close is None:
                if pace:
                    await self._read(4096)
                    await asyncio.sleep(pace)
                else:
                    await self._read()
        return self.close

    async def wait_reset(self, timeout: float = 10.0) -> None:
        """Wait, without reading, until the server has reset the connection: the socket is
        then in state CLOSE (a close that kept the buffers would leave it ESTABLISHED, as a FIN
        queued behind unread data cannot be delivered)."""
        poll = select.poll()
        # Only hang-up and error events: the socket is readable all along (unread data).
        poll.register(self.sock, select.POLLRDHUP)
        loop = asyncio.get_running_loop()
        events = await loop.run_in_executor(None, poll.poll, timeout * 1000)
        assert events, f"the server did not reset the connection within {timeout} s"
        state = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
        assert state == TCP_CLOSE, f"TCP state {state}: closed without a reset"

    def shut(self) -> None:
        self.sock.close()

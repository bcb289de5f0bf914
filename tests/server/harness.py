"""Real parts for the server tests: uvicorn servers, in process or not, and WebSocket clients.

Child processes (redis-server among them) are started by ``tests.processes`` and
``tests.redis_process``.

Nothing here sleeps to synchronise: every wait is for a message or an event, with a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from rules.codec import pack, unpack
from server.ops.config import Settings
from server.stores.store import Store
from server.transport.protocol import SEQUENCED_TYPES
from server.transport.serving import uvicorn_options
from server.web.app import create_app
from tests.processes import Process, free_port, http_ok

ROOT = Path(__file__).resolve().parents[2]

#: Fast settings for tests: bots barely wait, turn timers may be short, and test clients may act
#: at machine speed (as in bench/ and the topology tests). The tests of the flood limit set their
#: own small limits. Ephemeral: a server built without a store keeps rooms in memory, never in a
#: file in the user's home. The start locks the contribution commitments made so far at once
#: (``commit_window`` 0): most tests' clients do not commit, and a start deals straight away;
#: the tests of sealing (tests/server/rooms/test_sealing.py) set the window.
TEST_SETTINGS = Settings(
    ephemeral=True,
    bot_delay=0.02,
    min_turn_timer=0.05,
    presence_ttl=30.0,
    room_ttl=3600.0,
    create_burst=1000.0,
    flood_rate=1000.0,
    flood_burst=1000.0,
    commit_window=0.0,
    # PARLOR_PLAIN_ASGI=1 runs the suite on uvicorn's own protocols, the app speaking plain
    # ASGI to its sockets (docs/architecture.md, "The room server").
    plain_asgi=os.environ.get("PARLOR_PLAIN_ASGI", "") in ("1", "true", "yes", "on"),
)


def free_socket() -> socket.socket:
    """A listening-to-be socket bound to a free loopback port.

    The protocol is given explicitly: asyncio sets TCP_NODELAY on accepted connections only when
    the socket says IPPROTO_TCP, and without it every small reply waits ~40 ms for the peer's
    delayed ACK (Nagle), unlike a real ``parlor serve``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


async def flush(url: str) -> None:
    client = aioredis.Redis.from_url(url)
    await client.flushall()
    await client.aclose()


# -- servers ----------------------------------------------------------------------------------


class RunningServer:
    def __init__(self, server: uvicorn.Server, port: int, app: Any) -> None:
        self.server = server
        self.port = port
        self.app = app
        self.http = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}"

    @property
    def instance(self) -> Any:
        return self.app.state.instance


@contextlib.asynccontextmanager
async def serve(
    settings: Settings, store: Store | None = None, **uvicorn_extra: Any
) -> AsyncIterator[RunningServer]:
    """An in-process uvicorn on a pre-bound free port (no race for the port), with the options
    ``parlor serve`` runs with (``uvicorn_extra`` on top)."""
    app = create_app(settings, store)
    sock = free_socket()
    port = sock.getsockname()[1]
    options = {**uvicorn_options(settings), **uvicorn_extra}
    config = uvicorn.Config(app, lifespan="on", log_level="warning", **options)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("server stopped during start-up")
            await asyncio.sleep(0.01)
        yield RunningServer(server, port, app)
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
        sock.close()


@contextlib.contextmanager
def serve_process(
    redis_url: str = "", data_path: Path | None = None, args: tuple[str, ...] = ()
) -> Iterator[tuple[Process, str]]:
    """``parlor serve`` as a real subprocess (for the SIGKILL tests), configured as
    TEST_SETTINGS: on Redis at ``redis_url``, else on the SQLite file ``data_path``, else
    ephemeral; ``args`` are further ``parlor serve`` arguments. Its log is ``serve.log`` in a
    temporary directory; ``start()`` it again after a kill for a restart on the same port and
    store."""
    port = free_port()
    env = {
        "REDIS_URL": redis_url,
        "PARLOR_DATA_PATH": "" if data_path is None else str(data_path),
        "PARLOR_EPHEMERAL": str(not redis_url and data_path is None).lower(),
        "PARLOR_PORT": str(port),
        # One process (a SIGKILL kills the instance, not a supervisor), unless ``args`` say
        # ``--workers``: with Redis the default would be one worker per core.
        "PARLOR_WORKERS": "1",
        "PARLOR_BOT_DELAY": str(TEST_SETTINGS.bot_delay),
        "PARLOR_FLOOD_RATE": str(TEST_SETTINGS.flood_rate),
        "PARLOR_FLOOD_BURST": str(TEST_SETTINGS.flood_burst),
        "PARLOR_CREATE_BURST": str(TEST_SETTINGS.create_burst),
        "PARLOR_COMMIT_WINDOW": str(TEST_SETTINGS.commit_window),
    }
    # `parlor serve`, with the tests' toy game registered alongside the real ones.
    boot = (
        "from rules.registry import register; from tests.server.toygame import ToyGame; "
        "register(ToyGame()); import sys; from server.cli import main; "
        "sys.exit(main(['serve', *sys.argv[1:]]))"
    )
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-c", boot, *args]
        log = Path(tmp) / "serve.log"
        server = Process(argv, ready=http_ok(port), log=log, name="parlor serve", env=env, cwd=ROOT)
        with server:
            yield server, f"127.0.0.1:{port}"


# -- clients ----------------------------------------------------------------------------------


class Client:
    """One WebSocket client speaking msgpack or JSON, remembering what it was told."""

    def __init__(self, ws: ClientConnection, fmt: str) -> None:
        self.ws = ws
        self.fmt = fmt
        self.state: dict[str, Any] | None = None
        self.chat: dict[str, Any] | None = None
        self.welcome: dict[str, Any] | None = None
        self.acks: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.seq = 0
        self.join_key = secrets.token_urlsafe(16)
        #: The type of each sequenced command sent, by seq (to tell acks apart).
        self.kinds: dict[int, str] = {}
        #: Each sequenced command as sent, by seq (to resend it unchanged).
        self.sent: dict[int, dict[str, Any]] = {}

    @classmethod
    async def open(cls, base: str, code: str, fmt: str = "msgpack", **kwargs: Any) -> Client:
        url = f"{base}/ws/{code}" + ("?format=json" if fmt == "json" else "")
        ws = await connect(url, max_size=2**20, compression=None, **kwargs)
        return cls(ws, fmt)

    async def send(self, message: Any) -> None:
        """Send a message, filling in what a real client always sends: a ``seq`` for a
        seated command (the seat's next number) and a join ``key``."""
        if isinstance(message, dict):
            kind = message.get("type")
            if kind in SEQUENCED_TYPES and "seq" not in message:
                message = {**message, "seq": self.next_seq()}
            if kind in SEQUENCED_TYPES:
                self.kinds[message["seq"]] = kind
                self.sent[message["seq"]] = message
            elif kind == "join" and "key" not in message:
                message = {**message, "key": self.join_key}
        await self.send_raw(json.dumps(message) if self.fmt == "json" else pack(message))

    def next_seq(self) -> int:
        self.seq = max(self.seq, (self.state or {}).get("last_seq", 0)) + 1
        return self.seq

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        if self.fmt == "json":
            assert isinstance(frame, str), "JSON connections get text frames"
            message: dict[str, Any] = json.loads(frame)
        else:
            assert isinstance(frame, bytes), "msgpack connections get binary frames"
            message = unpack(frame)
        kind = message["type"]
        if kind == "state":
            if self.state is None or message["version"] >= self.state["version"]:
                self.state = message
        elif kind == "chat":
            self.chat = message
        elif kind == "welcome":
            self.welcome = message
        elif kind == "ack":
            self.acks.append(message)
        elif kind == "error":
            self.errors.append(message)
        return message

    async def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0
    ) -> dict[str, Any]:
        """Receive until a message satisfies ``predicate``; returns that message."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError("no matching message")
            message = await self.recv(left)
            if predicate(message):
                return message

    async def expect(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        return await self.until(lambda m: m["type"] == kind, timeout)

    async def error(self, code: str | None = None, timeout: float = 5.0) -> dict[str, Any]:
        message = await self.expect("error", timeout)
        if code is not None:
            assert message["code"] == code, message
        return message

    async def join(self, name: str) -> dict[str, Any]:
        await self.send({"type": "join", "name": name})
        welcome = await self.expect("welcome")
        await self.expect("state")
        return welcome

    async def resume(self, token: str) -> dict[str, Any]:
        await self.send({"type": "resume", "token": token})
        welcome = await self.expect("welcome")
        await self.expect("state")
        return welcome

    async def watch(self) -> dict[str, Any]:
        await self.send({"type": "watch"})
        welcome = await self.expect("welcome")
        await self.expect("state")
        return welcome

    async def state_at_least(self, version: int, timeout: float = 5.0) -> dict[str, Any]:
        if self.state is not None and self.state["version"] >= version:
            return self.state
        return await self.until(lambda m: m["type"] == "state" and m["version"] >= version, timeout)

    async def act(self, action: dict[str, Any], seq: int | None = None) -> int:
        seq = self.next_seq() if seq is None else seq
        await self.send({"type": "act", "seq": seq, "action": action})
        return seq

    async def close(self) -> None:
        await self.ws.close()


async def create_room(
    http: str, game: str, options: dict[str, Any] | None = None, turn_timer: float = 0
) -> str:
    import httpx

    async with httpx.AsyncClient() as client:
        response = await client.post(
            f"{http}/api/rooms",
            json={"game": game, "options": options, "turn_timer": turn_timer},
        )
    assert response.status_code == 201, response.text
    code: str = response.json()["code"]
    return code


def parlor_verify(path: Path) -> subprocess.CompletedProcess[str]:
    """The real ``parlor verify`` command on ``path``."""
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "verify", str(path)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )

"""Connections: the send queue (a slow client is dropped without delaying anyone else), and
over real sockets, clients that stop reading, never join or open too many connections, and
shutdown."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.transport.connections import Connection
from server.transport.protocol import CloseCode
from server.transport.wire import Format
from tests.server.deployed import RawWebSocket, parlor_serve
from tests.server.driver import seat_clients, state_where
from tests.server.harness import ROOT, TEST_SETTINGS, Client, create_room, serve


class Peer:
    """A socket whose transport takes ``room`` frames before it pauses (None: never pauses)."""

    def __init__(self, room: int | None) -> None:
        self.room = room
        self.frames: list[bytes | str] = []
        self.closed: tuple[int, str] | None = None
        self.waiting: Callable[[], None] | None = None

    def send_frame(self, frame: bytes | str, *, force: bool = False) -> bool:
        if self.closed is not None:
            return True
        if not force and self.room is not None and len(self.frames) >= self.room:
            return False
        self.frames.append(frame)
        return True

    def when_writable(self, callback: Callable[[], None]) -> None:
        self.waiting = callback

    def close_frame(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def reads(self, frames: int) -> None:
        """The peer reads ``frames`` more: the transport takes writes again."""
        assert self.room is not None
        self.room += frames
        callback, self.waiting = self.waiting, None
        if callback is not None:
            callback()


def test_slow_connection_is_closed_and_fast_one_unaffected() -> None:
    slow_peer, fast_peer = Peer(room=2), Peer(room=None)
    slow = Connection(slow_peer, Format.MSGPACK, queue_size=4)
    fast = Connection(fast_peer, Format.MSGPACK, queue_size=4)
    # Fan-out never waits: push returns at once for both.
    results = [slow.push(b"frame %d" % i) for i in range(10)]
    for i in range(10):
        fast.push(b"frame %d" % i)
    assert slow_peer.closed is not None and slow_peer.closed[0] == CloseCode.TRY_AGAIN
    assert slow.overflowed and results == [True] * 6 + [False] + [False] * 3
    assert fast_peer.frames == [b"frame %d" % i for i in range(10)]
    assert not fast.closing and fast.backlog == 0


def test_frames_wait_while_the_peer_is_not_reading_and_go_out_in_order_when_it_does() -> None:
    peer = Peer(room=1)
    conn = Connection(peer, Format.MSGPACK, queue_size=4)
    for i in range(4):
        assert conn.push(b"frame %d" % i)
    assert peer.frames == [b"frame 0"] and conn.backlog == 3
    peer.reads(1)
    assert peer.frames == [b"frame 0", b"frame 1"] and conn.backlog == 2
    peer.reads(10)
    assert peer.frames == [b"frame %d" % i for i in range(4)] and conn.backlog == 0
    assert conn.push(b"frame 4") and peer.frames[-1] == b"frame 4"
    assert peer.closed is None


def test_close_after_pending_flushes_the_error_first() -> None:
    peer = Peer(room=None)
    conn = Connection(peer, Format.JSON, queue_size=4)
    conn.send({"type": "error", "code": "too_big", "message": "no"})
    conn.close_after_pending(CloseCode.TOO_BIG, "frame too big")
    assert not conn.send({"type": "late"}), "nothing is sent once closing"
    assert peer.frames == ['{"type":"error","code":"too_big","message":"no"}']
    assert peer.closed == (CloseCode.TOO_BIG, "frame too big")


def test_close_after_pending_does_not_wait_for_a_peer_that_stopped_reading() -> None:
    """What waits is handed over with the close behind it; the socket resets the peer if it
    does not finish closing in time (tested over real sockets below)."""
    peer = Peer(room=0)
    conn = Connection(peer, Format.JSON, queue_size=4)
    conn.send({"type": "error", "code": "kicked", "message": "bye"})
    assert peer.frames == [] and conn.backlog == 1
    conn.close_after_pending(CloseCode.KICKED, "seat revoked")
    assert peer.frames == ['{"type":"error","code":"kicked","message":"bye"}']
    assert peer.closed == (CloseCode.KICKED, "seat revoked") and conn.backlog == 0


# -- real connections: slow, idle, too many, and shutdown --------------------------------------

#: A small send queue and fast chat, so one client that stops reading is dropped quickly.
SLOW = TEST_SETTINGS.model_copy(
    update={"send_queue": 16, "chat_rate": 1000.0, "chat_burst": 1000.0}
)


def _connected(seat_id: int, connected: bool) -> Callable[[dict[str, Any]], bool]:
    def check(message: dict[str, Any]) -> bool:
        seats = message["room"]["seats"] if message["type"] == "state" else []
        return any(s["id"] == seat_id and s["connected"] is connected for s in seats)

    return check


async def stalled_seat(base: str, code: str, host: Client) -> tuple[RawWebSocket, int]:
    """A seated client (and its seat id) that takes its welcome and first state, then stops
    reading."""
    raw = await RawWebSocket.open(base, f"/ws/{code}", rcvbuf=4096)
    await raw.send({"type": "join", "name": "Stalled", "key": "k" * 16})
    welcome = await raw.expect("welcome")
    await raw.expect("state")
    await host.until(_connected(welcome["id"], True))
    return raw, welcome["id"]


async def fill_until_dropped(host: Client, seat_id: int, timeout: float = 30.0) -> None:
    """Chat long lines (every one fans out the room and its last 50 lines) until the stalled
    seat shows as disconnected: its send queue overflowed and the server dropped it."""
    dropped = _connected(seat_id, False)
    async with asyncio.timeout(timeout):
        while not (host.state is not None and dropped(host.state)):
            seq = host.next_seq()
            await host.send({"type": "chat", "seq": seq, "text": "x" * 200})
            await host.until(lambda m, s=seq: m.get("seq") == s or dropped(m))


@pytest.mark.parlor_protocols
async def test_a_client_that_stopped_reading_is_reset_after_the_close_timeout() -> None:
    async with serve(SLOW.model_copy(update={"close_timeout": 0.2})) as server:
        code = await create_room(server.http, "toy")
        host = (await seat_clients([server.ws], code, 1))[0]
        stalled, seat_id = await stalled_seat(server.ws, code, host)
        await fill_until_dropped(host, seat_id)
        # Its close frame sits behind what it never read: the kernel's buffers are dropped
        # with a reset instead of being kept for as long as the client likes.
        await stalled.wait_reset(timeout=10)
        assert server.instance.hub.connection_count == 1
        assert len(server.server.server_state.connections) == 1, "uvicorn let go of it too"
        # The server still serves everyone else.
        await host.send({"type": "chat", "text": "still here"})
        await host.expect("ack")
        stalled.shut()


async def test_a_dropped_client_that_reads_again_within_the_close_timeout_reads_1013() -> None:
    async with serve(SLOW.model_copy(update={"close_timeout": 30.0})) as server:
        code = await create_room(server.http, "toy")
        host = (await seat_clients([server.ws], code, 1))[0]
        stalled, seat_id = await stalled_seat(server.ws, code, host)
        await fill_until_dropped(host, seat_id)
        # The scenario, not a synchronisation: the phone stays stalled for a few seconds (the
        # close used to wait for it to read, and was given up after 2 s; a 1011 came later).
        await asyncio.sleep(3)
        close = await stalled.read_to_close(timeout=20)
        assert close.code == CloseCode.TRY_AGAIN
        stalled.shut()


@pytest.mark.parametrize(
    ("close_timeout", "shutdown_timeout"),
    [
        pytest.param(0.5, 600.0, marks=pytest.mark.parlor_protocols),
        (600.0, 1.0),
    ],
    ids=["reset-after-close-timeout", "graceful-shutdown-timeout"],
)
def test_sigterm_stops_parlor_serve_despite_a_client_that_never_reads(
    close_timeout: float, shutdown_timeout: float
) -> None:
    """Either bound alone ends the shutdown: the stuck connection is reset once its 1012 close
    has waited ``close_timeout``, and whatever is left is cancelled after ``shutdown_timeout``."""

    async def stall(port: int) -> RawWebSocket:
        base = f"ws://127.0.0.1:{port}"
        code = await create_room(f"http://127.0.0.1:{port}", "toy")
        host = (await seat_clients([base], code, 1))[0]
        stalled, seat_id = await stalled_seat(base, code, host)
        await fill_until_dropped(host, seat_id)
        return stalled

    names = ("send_queue", "chat_rate", "chat_burst", "flood_rate", "flood_burst", "create_burst")
    settings = {name: getattr(SLOW, name) for name in names}
    bounds = {"close_timeout": close_timeout, "shutdown_timeout": shutdown_timeout}
    with parlor_serve(**settings, **bounds) as (server, port):
        stalled = asyncio.run(stall(port))
        server.send_signal(signal.SIGTERM)
        assert server.exits_within(30), "parlor serve hung on SIGTERM"
        stalled.shut()


@pytest.mark.parlor_protocols
def test_a_draining_instance_accepts_no_new_connection() -> None:
    """SIGTERM closes the listening socket before anything else: once a client has read its
    1012 "service restart", the port refuses connections, while the instance still drains (a
    client that never reads holds it until the shutdown timeout)."""

    async def drain(port: int, server: Any) -> None:
        base = f"ws://127.0.0.1:{port}"
        code = await create_room(f"http://127.0.0.1:{port}", "toy")
        host = (await seat_clients([base], code, 1))[0]
        stalled, seat_id = await stalled_seat(base, code, host)
        await fill_until_dropped(host, seat_id)
        watcher = await RawWebSocket.open(base, f"/ws/{code}")
        await watcher.send({"type": "watch"})
        await watcher.expect("state")
        server.send_signal(signal.SIGTERM)
        close = await watcher.read_to_close()
        assert (close.code, close.reason) == (CloseCode.SERVICE_RESTART, "service restart")
        assert server.running, "still draining: the stalled client holds it"
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", port)
        watcher.shut()
        stalled.shut()

    names = ("send_queue", "chat_rate", "chat_burst", "flood_rate", "flood_burst", "create_burst")
    settings = {name: getattr(SLOW, name) for name in names}
    with parlor_serve(**settings, close_timeout=600.0, shutdown_timeout=5.0) as (server, port):
        asyncio.run(drain(port, server))
        assert server.exits_within(30), "parlor serve hung on SIGTERM"


async def closed_with(client: Client, timeout: float = 10.0) -> int:
    """Read until the server closes the connection; its close code."""
    with pytest.raises(ConnectionClosed):
        async with asyncio.timeout(timeout):
            while True:
                await client.recv(timeout)
    code = client.ws.close_code
    assert code is not None
    return code


async def test_a_connection_that_does_not_join_in_time_is_told_and_closed() -> None:
    async with serve(TEST_SETTINGS.model_copy(update={"join_timeout": 0.3})) as server:
        code = await create_room(server.http, "toy")
        joined = await Client.open(server.ws, code)
        await joined.watch()
        idle = await Client.open(server.ws, code)
        refused = await Client.open(server.ws, code)
        await refused.send({"type": "resume", "token": "no-such-token"})
        await refused.error("bad_token")
        for client in (idle, refused):
            message = await client.error("join_timeout")
            assert "join" in message["message"]
            assert await closed_with(client) == CloseCode.TRY_AGAIN
        # Its own deadline passed before theirs: a bound connection has none.
        await joined.send({"type": "sync"})
        await joined.expect("state")


async def test_connections_per_address_are_capped_and_the_forwarded_address_counts() -> None:
    async with serve(TEST_SETTINGS.model_copy(update={"max_connections_per_address": 2})) as server:
        code = await create_room(server.http, "toy")

        async def open_from(address: str | None) -> Client:
            headers = {} if address is None else {"X-Forwarded-For": address}
            return await Client.open(server.ws, code, additional_headers=headers)

        first, second = await open_from("203.0.113.7"), await open_from("203.0.113.7")
        with pytest.raises(InvalidStatus) as refused:
            await open_from("203.0.113.7")
        response = refused.value.response
        assert response.status_code == 429
        body = json.loads(response.body)
        assert body["code"] == "too_many_connections" and body["message"]
        # The proxy (this test, on 127.0.0.1: trusted by default) forwards other clients.
        await (await open_from("203.0.113.8")).watch()
        await (await open_from(None)).watch()
        # A connection that ends gives its place back.
        await first.join("A")
        await second.join("B")
        await first.close()
        await second.until(_connected(first.welcome["id"], False))  # type: ignore[index]
        await (await open_from("203.0.113.7")).watch()


async def test_shutdown_closes_websockets_with_1012_service_restart() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code)
        await client.watch()
        server.server.should_exit = True
        assert await closed_with(client) == CloseCode.SERVICE_RESTART


CLIENT = """
import asyncio, sys
from rules.codec import pack, unpack
from websockets.asyncio.client import connect

async def main(url):
    async with connect(url, compression=None) as ws:
        await ws.send(pack({"type": "join", "name": "Sleepy", "key": "s" * 22}))
        while unpack(await ws.recv())["type"] != "state":
            pass
        print("joined", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main(sys.argv[1]))
"""


async def test_a_client_that_stops_answering_pings_is_closed_within_the_bound() -> None:
    """A phone that loses its network silently: the server's pings go unanswered, so the
    connection is closed and its seat shows disconnected (and the takeover grace starts)."""
    settings = TEST_SETTINGS.model_copy(update={"ws_ping_interval": 0.2, "ws_ping_timeout": 0.2})
    async with serve(settings) as server:
        code = await create_room(server.http, "toy")
        (ana,) = await seat_clients([server.ws], code, 1)
        sleepy = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            CLIENT,
            f"{server.ws}/ws/{code}",
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
        )
        try:
            assert sleepy.stdout is not None
            assert await asyncio.wait_for(sleepy.stdout.readline(), 10) == b"joined\n"
            await ana.until(
                lambda m: (
                    m["type"] == "state"
                    and [s["connected"] for s in m["room"]["seats"]] == [True, True]
                )
            )
            os.kill(sleepy.pid, signal.SIGSTOP)  # it stops answering anything, pings included
            state = await ana.until(
                lambda m: m["type"] == "state" and not m["room"]["seats"][1]["connected"], 5
            )
            assert state["room"]["seats"][1]["name"] == "Sleepy"
        finally:
            os.kill(sleepy.pid, signal.SIGKILL)
            await sleepy.wait()


@pytest.mark.parlor_protocols
async def test_a_websocket_refused_at_the_per_address_cap_logs_no_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each refusal used to log "ASGI callable returned without completing handshake" at
    ERROR: anyone could fill the log at ERROR by opening sockets."""
    from tests.server.web.test_session import uvicorn_logs_to

    caplog.set_level(logging.INFO)
    async with serve(TEST_SETTINGS.model_copy(update={"max_connections_per_address": 1})) as server:
        with uvicorn_logs_to(caplog):
            code = await create_room(server.http, "toy")
            first = await Client.open(server.ws, code)
            for _ in range(3):
                with pytest.raises(InvalidStatus) as refused:
                    await Client.open(server.ws, code)
                assert refused.value.response.status_code == 429
            await first.watch()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_client_that_stops_answering_pings_is_closed_with_1011() -> None:
    """The close code docs/protocol.md lists for it: 1011, keepalive ping timeout."""
    settings = TEST_SETTINGS.model_copy(
        update={"ws_ping_interval": 0.2, "ws_ping_timeout": 0.2, "close_timeout": 60.0}
    )
    async with serve(settings) as server:
        code = await create_room(server.http, "toy")
        ana, sleepy = await seat_clients([server.ws], code, 2)
        seats = lambda m: m["room"]["seats"]  # noqa: E731
        await state_where(ana, lambda m: len(seats(m)) == 2 and seats(m)[1]["connected"])
        transport = sleepy.ws.transport
        transport.pause_reading()  # it reads nothing now, pings included: no pong goes back
        await ana.until(
            lambda m: m["type"] == "state" and not m["room"]["seats"][1]["connected"], 10
        )
        transport.resume_reading()  # the close frame waits in its buffer (60 s before a reset)
        with pytest.raises(ConnectionClosed):
            while True:
                await sleepy.recv()
        assert sleepy.ws.close_code == 1011

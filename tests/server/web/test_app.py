"""The HTTP API: create, summary, list, games, health, metrics, the static client."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from server import codes
from server.stores.redis_store import RedisStore
from tests.redis_process import RedisProcess
from tests.server.deployed import parlor_serve
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, serve


async def test_create_and_summarise_a_room() -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        created = await http.post("/api/rooms", json={"game": "toy", "options": {"hand": 2}})
        assert created.status_code == 201
        body = created.json()
        code = body["code"]
        assert codes.normalize(code) == code and len(code) == 5
        assert not set(code) & set("0O1I")
        assert body["ws"] == f"/ws/{code}" and body["phase"] == "lobby"
        await seat_clients([server.ws], code, 2)
        summary = (await http.get(f"/api/rooms/{code.lower()}")).json()
        assert summary["options"] == {"hand": 2}
        assert [(s["name"], s["connected"]) for s in summary["seats"]] == [
            ("P0", True),
            ("P1", True),
        ]
        listed = (await http.get("/api/rooms")).json()
        assert [r["code"] for r in listed] == [code]


async def test_create_refuses_bad_requests() -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        for body, code in (
            ({"game": "chess"}, "bad_message"),
            ({"game": "toy", "options": {"hand": 99}}, "invalid_options"),
            ({"game": "toy", "options": {"colour": 1}}, "invalid_options"),
            ({"game": "toy", "turn_timer": 0.001}, "bad_message"),
            ({"options": {}}, "bad_message"),
        ):
            response = await http.post("/api/rooms", json=body)
            assert response.status_code == 400 and response.json()["code"] == code, body
        response = await http.post("/api/rooms", content=b"[1,2")
        assert response.status_code == 400
        response = await http.post("/api/rooms", content=b"x" * 20000)
        assert response.status_code == 413
        assert (await http.get("/api/rooms/ZZZZZ")).status_code == 404
        assert (await http.get("/api/rooms/0O1I0")).status_code == 404


async def test_a_path_or_method_the_api_does_not_have_is_refused_with_an_error_object() -> None:
    """Found by the wire fuzzer (tests/server/transport/test_fuzz.py): a room code holding a "/"
    (``%2F``), an API path that does not exist and a method an endpoint does not take were
    answered Starlette's plain text ("Not Found", "Method Not Allowed"), and ``/api/rooms/``
    with a 307 redirect, where every other refusal of the API is an error object."""
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        for method, path, status, code in (
            ("GET", "/api/rooms/a%2Fb", 404, "not_found"),
            ("GET", "/api/rooms/", 404, "not_found"),
            ("GET", "/api/nothing", 404, "not_found"),
            ("GET", "/api/rooms/ABCDE/games/1", 404, "not_found"),
            ("POST", "/api/games", 405, "bad_method"),
            ("DELETE", "/api/rooms", 405, "bad_method"),
        ):
            response = await http.request(method, path)
            assert response.status_code == status, (method, path, response.text)
            body = response.json()
            assert body["type"] == "error" and body["code"] == code and body["message"], body
        assert "GET" in response.headers["allow"], "a 405 says which methods the path takes"


async def test_games_healthz_metrics_and_static_client(redis_clean: str) -> None:
    async with (
        serve(TEST_SETTINGS, RedisStore(redis_clean)) as server,
        httpx.AsyncClient(base_url=server.http) as http,
    ):
        games = {g["id"] for g in (await http.get("/api/games")).json()}
        assert "toy" in games
        health = (await http.get("/healthz")).json()
        assert health["ok"] and health["store"] == "redis"
        code = (await http.post("/api/rooms", json={"game": "toy"})).json()["code"]
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        await clients[0].send({"type": "teleport"})
        await clients[0].error("unknown_type")
        text = (await http.get("/metrics")).text
        assert "parlor_rooms_created_total 1" in text
        assert "parlor_connections 2" in text
        assert 'parlor_errors_total{code="unknown_type"} 1' in text
        assert "parlor_action_seconds_bucket" in text
        index = await http.get("/")
        assert index.status_code == 200 and "text/html" in index.headers["content-type"]


async def test_healthz_reports_a_dead_store(redis_url: str) -> None:
    store = RedisStore(redis_url)
    async with serve(TEST_SETTINGS, store) as server, httpx.AsyncClient(base_url=server.http) as h:
        assert (await h.get("/healthz")).status_code == 200
        # Point the store at a port where nothing listens (and do not retry for long).
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        store._redis = aioredis.Redis(
            host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)
        )
        response = await h.get("/healthz")
        assert response.status_code == 503 and response.json()["ok"] is False


async def test_room_creation_is_rate_limited_per_client_address() -> None:
    settings = TEST_SETTINGS.model_copy(update={"create_rate": 0.001, "create_burst": 3})
    async with serve(settings) as server, httpx.AsyncClient(base_url=server.http) as http:
        server.instance.limit_clock = lambda: 0.0  # no refill, however slow the machine
        made = [await http.post("/api/rooms", json={"game": "toy"}) for _ in range(3)]
        assert [r.status_code for r in made] == [201, 201, 201]
        refused = await http.post("/api/rooms", json={"game": "toy"})
        assert refused.status_code == 429
        assert refused.json()["code"] == "flood" and "rooms" in refused.json()["message"]
        # Another address (as the proxy reports it) still may.
        other = await http.post(
            "/api/rooms", json={"game": "toy"}, headers={"x-forwarded-for": "203.0.113.9"}
        )
        assert other.status_code == 201
        metrics = (await http.get("/metrics")).text
        assert 'parlor_errors_total{code="flood"} 1' in metrics


async def test_every_endpoint_answers_503_while_the_store_is_down(
    redis_proc: RedisProcess,
) -> None:
    """The room summary and the room list used to answer 500."""
    settings = TEST_SETTINGS.model_copy(update={"redis_timeout": 0.3})
    store = RedisStore(redis_proc.url)
    async with serve(settings, store) as server, httpx.AsyncClient(base_url=server.http) as http:
        code = (await http.post("/api/rooms", json={"game": "toy"})).json()["code"]
        redis_proc.kill()
        for method, path in (
            ("GET", f"/api/rooms/{code}"),
            ("GET", "/api/rooms"),
            ("POST", "/api/rooms"),
            ("GET", "/healthz"),
        ):
            body = {"game": "toy"} if method == "POST" else None
            response = await http.request(method, path, json=body)
            assert response.status_code == 503, (path, response.text)
        redis_proc.start()


async def test_a_body_that_never_arrives_is_answered_408() -> None:
    """A request that declares 10 bytes and sends 5 used to hold its connection open."""
    settings = TEST_SETTINGS.model_copy(update={"body_timeout": 0.2})
    async with serve(settings) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 10\r\n\r\n{"ga'
        )
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), 5)
        assert status.startswith(b"HTTP/1.1 408"), status


# -- connections that never finish a request head (parlor serve, raw TCP) ----------------------


def _closed_by_server(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """Read until the server closes (or resets) the connection; what it sent before that."""
    sock.settimeout(timeout)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError(f"the server kept the connection open for {timeout} s") from None
    return received


def _response(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """One whole response (it has a Content-Length: every response of ours does)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.mark.parlor_protocols
def test_connections_that_never_complete_a_request_head_are_closed() -> None:
    with parlor_serve(header_timeout=0.3) as (_, port):
        silent = socket.create_connection(("127.0.0.1", port))
        partial = socket.create_connection(("127.0.0.1", port))
        partial.sendall(b"GET /healthz HT")
        headers = socket.create_connection(("127.0.0.1", port))
        headers.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        for sock in (silent, partial, headers):
            assert _closed_by_server(sock) == b""
            sock.close()


@pytest.mark.parlor_protocols
def test_a_kept_alive_connection_must_complete_its_next_request_head_too() -> None:
    with parlor_serve(header_timeout=0.3) as (_, port):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _response(sock).startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /heal")
        assert _closed_by_server(sock) == b""
        sock.close()


def test_the_head_deadline_does_not_cut_a_slow_body() -> None:
    """The body has its own deadline (body_timeout); a complete head stops the head's clock."""
    with parlor_serve(header_timeout=0.3, body_timeout=30.0) as (_, port):
        body = b'{"game": "toy"}'
        sock = socket.create_connection(("127.0.0.1", port))
        head = b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
        sock.sendall(head + body[:5])
        # The rest comes once the server has had time to reset (it must not).
        with pytest.raises(TimeoutError):
            sock.settimeout(1.0)
            sock.recv(1)
        sock.sendall(body[5:])
        assert _response(sock).startswith(b"HTTP/1.1 201")
        sock.close()

"""The Starlette application: HTTP API, the WebSocket endpoint and the static web client.

The lifespan opens the store; the WebSocket loop is connect -> receive -> disconnect with the
cleanup in a ``finally`` (the starlette pattern). Everything else is delegated: a
:class:`~server.web.session.Session` handles frames, the hub handles fan-out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic import TypeAdapter, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, Router
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from rules.codec import unpack
from rules.contract import readable
from rules.errors import RulesError
from rules.registry import all_games
from server import codes
from server.errors import ErrorCode, ParlorError
from server.fairplay import history, records
from server.ops.config import Settings
from server.rooms import Mode, Phase, Room, commands
from server.runtime.instance import Instance
from server.stores.store import Store, StoreError
from server.transport import state_messages
from server.transport.asgi_socket import AsgiSocket
from server.transport.clientlog import client
from server.transport.connections import Connection
from server.transport.protocol import CloseCode, claim_body, create_room_body, error, mine_body
from server.transport.serving import SOCKET_EXTENSION, WebSocketProtocol
from server.transport.wire import Format, Frame, choose
from server.web import dispatch
from server.web.client_files import ClientFiles
from server.web.session import Session, hash_token

log = logging.getLogger("parlor")

T = TypeVar("T")

MAX_BODY = 16 * 1024
#: A whole number as a path or query part: ASCII digits only (``str.isdigit`` takes "²" too).
_DIGITS = re.compile(r"[0-9]+")


#: The scheme of the pages that open WebSockets of each scheme.
_PAGE_SCHEMES = {"ws": "http", "wss": "https"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_allowed(
    origin: str | None, host: str | None, scheme: str, allowed: tuple[str, ...]
) -> bool:
    """Browsers always send Origin on WebSockets; tools may not (and cannot be tricked into a
    cross-site request), so a missing Origin is fine. A present one must be on the allow-list
    or the request's own origin: the same scheme, host and port. ``scheme`` is the request's
    (``ws`` or ``wss``) as uvicorn gives it: behind a proxy that terminates TLS it comes from
    X-Forwarded-Proto, and only if the proxy is trusted (FORWARDED_ALLOW_IPS)."""
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    if host is None:
        return False
    own = _origin_of(f"{_PAGE_SCHEMES.get(scheme, scheme)}://{host}")
    return own is not None and _origin_of(origin) == own


def _origin_of(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of a URL, the port filled in from the scheme; None if malformed."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS.get(scheme)


def _instance(scope_app: Any) -> Instance:
    instance: Instance = scope_app.state.instance
    return instance


async def healthz(request: Request) -> Response:
    instance = _instance(request.app)
    try:
        await instance.store.ping()
    except StoreError as exc:
        return JSONResponse({"ok": False, "store": instance.store.kind, "error": str(exc)}, 503)
    return JSONResponse({"ok": True, "store": instance.store.kind, "instance": instance.id})


async def metrics(request: Request) -> Response:
    return PlainTextResponse(_instance(request.app).metrics.render(), media_type="text/plain")


async def games(request: Request) -> Response:
    return JSONResponse([game.describe() for game in all_games().values()])


async def create_room(request: Request) -> Response:
    instance = _instance(request.app)
    # Behind a proxy, uvicorn puts the real client address here (FORWARDED_ALLOW_IPS).
    address = request.client.host if request.client is not None else "?"
    if not instance.create_limit.take(address):
        instance.metrics.errors[ErrorCode.FLOOD] += 1
        return _refuse(
            ErrorCode.FLOOD, "Too many rooms created from your address; try again in a minute", 429
        )
    wanted = await _json_body(request, create_room_body, "room")
    if isinstance(wanted, Response):
        return wanted
    try:
        room = await instance.service.create(
            wanted.game, wanted.options, wanted.turn_timer, wanted.key, Mode(wanted.mode)
        )
    except (ParlorError, RulesError) as exc:
        return _refuse(exc.code, exc.message, 400)
    info = state_messages.room_info(room, frozenset(), instance.service.clock())
    return JSONResponse({**info, "ws": f"/ws/{room.code}"}, 201)


async def room_summary(request: Request) -> Response:
    instance = _instance(request.app)
    code = codes.normalize(request.path_params["code"])
    room = None if code is None else await instance.service.get(code)
    if code is None or room is None:
        return _refuse(ErrorCode.NO_ROOM, "No such room (or it expired)", 404)
    presence = await instance.store.presence(code)
    return JSONResponse(state_messages.room_info(room, presence, instance.service.clock()))


async def _json_body(request: Request, adapter: TypeAdapter[T], what: str) -> T | Response:
    """The request's JSON body as ``adapter`` validates it, or the refusal to send."""
    instance = _instance(request.app)
    try:
        async with asyncio.timeout(instance.settings.body_timeout):
            body = await _read_body(request, MAX_BODY)
    except TimeoutError:
        return _refuse(ErrorCode.BAD_MESSAGE, "The request body did not arrive in time", 408)
    if body is None:
        return _refuse(ErrorCode.TOO_BIG, f"The request body is limited to {MAX_BODY} bytes", 413)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        return _refuse(ErrorCode.BAD_MESSAGE, "The body must be a JSON object", 400)
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        return _refuse(ErrorCode.BAD_MESSAGE, f"Malformed {what}: {readable(exc, 'body')}", 400)


async def your_games(request: Request) -> Response:
    """``POST /api/mine``: the rooms the seat tokens in the body hold a seat in, each as
    "Your games" lists it (docs/protocol.md). A token that holds no seat (a mistyped code, a
    room gone, a seat left or moved to another device) yields nothing but its code in
    ``forget``: no token, no room."""
    instance = _instance(request.app)
    wanted = await _json_body(request, mine_body, "request")
    if isinstance(wanted, Response):
        return wanted
    games: list[dict[str, Any]] = []
    forget: list[str] = []
    for held in wanted.seats:
        code = codes.normalize(held.code)
        try:
            room = None if code is None else await instance.service.get(code)
        except StoreError as exc:
            return _refuse(ErrorCode.UNAVAILABLE, f"The room store is unavailable: {exc}", 503)
        seat = None if room is None else room.seat_by_token(hash_token(held.token))
        if room is None or seat is None:
            forget.append(held.code)
            continue
        games.append(state_messages.your_game(room, seat.id))
    # Your turn first, then the most recently moved.
    games.sort(key=lambda g: (not g["your_turn"], -g["moved_at"]))
    return JSONResponse({"games": games, "forget": forget, "now": instance.service.clock()})


async def claim_seat(request: Request) -> Response:
    """``POST /api/rooms/{code}/claim``: a device move's one-time code for a new seat token
    (the old one stops working). Rate-limited like room creation, per address."""
    instance = _instance(request.app)
    address = request.client.host if request.client is not None else "?"
    if not instance.create_limit.take(address):
        instance.metrics.errors[ErrorCode.FLOOD] += 1
        return _refuse(ErrorCode.FLOOD, "Too many tries from your address; wait a minute", 429)
    code = codes.normalize(request.path_params["code"])
    wanted = await _json_body(request, claim_body, "claim")
    if isinstance(wanted, Response):
        return wanted
    if code is None:
        return _refuse(ErrorCode.NO_ROOM, "No such room (or it expired)", 404)
    once, key, now = dispatch.handoff_digest(wanted.code), wanted.key, instance.service.clock
    try:
        change = await instance.service.change(
            code,
            lambda r: commands.claim(r, once, hash_token(commands.seat_token(r, key)), now()),
        )
    except (ParlorError, RulesError) as exc:
        status = 404 if exc.code == ErrorCode.NO_ROOM else 403
        return _refuse(exc.code, exc.message, status)
    except StoreError as exc:
        return _refuse(
            ErrorCode.UNAVAILABLE,
            f"The room store is unavailable ({exc}): send the same claim again to find out",
            503,
        )
    room = change.room
    index = None if change.seat_id is None else room.index_of(change.seat_id)
    return JSONResponse(
        {
            "code": room.code,
            "token": commands.seat_token(room, key),
            "id": change.seat_id,
            "seat": index,
        }
    )


async def _game_of(request: Request) -> tuple[Instance, str, Room, int] | Response:
    """The room and the game number a ``/rooms/{code}/games/{number}/…`` path names, or the
    refusal to send (``no_room``, ``no_game``)."""
    instance = _instance(request.app)
    code = codes.normalize(request.path_params["code"])
    room = None if code is None else await instance.service.get(code)
    if code is None or room is None:
        return _refuse(ErrorCode.NO_ROOM, "No such room (or it expired)", 404)
    raw = request.path_params["number"]
    number = int(raw) if _DIGITS.fullmatch(raw) and len(raw) < 10 else 0
    if not 1 <= number <= room.round:
        return _refuse(ErrorCode.NO_GAME, f"Room {code} has no game {raw[:10]}", 404)
    return instance, code, room, number


async def _record(request: Request) -> dict[str, Any] | Response:
    """The record of the game the path names, or the refusal to send (docs/protocol.md,
    "Game records"): none while that game is being played, since it would show hidden cards."""
    found = await _game_of(request)
    if isinstance(found, Response):
        return found
    instance, code, room, number = found
    if number == room.round and room.phase is not Phase.FINISHED:
        return _refuse(
            ErrorCode.NOT_OVER,
            f"Game {number} is still being played: its record is ready once it is over",
            409,
        )
    # A room code is free again once its room expires: the key names this room (its
    # creation), and its latest game's record only at this version.
    key = (code, room.created_by, room.created_at, number, room.version * (number == room.round))
    replays: records.Replays = request.app.state.replays
    kept = replays.record(key)
    if kept is not None:
        return kept
    entries = [unpack(entry) for entry in await instance.store.archive(code)]
    try:
        record = records.build(code, number, entries)
        replays.keep(key, record)
        return record
    except records.NoRecord as exc:
        return _refuse(
            ErrorCode.NO_GAME, f"Room {code} keeps no record of game {number}: {exc}", 404
        )


async def game_events(request: Request) -> Response:
    """The public history of a game, played or being played (server/fairplay/history.py): what a
    page rebuilds its log from, and tells a returning player. ``?since=`` a room version."""
    found = await _game_of(request)
    if isinstance(found, Response):
        return found
    instance, code, _room, number = found
    since_raw = request.query_params.get("since", "0")
    if not _DIGITS.fullmatch(since_raw) or len(since_raw) > 15:
        return _refuse(ErrorCode.BAD_MESSAGE, "since is a room version (a whole number)", 400)
    entries = [unpack(entry) for entry in await instance.store.archive(code)]
    try:
        moves = history.game_events(entries, number, int(since_raw))
    except history.NoGame as exc:
        return _refuse(
            ErrorCode.NO_GAME, f"Room {code} keeps no history of game {number}: {exc}", 404
        )
    return JSONResponse({"room": code, **moves})


async def game_record(request: Request) -> Response:
    record = await _record(request)
    if isinstance(record, Response):
        return record
    return JSONResponse(record)


async def game_replay(request: Request) -> Response:
    """The replayed game's views for the replay viewer: ``?seat=`` an index, ``all`` (every
    card revealed) or left out (a spectator's); ``from`` and ``count`` page through the
    steps."""
    record = await _record(request)
    if isinstance(record, Response):
        return record
    query = request.query_params
    wanted = query.get("seat", "")
    seat: int | str | None
    if wanted == records.EVERYTHING:
        seat = records.EVERYTHING
    elif wanted in ("", "spectator"):
        seat = None
    elif _DIGITS.fullmatch(wanted) and len(wanted) < 3 and int(wanted) < len(record["seats"]):
        seat = int(wanted)
    else:
        return _refuse(ErrorCode.BAD_MESSAGE, "seat is a seat index, all or spectator", 400)
    start, count = query.get("from", "0"), query.get("count", str(records.PAGE_MAX))
    if not (
        _DIGITS.fullmatch(start)
        and _DIGITS.fullmatch(count)
        and len(start + count) < 16
        and int(count) > 0
    ):
        return _refuse(ErrorCode.BAD_MESSAGE, "from and count are whole numbers", 400)
    try:
        replays: records.Replays = request.app.state.replays
        views_of = replays.views(record, seat, int(start), min(int(count), records.PAGE_MAX))
    except records.ReplayError as exc:
        log.error(
            "the record of %s game %s does not replay: %s",
            record["room"],
            record["game"],
            exc,
            extra=client(request.client),
        )
        return _refuse(
            ErrorCode.INTERNAL, f"This server's rules cannot replay that game: {exc}", 500
        )
    return JSONResponse(views_of)


async def rooms(request: Request) -> Response:
    """``/api/rooms``: POST creates a room, GET lists them."""
    if request.method == "POST":
        return await create_room(request)
    return await list_rooms(request)


async def list_rooms(request: Request) -> Response:
    instance = _instance(request.app)
    found = []
    for code in await instance.store.codes(limit=200):
        room = await instance.service.get(code)
        if room is not None:
            presence = await instance.store.presence(code)
            found.append(state_messages.room_info(room, presence, instance.service.clock()))
    return JSONResponse(found)


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The body, read no further than ``limit`` bytes; None if it is (or says it is) larger."""
    declared = request.headers.get("content-length")
    if declared is not None and (not _DIGITS.fullmatch(declared) or int(declared) > limit):
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _refuse(code: str, message: str, status: int) -> Response:
    return JSONResponse(error(code, message), status)


async def no_route(request: Request, exc: Exception) -> Response:
    """A path under ``/api`` that no endpoint serves, or a method an endpoint does not take:
    an error object like every other refusal of the API, not Starlette's plain text. (Other
    paths are the web client's, which answers for itself: server/web/client_files.py.)"""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        message = f"{request.method} is not allowed here"
        refusal = _refuse(ErrorCode.BAD_METHOD, message, 405)
    else:
        refusal = _refuse(ErrorCode.NOT_FOUND, "No such path in the API", exc.status_code)
    refusal.headers.update(exc.headers or {})
    return refusal


async def store_down(request: Request, exc: Exception) -> Response:
    """Every HTTP handler answers 503 (never 500) while the store cannot be reached."""
    log.warning("store unavailable for %s: %s", request.url.path, exc, extra=client(request.client))
    return _refuse(ErrorCode.UNAVAILABLE, "The room store is unavailable; try again", 503)


async def room_page(request: Request) -> Response:
    """A shared ``/r/CODE`` link: the web client's page, which reads the code from the address."""
    client: ClientFiles = request.app.state.client
    return client.page(request.headers)


async def _admit(websocket: WebSocket, instance: Instance) -> str | None:
    """Check a WebSocket before its upgrade. The client address it now counts against, or
    None if it was refused (with an HTTP status: browsers then see a failed connection)."""
    settings = instance.settings
    headers = websocket.headers
    scheme = websocket.scope["scheme"]
    if not origin_allowed(
        headers.get("origin"), headers.get("host"), scheme, settings.allowed_origins
    ):
        instance.metrics.errors["origin"] += 1  # not an error code: nothing is sent
        await websocket.close(CloseCode.POLICY)  # before accept: the client sees HTTP 403
        return None
    # Behind a trusted proxy (FORWARDED_ALLOW_IPS), uvicorn has put the forwarded address here.
    address = websocket.client.host if websocket.client is not None else "?"
    if not instance.sockets.take(address):
        cap = settings.max_connections_per_address
        instance.metrics.errors[ErrorCode.TOO_MANY_CONNECTIONS] += 1
        log.info(
            "refused a WebSocket from %s: %d open already", address, cap, extra=client(address)
        )
        message = f"At most {cap} connections from one address at once; close some first"
        refusal = _refuse(ErrorCode.TOO_MANY_CONNECTIONS, message, 429)
        await websocket.send_denial_response(refusal)
        return None
    return address


def _room_code(path: str) -> str | None:
    """The raw code of a ``/ws/{code}`` path (one non-empty segment), else None."""
    prefix, _, rest = path.partition("/ws/")
    if prefix or not rest or "/" in rest:
        return None
    return rest


async def room_socket(scope: Scope, receive: Receive, send: Send) -> None:
    """``/ws/{code}``, outside Starlette's middleware and routing (each of whose layers would
    hold a suspended coroutine frame for the connection's whole life): checked and accepted
    as an ASGI WebSocket, then spoken to through its protocol object directly (under another
    ASGI server, or ``PARLOR_PLAIN_ASGI``, through ASGI messages)."""
    websocket = WebSocket(scope, receive, send)
    raw_code = _room_code(scope["path"])
    if raw_code is None:
        await websocket.close()  # before accept: the client sees HTTP 403, as for any bad path
        return
    instance = _instance(scope["app"])
    # Under parlor serve, the protocol object frames are written to directly; under any other
    # ASGI server, plain ASGI messages (server/transport/asgi_socket.py).
    direct: WebSocketProtocol | None = scope.get("extensions", {}).get(SOCKET_EXTENSION)
    socket: WebSocketProtocol | AsgiSocket = (
        direct if direct is not None else AsgiSocket(receive, send)
    )
    address = await _admit(websocket, instance)
    if address is None:
        return
    fmt, subprotocol = choose(
        websocket.query_params.get("format"), websocket.scope.get("subprotocols", [])
    )
    conn = Connection(socket, fmt, instance.settings.send_queue)
    try:
        await websocket.accept(subprotocol=subprotocol)
        del websocket  # nothing of the handshake is kept for the connection's life
        await _converse(socket, raw_code, conn, instance, address)
    finally:
        instance.hub.detach(conn)
        instance.sockets.give_back(address)
        conn.stop()


async def _converse(
    socket: WebSocketProtocol | AsgiSocket,
    raw_code: str,
    conn: Connection,
    instance: Instance,
    peer: str,
) -> None:
    """Receive frames until the client disconnects; the session answers each one."""
    settings = instance.settings
    code = codes.normalize(raw_code)
    if code is None:
        conn.send(error(ErrorCode.NO_ROOM, "That is not a room code"))
        conn.close_after_pending(CloseCode.NO_ROOM, "no such room")
    session = Session(
        conn,
        code or "",
        instance.service,
        instance.hub,
        settings,
        instance.metrics,
        peer,
        lambda: instance.limit_clock(),
    )
    # Until it is bound to the room, a connection waits for frames no longer than this.
    join_by = asyncio.get_running_loop().time() + settings.join_timeout
    while True:
        if session.bound or conn.closing:
            message = await socket.receive()
        else:
            try:
                async with asyncio.timeout_at(join_by):
                    message = await socket.receive()
            except TimeoutError:
                session.join_timed_out()
                continue
        if message["type"] == "websocket.disconnect":
            return
        frame: Frame | None = message.get("bytes")  # type: ignore[assignment]
        if frame is None:
            frame = message.get("text")  # type: ignore[assignment]
        if frame is not None and code is not None:
            await session.handle(frame)


class ParlorApp(Starlette):
    """Starlette, with room WebSockets taken before the middleware stack (see
    :func:`room_socket`)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope["app"] = self
            await room_socket(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, store: Store | None = None) -> ParlorApp:
    settings = settings if settings is not None else Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        instance = Instance(settings, store)
        await instance.open()
        app.state.instance = instance
        try:
            yield
        finally:
            await instance.close()

    client = ClientFiles(settings.static_dir)
    api_routes = [
        Route("/games", games),
        # One route for both methods: a 405 on /api/rooms then names both (Allow).
        Route("/rooms", rooms, methods=["GET", "POST"]),
        Route("/rooms/{code}", room_summary),
        Route("/rooms/{code}/claim", claim_seat, methods=["POST"]),
        Route("/mine", your_games, methods=["POST"]),
        Route("/rooms/{code}/games/{number}/record", game_record),
        Route("/rooms/{code}/games/{number}/replay", game_replay),
        Route("/rooms/{code}/games/{number}/events", game_events),
    ]
    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        # JSON answers are made per request, so compressed per request (the larger ones: the
        # room list); the client's files come compressed already, and WebSockets never are.
        # No slash redirects in the API: its paths are exactly the documented ones.
        Mount(
            "/api",
            app=Router(api_routes, redirect_slashes=False),
            middleware=[Middleware(GZipMiddleware, minimum_size=1024)],
        ),
        Route("/r/{code}", room_page),
        Route("/r/{code}/replay/{number}", room_page),
        # WebSockets (/ws/{code}) never reach these routes: ParlorApp takes them first.
        Mount("/", client),
    ]
    app = ParlorApp(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={StoreError: store_down, 404: no_route, 405: no_route},
    )
    app.state.client = client
    app.state.replays = records.Replays()
    return app


__all__ = ["Format", "create_app", "origin_allowed"]

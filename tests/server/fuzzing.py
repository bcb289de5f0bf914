"""A wire fuzzer: hypothesis strategies for every client message and every HTTP request, and
the checks each answer must pass against a real server.

``tests/server/transport/test_fuzz.py`` runs it seeded and bounded; ``bench/fuzz.py`` runs the same
properties for minutes. Inputs are shaped like messages: a valid message of each type, made
from the room as it is (the seat's next ``seq``, a legal action, the next deal's commitment),
then mutated by hypothesis — fields set to arbitrary JSON or msgpack values (deep nesting,
integers far beyond 64 bits, NaN and the infinities, lone surrogates, control characters,
bytes and extension types where strings belong), fields dropped, unknown fields added, the
frame cut short, sent as the wrong kind of frame, or as text that is not UTF-8.

Each answer is checked against what docs/protocol.md says, with the server's own edge (the
frame decoder and the message models) as the oracle for the frames refused there: exactly one
``error`` with a documented code and a readable message (with the frame's ``seq`` when it had
one), or an ``ack`` of that ``seq``, or the documented answer to a good frame; a close only
with the code documented for the case; the connection still usable (a ``sync`` answered with a
``state``) unless it was closed; the room's stored version unchanged by a refusal; the other
rooms never touched; and no log record at ERROR or with a traceback. Rooms run with every turn
timer at least :data:`QUIET_TIMER` s and a takeover grace of an hour, so nothing changes a room
by itself while a test looks at it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import secrets
import typing
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

import httpx
import msgpack
import uvloop
from hypothesis import HealthCheck, given
from hypothesis import seed as hypothesis_seed
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pydantic import ValidationError
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from rules.codec import pack
from rules.registry import all_games
from server import codes, rooms
from server.errors import ErrorCode
from server.ops.config import Settings
from server.rooms import Phase, Room
from server.rooms.commands import pause_limit
from server.stores.memory_store import MemoryStore
from server.transport.protocol import (
    CLIENT_TYPES,
    SEQUENCED_TYPES,
    CloseCode,
    client_message,
    create_room_body,
)
from server.transport.wire import Format, FrameError, decode
from tests.server.driver import start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve

#: Every valid turn timer is at least this long, so no timer fires during a run.
QUIET_TIMER = 500.0
SETTINGS = TEST_SETTINGS.model_copy(update={"min_turn_timer": QUIET_TIMER, "away_grace": 3600.0})

#: Codes an ``error`` message on a WebSocket may carry (docs/protocol.md, "Error codes"): not
#: the HTTP API's own, nor ``internal`` or ``stale``.
WS_CODES = frozenset(ErrorCode) - {
    *(ErrorCode.INTERNAL, ErrorCode.STALE, ErrorCode.TOO_MANY_CONNECTIONS),
    *(ErrorCode.NOT_FOUND, ErrorCode.BAD_METHOD, ErrorCode.NO_GAME, ErrorCode.NOT_OVER),
}
#: The game every fuzzed room plays: tests/server/toygame.py (play or discard a card).
GAME = "toy"


class Clock:
    """The rate limits' clock: it moves only when the fuzzer moves it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# -- values --------------------------------------------------------------------------------------

SPECIAL_INTS = (
    *(0, 1, -1, 2, 3, 6, 7, 100, 255, 256, 1000, 1001, 2**31 - 1, 2**31, 2**32),
    *(2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, -(2**63), -(2**31)),
)
BEYOND_64_BITS = (2**64, 2**70, -(2**63) - 1, 10**40, -(10**40), 10**300)
SPECIAL_FLOATS = (
    *(math.nan, math.inf, -math.inf, -0.0, 0.0, 0.5, 1.0, 1e-300, 5e-324, 1e308),
    *(30.0, 499.9, QUIET_TIMER, 600.0, 600.5, 1e16),
)
SPECIAL_TEXTS = (
    *("", " ", "\x00", "\t\n", "\u200b", "\u202e", "\ufeff", "\x7f", "\u0085", "\U0010ffff"),
    *("toy", "play", "discard", "act", "join", "normal", "strong", "easy", "spectator", "all"),
    *("a" * 24, "a" * 25, "b" * 201, "%s%d", "{}", "[]", "null", "<b>x</b>", "../..", "😀" * 3),
)
#: Strings JSON can carry and no UTF-8 can: lone UTF-16 surrogates.
SURROGATES = ("\ud800", "\udfff", "a\udc80b", "\ud83d", "\ud800\ud800")


def _texts(surrogates: bool) -> st.SearchStrategy[str]:
    options = [
        st.text(max_size=12),
        st.text(st.characters(categories=["Cc", "Cf", "Zs", "Zl", "Zp", "Co"]), max_size=6),
        st.sampled_from(SPECIAL_TEXTS),
    ]
    if surrogates:
        options.append(st.sampled_from(SURROGATES))
        options.append(st.text(st.characters(categories=["Cs", "Ll"]), min_size=1, max_size=4))
    return st.one_of(options)


def _nested(depth: int) -> Any:
    value: Any = []
    for i in range(depth - 1):
        value = [value] if i % 2 else {"k": value}
    return value


def values(fmt: Format, max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Arbitrary values one frame of ``fmt`` can carry: for JSON any integer, NaN and the
    infinities (which Python's JSON reads), and lone surrogates; for msgpack 64-bit integers,
    bytes and extension types. Lists and objects nest, now and then just past the depth
    limit (32)."""
    json_ = fmt is Format.JSON
    if json_:
        ints = st.one_of(
            st.integers(),
            st.integers(min_value=-(2**200), max_value=2**200),
            st.sampled_from(SPECIAL_INTS + BEYOND_64_BITS),
        )
    else:
        ints = st.one_of(
            st.integers(min_value=-(2**63), max_value=2**64 - 1), st.sampled_from(SPECIAL_INTS)
        )
    floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(SPECIAL_FLOATS)
    texts = _texts(surrogates=json_)
    scalars = [st.none(), st.booleans(), ints, floats, texts]
    keys: st.SearchStrategy[Any] = texts
    if not json_:
        scalars.append(st.binary(max_size=12))
        scalars.append(
            st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8))
            | st.builds(msgpack.Timestamp, st.integers(0, 2**32 - 1), st.integers(0, 999_999_999))
        )
        keys = texts | st.binary(max_size=6)
    leaves = st.one_of(scalars)
    tree = st.recursive(
        leaves,
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(keys, kids, max_size=4),
        max_leaves=max_leaves,
    )
    return st.one_of(
        tree,
        tree,
        tree,
        st.integers(28, 36).map(_nested),
        st.integers(4000, 4200).map(lambda n: "x" * n),  # over the frame limit with the rest
    )


# -- messages ------------------------------------------------------------------------------------

#: The fields of each message type (docs/protocol.md), and the keys inside its object fields.
FIELDS: dict[str, tuple[str, ...]] = {
    "join": ("name", "key"),
    "resume": ("token",),
    "watch": (),
    "act": ("seq", "action", "seat"),
    "chat": ("seq", "text"),
    "options": ("seq", "options", "turn_timer"),
    "add_bot": ("seq", "level"),
    "bot_level": ("seq", "id", "level"),
    "kick": ("seq", "id"),
    "sit_out": ("seq", "id"),
    "give_host": ("seq", "id"),
    "lock": ("seq", "locked"),
    "start": ("seq",),
    "rematch": ("seq",),
    "commit": ("seq", "commitment", "hash"),
    "reveal": ("seq", "value"),
    "leave": ("seq",),
    "back": ("seq",),
    "handoff": ("seq",),
    "sync": (),
    "ping": (),
}
assert set(FIELDS) == CLIENT_TYPES, "every client message type is fuzzed"


def _inner() -> dict[str, tuple[str, ...]]:
    """The keys of the object fields: every action field and option of every game."""
    actions, options = {"type"}, set()
    for game in all_games().values():
        for model in typing.get_args(typing.get_args(game.action_type)[0]):
            actions |= set(model.model_fields)
        options |= set(game.options_model.model_fields)
    return {"action": tuple(sorted(actions)), "options": tuple(sorted(options))}


EXTRA_FIELDS = ("x", "seat", "id", "token", "type ", "Type", "__proto__", "constructor")


@dataclass(frozen=True)
class Case:
    """One fuzzed frame: a message of ``kind`` in ``fmt``, made from its valid form by ``ops``
    (each ``("set", field, value)``, ``("del", field)`` or ``("inner", field, key, value)``),
    then sent as ``frame``: ``"plain"``, ``"cut"`` (cut short at ``cut`` bytes),
    ``"other_kind"`` (a text frame on a msgpack connection or the other way round),
    ``"not_utf8"`` (a text frame that is not UTF-8), ``"list"`` (the message's values in a
    list), or ``"dup"`` (JSON naming a field twice, ``dup`` its second value)."""

    kind: str
    fmt: Format
    ops: tuple[tuple[Any, ...], ...] = ()
    frame: str = "plain"
    cut: int = 0
    dup: Any = None


def weighted(*options: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of ``options``, each drawn as often as its weight says; a failure shrinks towards
    the first."""
    table = [strategy for weight, strategy in options for _ in range(weight)]
    return st.integers(0, len(table) - 1).flatmap(lambda i: table[i])


def _typed(name: str, fmt: Format) -> st.SearchStrategy[Any]:
    """Values of the type a field has (docs/protocol.md), but any of them: what a client that
    gets the types right, and nothing else, may send."""
    text = _texts(surrogates=False)
    small = st.integers(-3, 12)
    wide = st.integers(-(2**63), 2**63 - 1) if fmt is Format.MSGPACK else st.integers()
    shapes: dict[str, st.SearchStrategy[Any]] = {
        "id": st.one_of(small, wide),
        "seat": st.one_of(small, wide, st.none()),
        "locked": st.booleans(),
        "level": st.sampled_from(["easy", "normal", "strong", "Easy", "hard", ""]) | text,
        "turn_timer": st.one_of(
            st.sampled_from([0, 0.0, QUIET_TIMER, 600, 1, -1, 601]),
            st.floats(allow_nan=True, allow_infinity=True),
            st.integers(-(2**63), 2**63 - 1),
        ),
        "hash": st.text("0123456789abcdefABCDEF", min_size=62, max_size=66) | text,
        "value": st.text("0123456789abcdefABCDEF", min_size=62, max_size=66) | text,
        "commitment": st.text("0123456789abcdef", min_size=63, max_size=65) | text,
        "key": st.text("abcXYZ019_-+/=. ", min_size=14, max_size=66) | text,
        "token": st.text("abcXYZ019_-+/=. ", min_size=0, max_size=66) | text,
        "action": st.dictionaries(st.sampled_from(_inner()["action"]) | text, values(fmt, 4)),
        "options": st.dictionaries(st.sampled_from(_inner()["options"]) | text, values(fmt, 4)),
    }
    return shapes.get(name, text)


def _ops(kind: str, fmt: Format) -> st.SearchStrategy[tuple[tuple[Any, ...], ...]]:
    """Up to three changes to the valid message of ``kind``: a field set to another value of
    its type (the seq moved by a step), set to anything, dropped, or added; a key in an object
    field (an action, options) set to anything."""
    fields = ("type", *FIELDS[kind])
    value, json_ = values(fmt), fmt is Format.JSON
    typed = [
        st.tuples(st.just("set"), st.just(name), _typed(name, fmt))
        for name in FIELDS[kind]
        if name != "seq"
    ]
    choices: list[tuple[int, st.SearchStrategy[Any]]] = [
        (2, st.tuples(st.just("set"), st.sampled_from(fields), value)),
        (1, st.tuples(st.just("del"), st.sampled_from(fields))),
        (1, st.tuples(st.just("set"), st.sampled_from(EXTRA_FIELDS) | _texts(json_), value)),
    ]
    if typed:
        choices.append((4, st.one_of(typed)))
    if "seq" in FIELDS[kind]:
        steps = st.sampled_from([-1, 1, 2, -1000, 999, 1000, 1001, 2**53])
        choices.append((2, st.tuples(st.just("seq+"), steps)))
    for name in FIELDS[kind]:
        if name in ("action", "options"):
            keys = st.sampled_from(_inner()[name]) | _texts(fmt is Format.JSON)
            choices.append((3, st.tuples(st.just("inner"), st.just(name), keys, value)))
    return st.lists(weighted(*choices), max_size=3).map(tuple)


#: The malformed frames a case may be. A text frame that is not UTF-8 is answered by Parlor's
#: own WebSocket protocol (server/transport/serving.py: 1007 and a rate-limited INFO line);
#: stock uvicorn (PARLOR_PLAIN_ASGI=1) logs it as an ERROR with a traceback, so that run
#: leaves it out.
MALFORMED = tuple(
    f
    for f in ("cut", "other_kind", "not_utf8", "list", "dup")
    if f != "not_utf8" or not TEST_SETTINGS.plain_asgi
)


def cases(kind: str) -> st.SearchStrategy[Case]:
    """Fuzzed frames of one message type, in both formats."""

    def of(fmt: Format) -> st.SearchStrategy[Case]:
        frames = weighted(
            (16, st.just("plain")),
            *((1, st.just(f)) for f in MALFORMED),
        )
        dup = values(fmt, max_leaves=3)
        return st.builds(
            Case, st.just(kind), st.just(fmt), _ops(kind, fmt), frames, st.integers(0, 60), dup
        )

    return of(Format.JSON) | of(Format.MSGPACK)


def mutate(base: dict[str, Any], ops: Sequence[tuple[Any, ...]]) -> dict[Any, Any]:
    message: dict[Any, Any] = dict(base)
    for op in ops:
        if op[0] == "set":
            message[op[1]] = op[2]
        elif op[0] == "seq+":
            seq = message.get("seq")
            message["seq"] = seq + op[1] if type(seq) is int else op[1]
        elif op[0] == "del":
            message.pop(op[1], None)
        else:
            _, name, key, value = op
            inner = message.get(name)
            inner = dict(inner) if isinstance(inner, dict) else {}
            inner[key] = value
            message[name] = inner
    return message


@dataclass(frozen=True)
class Frame:
    """What is sent, how, and what the server's edge makes of it."""

    data: bytes | str
    #: Send ``data`` (bytes) in a text frame.
    text: bool
    #: The code the edge refuses it with (None: it passes the edge), predicted by running the
    #: server's own decoder and models on it; "close" for a frame the WebSocket layer refuses.
    edge: str | None
    #: The message as decoded, when it decodes.
    message: dict[str, Any] | None


def _json_text(value: Any) -> str:
    # ensure_ascii: a lone surrogate is written as its \\ud800 escape, as a hostile client would.
    return json.dumps(value, ensure_ascii=True, allow_nan=True)


def encode(case: Case, base: dict[str, Any], max_frame: int) -> Frame:
    """The frame ``case`` sends, made from the valid message ``base``."""
    message = mutate(base, case.ops)
    data: bytes | str
    if case.fmt is Format.JSON:
        data = _json_text(message)
        if case.frame == "dup":
            data = data[:-1] + (", " if message else "") + '"type": ' + _json_text(case.dup) + "}"
    else:
        data = pack(message)
    text = False
    if case.frame == "list":
        listed = list(message.values())
        data = _json_text(listed) if case.fmt is Format.JSON else pack(listed)
    elif case.frame == "cut":
        data = data[: min(case.cut, max(0, len(data) - 1))]
    elif case.frame == "other_kind":
        # A JSON text as bytes (a binary frame), or msgpack bytes read as text (a text frame).
        data = (
            data.encode("utf-8", "surrogatepass")
            if isinstance(data, str)
            else data.decode("latin-1")
        )
    elif case.frame == "not_utf8":
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        data, text = raw[: case.cut] + b"\xff\xc0" + raw[case.cut :], True
    return Frame(data, text, *_edge(data, text, case.fmt, max_frame))


def _edge(
    data: bytes | str, text: bool, fmt: Format, max_frame: int
) -> tuple[str | None, dict[str, Any] | None]:
    """What the server's edge (server/web/session.py ``Session.handle``) makes of a frame."""
    if text and isinstance(data, bytes):
        try:
            data = data.decode()
        except UnicodeDecodeError:
            return "close", None
    size = len(data) if isinstance(data, bytes) else len(data.encode(errors="replace"))
    if size > max_frame:
        return ErrorCode.TOO_BIG, None
    try:
        message = decode(data, fmt)
    except FrameError:
        return ErrorCode.BAD_FRAME, None
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        return ErrorCode.UNKNOWN_TYPE, message
    try:
        client_message.validate_python(message)
    except ValidationError:
        return ErrorCode.BAD_MESSAGE, message
    return None, message


# -- the server, its rooms and connections -------------------------------------------------------


class Failure(AssertionError):
    """An answer that is not what docs/protocol.md says."""


def check(condition: bool, what: str, *context: Any) -> None:
    if not condition:
        raise Failure(f"{what}: " + "; ".join(repr(c)[:800] for c in context))


async def open_client(base: str, code: str, fmt: Format) -> Client:
    """A client that reads everything sent to it at once (no high-water mark): a connection
    the fuzzer does not read for a while never makes the server drop it as too slow."""
    return await Client.open(base, code, fmt.value, max_queue=None)


@dataclass
class Seat:
    """A seat of a fuzzed room, and this fuzzer's connections to it (one per format)."""

    room: str
    token: str
    id: int
    conns: dict[Format, Client] = field(default_factory=dict)


@dataclass
class Table:
    """A room this fuzzer owns: its code and its two people (the host first)."""

    code: str
    host: Seat
    guest: Seat

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return self.host, self.guest


#: Which room and connection each message type is sent to: the lobby (host, guest and a bot),
#: the game in play (two people), or a game over; ``fresh`` is a connection that has not
#: entered yet, ``mover`` the seat to act.
TARGETS: dict[str, tuple[str, str]] = {
    "join": ("lobby", "fresh"),
    "resume": ("lobby", "fresh"),
    "watch": ("lobby", "fresh"),
    "act": ("playing", "mover"),
    "chat": ("playing", "host"),
    "options": ("lobby", "host"),
    "add_bot": ("lobby", "host"),
    "bot_level": ("lobby", "host"),
    "kick": ("lobby", "host"),
    "sit_out": ("playing", "host"),
    "give_host": ("lobby", "host"),
    "lock": ("lobby", "host"),
    "start": ("lobby", "host"),
    "rematch": ("finished", "host"),
    "commit": ("lobby", "host"),
    "reveal": ("lobby", "host"),
    "leave": ("lobby", "guest"),
    "back": ("playing", "guest"),
    "handoff": ("playing", "guest"),
    "sync": ("playing", "guest"),
    "ping": ("playing", "guest"),
}
assert set(TARGETS) == CLIENT_TYPES
#: The rooms every fuzzer keeps; the bystander is never sent anything.
TABLES = ("lobby", "playing", "finished", "bystander")


class Fuzzer:
    """One real server (in this process, on the running event loop), the rooms fuzzed frames
    go to, a bystander room nobody fuzzes, and the checks of each answer.

    A table is made again (a new room) when an accepted command changed what the next example
    expects of it: a seat left or was kicked, the game started or ended, the host changed."""

    def __init__(
        self,
        server: RunningServer,
        clock: Clock,
        records: Callable[[], list[logging.LogRecord]],
        game: str = GAME,
    ) -> None:
        self.server = server
        #: The game the fuzzed rooms play: the toy game for every message type, the real ones
        #: for their own actions and options.
        self.game = game
        self.clock = clock
        self.records = records
        self.settings: Settings = server.instance.settings
        self.tables: dict[str, Table] = {}
        self.fresh: dict[Format, Client] = {}
        #: Strikes each connection has had (it is closed with 1008 at ``max_strikes``).
        self.strikes: weakref.WeakKeyDictionary[Client, int] = weakref.WeakKeyDictionary()
        self.http = httpx.AsyncClient(base_url=server.http, timeout=10)
        self.examples = 0
        self.rebuilt = 0
        #: Answers seen, by (message type or endpoint, outcome): what a run covered.
        self.outcomes: dict[tuple[str, str], int] = {}
        self._keys = 0
        self._fresh_since: dict[Format, float] = {}

    @classmethod
    @contextlib.asynccontextmanager
    async def running(
        cls,
        handler: logging.Handler,
        records: Callable[[], list[logging.LogRecord]],
        settings: Settings = SETTINGS,
        game: str = GAME,
    ) -> AsyncIterator[Fuzzer]:
        """A fuzzer on a new server, its tables made (a real game has no finished table: its
        games are long)."""
        clock = Clock()
        async with serve(settings, MemoryStore()) as server:
            server.instance.limit_clock = clock
            # uvicorn's loggers, set up by the server as it starts, do not propagate: their
            # records go to ``handler`` too, at INFO, as deployed (`parlor serve` runs uvicorn
            # at INFO): its lines about connections are lines a client causes.
            uvicorn = logging.getLogger("uvicorn")
            uvicorn.addHandler(handler)
            logging.getLogger("uvicorn.error").setLevel(logging.INFO)
            fuzzer = cls(server, clock, records, game)
            try:
                for name in TABLES:
                    if name != "finished" or game == GAME:
                        await fuzzer.rebuild(name)
                yield fuzzer
            finally:
                await fuzzer.close()
                uvicorn.removeHandler(handler)

    async def close(self) -> None:
        for table in self.tables.values():
            await self._drop(table)
        for client in self.fresh.values():
            await client.close()
        await self.http.aclose()

    def count(self, what: str, outcome: str) -> None:
        self.outcomes[(what, outcome)] = self.outcomes.get((what, outcome), 0) + 1

    # -- tables ----------------------------------------------------------------------------------

    async def rebuild(self, name: str) -> None:
        """Make the table ``name`` (again): a new room, its people seated, in its phase."""
        old = self.tables.pop(name, None)
        if old is not None:
            await self._drop(old)
            self.rebuilt += 1
        if name == "lobby":  # the connections that have not entered yet are to the lobby
            for fresh in self.fresh.values():
                await fresh.close()
            self.fresh.clear()
        options = {"hand": 6} if self.game == GAME else None
        code = await create_room(self.server.http, self.game, options, turn_timer=0)
        clients = []
        for who in ("Host", "Guest"):
            client = await open_client(self.server.ws, code, Format.MSGPACK)
            await client.join(who)
            clients.append(client)
        host = clients[0]
        if name == "lobby":
            await host.send({"type": "add_bot", "level": "easy"})
            await host.expect("ack")
        elif name in ("playing", "finished"):
            await start(host)
        if name == "finished":
            await self._finish(code, clients)
        seats = [
            Seat(code, c.welcome["token"], c.welcome["id"], {Format.MSGPACK: c})  # type: ignore[index]
            for c in clients
        ]
        self.tables[name] = Table(code, *seats)

    async def _finish(self, code: str, clients: list[Client]) -> None:
        """Play the game to its end, each seat its first legal move."""
        while True:
            room = await self._load(code)
            if room.phase is Phase.FINISHED:
                return
            index = min(room.game.to_act(room.state))
            action = room.game.dump_action(room.game.legal_actions(room.state, index)[0])
            mover = clients[index]
            seq = await mover.act(action, seq=room.seats[index].last_seq + 1)
            await mover.until(lambda m, s=seq: m["type"] == "ack" and m["seq"] == s)

    async def _drop(self, table: Table) -> None:
        for seat in table.seats:
            for client in seat.conns.values():
                with contextlib.suppress(Exception):
                    await client.close()
            seat.conns.clear()

    async def load(self, name: str) -> Room:
        """The table's room as the store holds it."""
        return await self._load(self.tables[name].code)

    async def _load(self, code: str) -> Room:
        stored = await self.server.instance.store.load(code)
        assert stored is not None, code
        return rooms.decode(stored.data)

    async def versions(self) -> dict[str, int]:
        """Each table's version in the store."""
        found = {}
        for name, table in self.tables.items():
            stored = await self.server.instance.store.load(table.code)
            assert stored is not None, name
            found[name] = stored.version
        return found

    async def connection(self, seat: Seat, fmt: Format) -> Client:
        """The seat's connection in ``fmt``, resumed afresh if it has none (or it closed)."""
        client = seat.conns.get(fmt)
        if client is not None and client.ws.close_code is None:
            return client
        client = await open_client(self.server.ws, seat.room, fmt)
        await client.resume(seat.token)
        seat.conns[fmt] = client
        return client

    async def fresh_connection(self, fmt: Format) -> Client:
        """A connection to the lobby that has not entered: made anew once one has, or closed,
        and well before ``join_timeout`` would close it."""
        client = self.fresh.get(fmt)
        now = asyncio.get_running_loop().time()
        if (
            client is None
            or client.ws.close_code is not None
            or client.welcome is not None
            or now - self._fresh_since[fmt] > self.settings.join_timeout / 2
        ):
            if client is not None:
                await client.close()
            client = await open_client(self.server.ws, self.tables["lobby"].code, fmt)
            self.fresh[fmt], self._fresh_since[fmt] = client, now
        return client

    # -- the valid message of each type, as the room is now --------------------------------------

    async def base(self, kind: str, name: str, seat: Seat | None) -> dict[str, Any]:
        table, room = self.tables[name], await self.load(name)
        index = None if seat is None else room.index_of(seat.id)
        seq = {}
        if index is not None and kind in SEQUENCED_TYPES:
            seq = {"seq": room.seats[index].last_seq + 1}
        bots = [s.id for s in room.seats if s.bot]
        if kind == "join":
            self._keys += 1
            return {"type": "join", "name": "Fuzz", "key": f"fuzz-key-{self._keys:08d}"}
        if kind == "resume":
            return {"type": "resume", "token": table.guest.token}
        if kind == "act" and index is not None:
            legal = room.game.legal_actions(room.state, index)
            action = room.game.dump_action(legal[0]) if legal else {"type": "play", "card": 1}
            return {"type": "act", **seq, "action": action}
        fields: dict[str, Any] = {
            "chat": {"text": "hello"},
            "options": {"options": dict(room.options), "turn_timer": 0},
            "add_bot": {"level": "strong"},
            "bot_level": {"id": bots[0] if bots else 99, "level": "strong"},
            "kick": {"id": bots[0] if bots else 99},
            "sit_out": {"id": table.guest.id},
            "give_host": {"id": table.guest.id},
            "lock": {"locked": True},
            "commit": {
                "commitment": room.next_commitment,
                "hash": hashlib.sha256(secrets.token_bytes(32)).hexdigest(),
            },
            "reveal": {"value": secrets.token_hex(32)},
        }.get(kind, {})
        return {"type": kind, **seq, **fields}

    # -- one WebSocket frame ---------------------------------------------------------------------

    async def check_frame(self, case: Case) -> None:
        """Send one fuzzed frame where its type goes and check the answer (see the module's
        docstring)."""
        self.examples += 1
        self.clock.now += 1.0  # every limit has a second more: a fuzzed frame is no flood
        logged = len(self.records())
        name, role = TARGETS[case.kind]
        table = self.tables[name]
        seat: Seat | None = None
        if role == "fresh":
            client = await self.fresh_connection(case.fmt)
        else:
            if role == "mover":
                room = await self.load(name)
                turn = sorted(room.game.to_act(room.state))
                seat = table.seats[turn[0]] if turn else table.host
            else:
                seat = table.host if role == "host" else table.guest
            client = await self.connection(seat, case.fmt)
        frame = encode(case, await self.base(case.kind, name, seat), self.settings.max_frame)
        bound = client.welcome is not None
        await self._drain(client)
        before = await self.versions()
        heard = await self._exchange(client, frame, bound)
        closed = client.ws.close_code
        errors = [m for m in heard if m["type"] == "error"]
        acks = [m for m in heard if m["type"] == "ack"]
        outcome = errors[0]["code"] if errors else "accepted"
        self.count(case.kind, f"{outcome} (closed {closed})" if closed else outcome)
        context = (case, frame, heard, closed)

        for error in errors:
            check(error["code"] in WS_CODES, "an undocumented error code", *context)
            check(
                isinstance(error["message"], str) and error["message"].strip() != "",
                "an error without a readable message",
                *context,
            )
        check(len(errors) <= 1, "one frame, one error at most", *context)
        if frame.edge == "close":
            check(closed == 1007 and not errors, "not UTF-8 in a text frame: 1007", *context)
        elif frame.edge is not None:
            # Refused at the edge: with the code the server's own decoder and models predict,
            # as a strike, and nothing applied.
            check(
                [e["code"] for e in errors] == [frame.edge] and not acks,
                f"the edge refuses this frame with {frame.edge}",
                *context,
            )
            strikes = self.strikes[client] = self.strikes.get(client, 0) + 1
            if frame.edge == ErrorCode.TOO_BIG:
                check(closed == CloseCode.TOO_BIG, "too_big, then close 1009", *context)
            elif strikes >= self.settings.max_strikes:
                check(closed == CloseCode.POLICY, "the last strike closes with 1008", *context)
            else:
                check(closed is None, "a strike below the limit keeps the connection", *context)
        else:
            assert frame.message is not None
            self._check_passed(frame.message, client, heard, bound, context)
        seq = frame.message.get("seq") if frame.message is not None else None
        if (
            errors
            and type(seq) is int
            and frame.edge not in (ErrorCode.BAD_FRAME, ErrorCode.TOO_BIG)
        ):
            check(errors[0].get("seq") == seq, "a refusal names the frame's seq", *context)
        after = await self.versions()
        changed = {n for n in before if before[n] != after[n]}
        if errors or frame.edge is not None:
            check(not changed, "a refused frame changed a room", before, after, *context)
        else:
            check(changed <= {name}, "another room changed", before, after, *context)
        self.check_logs(logged, context)
        if acks or (case.kind in ("join", "resume", "watch") and client.welcome is not None):
            await self._repair(name)

    def _check_passed(
        self,
        sent: dict[str, Any],
        client: Client,
        heard: list[dict[str, Any]],
        bound: bool,
        context: tuple[Any, ...],
    ) -> None:
        """A frame that passed the edge: the room's own answer."""
        codes = [m["code"] for m in heard if m["type"] == "error"]
        acks = [m for m in heard if m["type"] == "ack"]
        kind = sent["type"]
        if kind == "ping":
            pongs = sum(m["type"] == "pong" for m in heard)
            check(pongs == 2 and not codes, "ping: pong", *context)
        elif kind in ("join", "resume", "watch"):
            if bound:
                check(codes == ["already_joined"], "a second entry: already_joined", *context)
            else:
                welcomed = any(m["type"] == "welcome" for m in heard)
                check(welcomed != bool(codes), "an entry: welcome or one error", *context)
        elif not bound:
            check(codes == ["not_joined"], "before entering: not_joined", *context)
        elif kind == "sync":
            check(not codes, "sync: a state", *context)
        else:
            check(len(acks) + len(codes) == 1, "a seated command: one ack or one error", *context)
            if acks:
                check(acks[0]["seq"] == sent["seq"], "the ack names the seq", *context)
        closed = client.ws.close_code
        if closed is not None:
            left = kind == "leave" and acks and any(m["type"] == "left" for m in heard)
            check(bool(left) and closed == CloseCode.NORMAL, "only leave closes: 1000", *context)
        elif bound:
            # Still usable: the marker sync was answered.
            check(any(m["type"] == "state" for m in heard), "sync: a state", *context)

    async def _drain(self, client: Client) -> None:
        """Read what the connection was sent while the fuzzer looked elsewhere (states and
        chat of other seats' commands), up to the pong of a ping."""
        with contextlib.suppress(ConnectionClosed):
            await client.send({"type": "ping"})
            await client.expect("pong", timeout=10)

    async def _exchange(self, client: Client, frame: Frame, bound: bool) -> list[dict[str, Any]]:
        """Send the frame, then a ping; everything heard until that ping's pong, or the close.
        A connection that had entered must still be usable: it is sent a sync too, and heard
        until a state comes (the sync's answer comes after the reload it asks for, which may be
        after the pong)."""
        heard: list[dict[str, Any]] = []
        markers = [{"type": "sync"}, {"type": "ping"}] if bound else [{"type": "ping"}]
        with contextlib.suppress(ConnectionClosed):
            if frame.text:
                await client.ws.send(frame.data, text=True)
            else:
                await client.send_raw(frame.data)
            for marker in markers:
                await client.send(marker)
        pongs = 1 + (frame.edge is None and (frame.message or {}).get("type") == "ping")
        try:
            while pongs or (bound and not any(m["type"] == "state" for m in heard)):
                message = await client.recv(timeout=10)
                heard.append(message)
                pongs -= message["type"] == "pong"
        except ConnectionClosed:
            pass
        except TimeoutError:
            raise Failure(f"no answer within 10 s to {frame!r}; heard {heard!r}") from None
        return heard

    def check_logs(self, since: int, context: tuple[Any, ...]) -> None:
        bad = [r for r in self.records()[since:] if r.levelno >= logging.ERROR or r.exc_info]
        check(not bad, "an ERROR line or a traceback", [r.getMessage() for r in bad], *context)

    async def _repair(self, name: str) -> None:
        """After an accepted command: make the table again if the next example would not find
        it as it expects (the lobby's host, guest and bot; the game in play, both people there
        and someone to act; the game over)."""
        room, table = await self.load(name), self.tables[name]
        people = [s.id for s in room.seats if not s.bot]
        ok = room.host == table.host.id and people[:2] == [table.host.id, table.guest.id]
        ok = ok and not any(s.away for s in room.seats) and room.sealing is None
        if name == "lobby":
            ok = ok and room.phase is Phase.LOBBY and len(room.seats) < 8
            ok = ok and any(s.bot for s in room.seats)
        elif name == "playing":
            ok = ok and room.phase is Phase.PLAYING and not any(s.bot for s in room.seats)
            # A pause (Number Swap's round end) ends by itself: the room would change.
            ok = ok and pause_limit(room) is None
        else:
            ok = ok and room.phase is Phase.FINISHED
        ok = ok and all(c.ws.close_code is None for s in table.seats for c in s.conns.values())
        if not ok:
            await self.rebuild(name)

    # -- one HTTP request ------------------------------------------------------------------------

    async def check_request(self, request: Request) -> None:
        """Send one fuzzed request and check its answer: a documented status; from the API,
        an error as a JSON error object with a code and a readable message; no room changed
        but by a creation; no ERROR line."""
        self.examples += 1
        self.clock.now += 1.0
        logged = len(self.records())
        before = await self.versions()
        url = request.url(self)
        response = await self.http.request(request.method, url, content=request.body)
        status = response.status_code
        context = (request, url, status, response.text[:300])
        self.count(request.endpoint, f"{request.method} {status}")
        page = request.endpoint in ("page", "replay_page")
        if request.slashed:
            allowed = frozenset({404, 405})
        elif request.dotted:
            allowed = STATUSES[request.endpoint] | {200, 404, 405}
        elif request.verb in ("", "HEAD"):
            allowed = STATUSES[request.endpoint] | {200}
            if request.endpoint == "create" and request.verb == "HEAD":
                allowed = frozenset({200})  # the list of rooms, without its body
        else:
            allowed = frozenset({405})
        check(status in allowed, f"a status in {sorted(allowed)}", *context)
        if request.method == "HEAD":
            check(response.content == b"", "HEAD: no body", *context)
        elif status >= 400 and response.request.url.path.startswith("/api/"):
            # The API refuses with error objects; other paths are the web client's (its 404 and
            # 405 are plain text).
            check(
                response.headers.get("content-type", "").startswith("application/json"),
                "an error is a JSON object",
                *context,
            )
            body = response.json()
            check(
                isinstance(body, dict)
                and body.get("type") == "error"
                and body.get("code") in set(ErrorCode)
                and isinstance(body.get("message"), str)
                and body["message"].strip() != "",
                "an error object with a code and a readable message",
                *context,
            )
            if request.endpoint == "create" and request.method == "POST" and status == 400:
                expected = _create_refusal(request.body)
                if expected is not None:
                    check(body["code"] == expected, f"refused {expected}", *context)
        elif status >= 400:
            refusable = request.verb != "" or request.slashed or request.dotted
            check(refusable, "the web client's refusal", *context)
        elif request.endpoint == "metrics":
            check("parlor_" in response.text, "Prometheus text", *context)
        elif page:
            check("<html" in response.text.lower(), "the web client's page", *context)
        else:
            response.json()
        after = await self.versions()
        check(before == after, "a request changed a room", before, after, *context)
        self.check_logs(logged, context)

    # -- one WebSocket opened on any path and query ----------------------------------------------

    async def check_entry(self, entry: Entry) -> None:
        """A WebSocket to any ``/ws/…`` path and query: refused at the upgrade with 403 (a path
        that is no room socket), or accepted; then a room code that is none is answered
        ``no_room`` and closed 4004, and a room's code takes a ``watch``, in the format the
        subprotocol or the query asked for."""
        self.examples += 1
        self.clock.now += 1.0
        logged = len(self.records())
        before = await self.versions()
        code = entry.code
        code = (
            _as_typed(self.tables[code[0]].code, code[1]) if isinstance(code, tuple) else str(code)
        )
        query = "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in entry.query)
        path = f"/ws/{_quoted(code)}" + (f"?{query}" if query else "")
        code = unquote(_quoted(code))  # the code as the server reads the path
        context: tuple[Any, ...] = (entry, path)
        fmt = entry.format()
        try:
            ws = await connect(
                self.server.ws + path,
                max_size=2**20,
                compression=None,
                subprotocols=list(entry.subprotocols) or None,  # type: ignore[arg-type]
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            self.count("ws entry", f"http {status}")
            check(status == 403 and ("/" in code or code == ""), "a 403 at the upgrade", *context)
        else:
            client = Client(ws, fmt.value)
            normal = codes.normalize(code)
            if normal is not None:
                await client.send({"type": "watch"})
            try:
                message = await client.recv(10)
            except ConnectionClosed:
                message = {"type": "closed"}
            self.count(
                "ws entry",
                message.get("code", "") if message["type"] == "error" else message["type"],
            )
            context = (*context, message)
            if normal in {t.code for t in self.tables.values()}:
                check(message["type"] == "welcome", "a watch is welcome", *context)
            else:
                check(message.get("code") == "no_room", "no_room", *context)
                with contextlib.suppress(ConnectionClosed):
                    await client.recv(10)
                check(client.ws.close_code == CloseCode.NO_ROOM, "then 4004", *context)
            await client.close()
        after = await self.versions()
        check(before == after, "opening a WebSocket changed a room", before, after, *context)
        self.check_logs(logged, context)


def _create_refusal(body: bytes) -> str | None:
    """The code ``POST /api/rooms`` refuses ``body`` with when the body alone decides it."""
    try:
        create_room_body.validate_python(json.loads(body or b"{}"))
    except (ValueError, RecursionError):  # ValidationError is a ValueError
        return ErrorCode.BAD_MESSAGE
    return None


# -- HTTP requests -------------------------------------------------------------------------------

#: The statuses each endpoint may answer to its documented method (docs/protocol.md, "HTTP
#: API"), besides 200 (and 404 for a path part holding a ``/``, which makes it another path).
STATUSES: dict[str, frozenset[int]] = {
    "create": frozenset({201, 400, 413}),
    "room": frozenset({404}),
    "rooms": frozenset(),
    "record": frozenset({404, 409}),
    "replay": frozenset({400, 404, 409}),
    "events": frozenset({400, 404}),
    "games": frozenset(),
    "healthz": frozenset(),
    "metrics": frozenset(),
    "page": frozenset(),
    "replay_page": frozenset(),
}
ENDPOINTS = tuple(STATUSES)
#: Each endpoint's method (G: GET, P: POST) and path.
PATHS = {
    "create": "P/api/rooms",
    "room": "G/api/rooms/{code}",
    "rooms": "G/api/rooms",
    "record": "G/api/rooms/{code}/games/{number}/record",
    "replay": "G/api/rooms/{code}/games/{number}/replay",
    "events": "G/api/rooms/{code}/games/{number}/events",
    "games": "G/api/games",
    "healthz": "G/healthz",
    "metrics": "G/metrics",
    "page": "G/r/{code}",
    "replay_page": "G/r/{code}/replay/{number}",
}
#: The query parameters each endpoint reads.
QUERY: dict[str, tuple[str, ...]] = {"replay": ("seat", "from", "count"), "events": ("since",)}


def _as_typed(code: str, how: str) -> str:
    """A room code as a person may type it (case and dashes do not matter)."""
    return {"as is": code, "lower": code.lower(), "dashed": f"{code[:2]}-{code[2:]}"}[how]


def _quoted(value: Any) -> str:
    """A path part or query value as a client may send it: percent-encoded UTF-8, a lone
    surrogate as bytes no UTF-8 decoder takes (``%ED%A0%80``), ``/`` included."""
    text = value if isinstance(value, str) else str(value)
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


@dataclass(frozen=True)
class Request:
    """One fuzzed HTTP request to ``endpoint``: its method (``""``: the documented one), its
    path parts (``code``: ``(table, how it is typed)`` for a room this fuzzer holds, else any
    text; ``number``: a game number or any text), its query (``(name, value)`` pairs in
    order, names repeated or unknown) and, for a creation, its body."""

    endpoint: str
    code: Any = ("finished", "as is")
    number: Any = 1
    query: tuple[tuple[Any, Any], ...] = ()
    body: bytes = b""
    verb: str = ""

    @property
    def method(self) -> str:
        return self.verb or {"G": "GET", "P": "POST"}[PATHS[self.endpoint][0]]

    def _parts(self) -> list[str]:
        path, parts = PATHS[self.endpoint], []
        if "{code}" in path and not isinstance(self.code, tuple):
            parts.append(str(self.code))
        if "{number}" in path:
            parts.append(str(self.number))
        return parts

    @property
    def slashed(self) -> bool:
        """Whether a path part is empty or holds a ``/``: the path is then no endpoint's (404),
        or another one's."""
        return any("/" in p or p == "" for p in self._parts())

    @property
    def dotted(self) -> bool:
        """Whether a path part is a dot segment, which a client may resolve (or not)."""
        return any(p in (".", "..") for p in self._parts())

    def url(self, fuzzer: Fuzzer) -> str:
        code = self.code
        if isinstance(code, tuple):
            code = _as_typed(fuzzer.tables[code[0]].code, code[1])
        path = PATHS[self.endpoint][1:].replace("{code}", _quoted(code))
        path = path.replace("{number}", _quoted(self.number))
        query = "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in self.query)
        return path + (f"?{query}" if query else "")


def _path_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        _texts(surrogates=True),
        st.integers(-(2**70), 2**70),
        st.sampled_from(["0", "1", "2", "01", "+1", "-1", " 1", "1.0", "1e3", "²", "٣", "9" * 20]),
        st.sampled_from(["a/b", "..", ".", "%", "%00", "?", "#", ";", "\\", "/"]),
    )


def _room_codes() -> st.SearchStrategy[Any]:
    tables = st.tuples(
        st.sampled_from(["finished", "playing", "lobby"]),
        st.sampled_from(["as is", "lower", "dashed"]),
    )
    others = st.sampled_from(["ZZZZZ", "AAAAA", "22222"])
    return weighted((6, tables), (3, _path_values()), (1, others))


def _query_values() -> st.SearchStrategy[Any]:
    good = st.sampled_from(["0", "1", "all", "spectator", "", "2", "500", "501", "9" * 15])
    return weighted((6, good), (1, st.integers(-5, 5)), (3, _path_values()), (1, st.just("9" * 16)))


def _body_ops() -> st.SearchStrategy[tuple[tuple[Any, ...], ...]]:
    """Changes to a valid room creation, as :func:`_ops` makes to a message."""
    value = values(Format.JSON)
    fields = st.sampled_from(["game", "options", "turn_timer", "key"])
    games = st.sampled_from([GAME, "numberswap", "warp99", "floor", "Toy", "", "chess"])
    typed = st.one_of(
        st.tuples(st.just("set"), st.just("game"), games | _texts(False)),
        *(
            st.tuples(st.just("set"), st.just(name), _typed(name, Format.JSON))
            for name in ("options", "turn_timer", "key")
        ),
    )
    inner = st.sampled_from(["hand", "x"]) | _texts(True)
    return st.lists(
        weighted(
            (4, typed),
            (2, st.tuples(st.just("set"), fields, value)),
            (1, st.tuples(st.just("del"), fields)),
            (1, st.tuples(st.just("set"), _texts(True), value)),
            (2, st.tuples(st.just("inner"), st.just("options"), inner, value)),
        ),
        max_size=3,
    ).map(tuple)


def _bodies() -> st.SearchStrategy[bytes]:
    """Bodies of ``POST /api/rooms``: a valid one mutated, or not JSON at all, or too big."""

    def text_of(ops: tuple[tuple[Any, ...], ...], key: int) -> bytes:
        base = {
            "game": GAME,
            "options": {"hand": 2},
            "turn_timer": 0,
            "key": f"fuzz-room-{key:010d}",
        }
        return _json_text(mutate(base, ops)).encode()

    mutated = st.builds(text_of, _body_ops(), st.integers(0, 2**32))
    odd = [b"", b"null", b"[]", b"{", b'{"game": "toy"', b"\xff\xfe{}", b"[" * 5000, b"NaN"]
    return weighted(
        (8, mutated),
        (1, st.binary(max_size=40)),
        (1, st.sampled_from(odd)),
        (1, st.integers(16_300, 16_500).map(lambda n: b'{"game": "' + b"x" * n + b'"}')),
    )


def requests(endpoint: str) -> st.SearchStrategy[Request]:
    """Fuzzed requests to one endpoint."""
    # The endpoint's own parameters, each maybe, then maybe more: unknown, or repeated.
    own = st.fixed_dictionaries(
        {}, optional=dict.fromkeys(QUERY.get(endpoint, ()), _query_values())
    )
    names = st.sampled_from((*QUERY.get(endpoint, ()), "x", "seat", "since")) | _texts(True)
    more = st.lists(st.tuples(names, _query_values()), max_size=2)
    query = st.builds(lambda a, b: (*a.items(), *b), own, more)
    numbers = weighted(
        (6, st.sampled_from([1, 2, 0, 3, -1])), (1, st.integers()), (3, _path_values())
    )
    body = _bodies() if endpoint == "create" else st.just(b"")
    verbs = weighted(
        (12, st.just("")), (1, st.sampled_from(["HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"]))
    )
    return st.builds(Request, st.just(endpoint), _room_codes(), numbers, query, body, verbs)


# -- the WebSocket entry: path, query and subprotocols -------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A WebSocket opened on ``/ws/{code}?{query}``, offering ``subprotocols``."""

    code: Any
    query: tuple[tuple[Any, Any], ...]
    subprotocols: tuple[str, ...]

    def format(self) -> Format:
        """What the server speaks on it (server/transport/wire.py ``choose``)."""
        for offered in self.subprotocols:
            if offered in ("parlor.json", "parlor.msgpack"):
                return Format(offered.removeprefix("parlor."))
        wanted = [v for k, v in self.query if k == "format"]
        return Format.JSON if wanted and wanted[-1] == "json" else Format.MSGPACK


def entries() -> st.SearchStrategy[Entry]:
    names = st.sampled_from(["format", "x"]) | _texts(True)
    formats = st.sampled_from(["json", "msgpack", "JSON", "", "json ", "xml"]) | _query_values()
    query = st.lists(st.tuples(names, formats), max_size=2).map(tuple)
    offered = st.lists(
        st.sampled_from(["parlor.json", "parlor.msgpack", "chat", "parlor.xml"]),
        max_size=2,
        unique=True,
    ).map(tuple)
    return st.builds(Entry, _room_codes(), query, offered)


# -- running a property --------------------------------------------------------------------------


def run_property(
    strategy: st.SearchStrategy[Any], body: Callable[[Any], None], examples: int, seed: int = 0
) -> None:
    """Run ``body`` on ``examples`` inputs drawn from ``strategy``; hypothesis shrinks a
    failure to a small input. Seed 0 is derandomized (the same inputs every run); another seed
    draws other inputs, reproducibly."""

    @hypothesis_settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=seed == 0,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(strategy)
    def prop(value: Any) -> None:
        body(value)

    if seed:
        prop = hypothesis_seed(seed)(prop)
    prop()


@contextlib.contextmanager
def logs_into(records: list[logging.LogRecord]) -> Iterator[logging.Handler]:
    """Collect every log record at INFO and above into ``records``: the handler (give it to
    :func:`fuzzer_on_a_loop` for uvicorn's records too)."""

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler, root = Keep(logging.INFO), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


@contextlib.contextmanager
def fuzzer_on_a_loop(
    handler: logging.Handler,
    records: Callable[[], list[logging.LogRecord]],
    settings: Settings = SETTINGS,
    game: str = GAME,
) -> Iterator[tuple[Callable[[Coroutine[Any, Any, None]], None], Fuzzer]]:
    """A :class:`Fuzzer` on an event loop of its own (uvloop, as the server runs on), kept
    between hypothesis' examples, each of which is run on it to its end: ``(run, fuzzer)``.
    ``handler`` gets uvicorn's log records (which do not reach the root logger); ``records``
    gives every record it and the root logger's handler caught so far."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        running = Fuzzer.running(handler, records, settings, game)
        fuzzer = runner.run(running.__aenter__())
        try:
            yield runner.run, fuzzer
        finally:
            runner.run(running.__aexit__(None, None, None))

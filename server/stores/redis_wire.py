"""The store's connections to Redis: two small interfaces, each served two ways.

- :class:`Connection`: calls, and a script run by its SHA-1 (:meth:`Connection.evalsha`,
  written once for both ways, ``NOSCRIPT`` fallback included);
- :class:`Subscriber`: a connection in pub/sub mode, its pushed messages handed on as Redis
  sends them (``[kind, channel, data]``).

:class:`~server.stores.redis_store.RedisStore` writes its save script, its compare-and-set and
its notice subscriptions once, against these. On one plain Redis (``redis://``) they are
served by :class:`LeanConnection`, a pipelined connection of our own (an
:class:`asyncio.Protocol` with hiredis's reply reader); everywhere else (a Redis Cluster, TLS, a
Unix socket) by redis-py's client (:class:`ClientConnection`, :class:`ClientSubscriber`).
redis-py's asyncio client spends ~65-70 µs of CPU on one save here (its connection pool,
retry wrapper, event dispatch and stream layers) against ~18 µs on the lean connection
(``python -m bench.redis_client_cost``), and a save is made for every accepted action; with the
notices on it too, the server spends 0.06-0.12 ms less per action (docs/benchmarks.md,
*redis_wire*).

The lean connection keeps the promises redis-py's write client makes here:

- **A call never waits longer than ``timeout``**, connecting, the handshake (AUTH, SELECT)
  and a ``NOSCRIPT`` fallback included: one deadline per call. Replies come in order, so when
  the oldest call's time is up the connection is closed and every call on it fails with
  redis-py's ``TimeoutError``: their outcome is unknown, as with a lost reply, and the store's
  caller finds out by reading the record again (``server/stores/store.py``).
- **No write is ever sent twice.** A lost connection fails every call on it with redis-py's
  ``ConnectionError``, and a call meeting a connection that is closed or closing fails before
  anything is written; the next call opens a new connection. Nothing is retried, except a
  script Redis did not know (``NOSCRIPT``: it did not run), which is sent whole once.
- **Redis's error replies are redis-py's own exceptions**, made by redis-py's own parser
  table (:class:`_Errors`): ``NoScriptError``, ``ReadOnlyError``, ``OutOfMemoryError``,
  ``AuthenticationError``... An error redis-py counts as a connection error (at
  ``maxclients``, a wrong password, ``LOADING``) closes the connection, as redis-py does, and
  fails every call on it with that class; so does a connection Redis refuses (in protected
  mode).
- A peer gone without a word is noticed by TCP keepalive (see :func:`_keep_alive`).

Calls are pipelined: several rooms' saves share the connection, each awaiting its own reply.
"""

from __future__ import annotations

import abc
import asyncio
import collections
import contextlib
import functools
import hashlib
import socket
from collections.abc import Callable, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

import hiredis
import redis.asyncio as aioredis
from redis._parsers import BaseParser
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

Arg = bytes | str | int

#: A message pushed to a subscriber, as Redis sends it: ``[kind, channel, data]``.
Push = Sequence[Any]

_NOT_YET = object()


class _Errors(BaseParser):
    """redis-py's table of error replies (``BaseParser.EXCEPTION_CLASSES``, read by redis-py's
    own ``parse_error``), plus the one greeting it does not name: ``DENIED``, which Redis in
    protected mode sends instead of serving a new connection, and then closes it (redis-py
    would fail the first call with it as a ``ResponseError``, and the next with a lost
    connection). Only its class method is used; it is never made."""

    EXCEPTION_CLASSES = {**BaseParser.EXCEPTION_CLASSES, "DENIED": RedisConnectionError}


#: An error reply's message (without its ``-``) -> redis-py's exception for it.
_error: Callable[[str], RedisError] = _Errors.parse_error


class Connection(abc.ABC):
    """What the store's writes need of a connection: a call, bounded by the connection's
    ``timeout`` (or a deadline given), never resent; and a Lua script run by its SHA-1."""

    timeout: float

    @abc.abstractmethod
    async def call(self, *args: Arg, deadline: float | None = None) -> Any:
        """Send one command and wait for its reply, at most until ``deadline`` (by the loop's
        clock; ``timeout`` from now by default). Redis's error reply is raised as redis-py's
        exception for it; a lost connection is redis-py's ``ConnectionError`` and a deadline
        passed its ``TimeoutError``: the command's outcome is then unknown."""

    async def evalsha(self, script: str, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """Run ``script`` by its SHA-1; if Redis does not have it (a restart, SCRIPT FLUSH),
        send it whole once: a ``NOSCRIPT`` reply means it did not run. Both count against one
        ``timeout``."""
        deadline = asyncio.get_running_loop().time() + self.timeout
        try:
            return await self.call(
                "EVALSHA", _sha1(script), len(keys), *keys, *args, deadline=deadline
            )
        except NoScriptError:
            pass
        return await self.call("EVAL", script, len(keys), *keys, *args, deadline=deadline)

    @abc.abstractmethod
    async def aclose(self) -> None:
        """Close it: a call waiting fails with a connection error."""


class Subscriber(abc.ABC):
    """A connection to one Redis node in pub/sub mode, for the store's notice subscriptions
    (sharded channels)."""

    @abc.abstractmethod
    async def listen(self, pushes: Callable[[Push], None], on_lost: Callable[[str], None]) -> None:
        """Hand every message pushed from now on (a notice, a subscription's confirmation, an
        unsubscription) to ``pushes``; ``on_lost`` is called once, with why, when the
        connection is lost or dropped: it is never made again silently."""

    @abc.abstractmethod
    async def subscribe(self, channel: str) -> None:
        """Ask for ``channel``'s messages (``SSUBSCRIBE``); Redis's confirmation is pushed."""

    @abc.abstractmethod
    async def unsubscribe(self, channel: str) -> None:
        """Stop them (``SUNSUBSCRIBE``); the confirmation is pushed."""

    @abc.abstractmethod
    def drop(self, why: str) -> None:
        """Close the connection now: ``on_lost`` is called."""

    @abc.abstractmethod
    async def aclose(self) -> None:
        """Close it for good."""


@functools.cache
def _sha1(script: str) -> str:
    return hashlib.sha1(script.encode()).hexdigest()


def lean_url(url: str) -> bool:
    """Whether :class:`LeanConnection` can serve ``url``: a plain TCP ``redis://`` URL."""
    return urlsplit(url).scheme == "redis"


def encode(args: tuple[Arg, ...]) -> bytes:
    """One command in RESP: an array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if type(arg) is bytes:
            data = arg
        elif type(arg) is str:
            data = arg.encode()
        elif type(arg) is int:
            data = b"%d" % arg
        else:
            raise TypeError(f"a Redis argument must be bytes, str or int, not {type(arg)!r}")
        parts.append(b"$%d\r\n" % len(data))
        parts.append(data)
        parts.append(b"\r\n")
    return b"".join(parts)


def _keep_alive(link: _Link) -> None:
    """TCP keepalive on the link's socket, probing after 30 s of silence, so that a peer gone
    without a word (a dropped NAT entry, a dead host) is noticed within about a minute rather
    than the system's two hours: waiting calls then fail, a subscriber is made again."""
    transport = link.transport
    sock = None if transport is None else transport.get_extra_info("socket")
    if sock is None:
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


class _Link(asyncio.Protocol):
    """One TCP connection: replies are handed to the waiting calls in order.

    Once ``pushes`` is set (the connection subscribed), every reply is handed to it instead:
    a subscribed connection gets only pushed messages and confirmations."""

    def __init__(self, owner: LeanConnection) -> None:
        self._owner = owner
        self.pushes: Callable[[Push], None] | None = None
        self._reader = hiredis.Reader(replyError=_error, notEnoughData=_NOT_YET)
        self.transport: asyncio.Transport | None = None
        #: Calls sent and not answered, oldest first: (future, deadline).
        self.waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self.closed = False
        #: Why it closed (the first failure), for the calls that come after.
        self.why = ""
        self._watchdog: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but have its methods.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        waiting = self.waiting
        while True:
            if self.closed:  # failed, or dropped by a push
                return
            try:
                reply = reader.gets()
            except hiredis.ProtocolError as exc:
                self.fail(RedisConnectionError(f"Redis sent a malformed reply: {exc}"))
                return
            if reply is _NOT_YET:
                return
            if self.pushes is not None:
                if isinstance(reply, RedisError):
                    self.fail(RedisConnectionError(f"Redis refused a subscription: {reply}"))
                    return
                self.pushes(reply)
                continue
            if not waiting or isinstance(reply, RedisConnectionError):
                # Redis at its client limit, or in protected mode, answers a new connection
                # with an error and closes it; that greeting may also come after a call was
                # written (which Redis never read). And an error redis-py counts as the
                # connection's rather than the call's (a wrong password, a Redis still
                # loading) closes the connection in redis-py too. Every call on it fails,
                # with the error's class.
                why = reply if isinstance(reply, RedisError) else "a reply nobody asked for"
                kind = type(why) if isinstance(why, RedisConnectionError) else RedisConnectionError
                self.fail(kind(f"Redis refused the connection: {why}"))
                return
            future, _ = waiting.popleft()
            if not future.done():  # its caller may have been cancelled
                if isinstance(reply, RedisError):
                    future.set_exception(reply)
                else:
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError(f"Connection to Redis lost: {exc or 'closed'}"))

    def send(self, data: bytes, deadline: float) -> asyncio.Future[Any]:
        """Write one command; its reply's future. A link that is closed or closing takes
        nothing: RedisConnectionError, and nothing was written."""
        self.write(data)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.append((future, deadline))
        if self._watchdog is None:
            self._watch(deadline)
        return future

    def write(self, data: bytes) -> None:
        transport = self.transport
        if self.closed or transport is None or transport.is_closing():
            raise RedisConnectionError(self.why or "The connection to Redis is closed")
        try:
            transport.write(data)
        except (RuntimeError, OSError) as exc:  # uvloop: "the handler is closed"
            self.fail(RedisConnectionError(f"Connection to Redis lost: {exc}"))
            raise RedisConnectionError(f"Connection to Redis lost: {exc}") from exc

    def _watch(self, deadline: float) -> None:
        self._watchdog = asyncio.get_running_loop().call_at(deadline, self._check)

    def _check(self) -> None:
        """The oldest call's time is up, or its reply came and the next one is watched."""
        self._watchdog = None
        if not self.waiting:
            return
        deadline = self.waiting[0][1]
        if asyncio.get_running_loop().time() >= deadline:
            self.fail(RedisTimeoutError("Timeout reading from Redis"))
        else:
            self._watch(deadline)

    def fail(self, exc: Exception) -> None:
        """Close the connection and fail every call waiting on it (their outcome is unknown)."""
        if self.closed:
            return
        self.closed = True
        self.why = str(exc)
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        waiting, self.waiting = self.waiting, collections.deque()
        for future, _ in waiting:
            if not future.done():
                future.set_exception(exc)
        if self.transport is not None:
            self.transport.abort()
        self._owner._lost(self)


class LeanConnection(Connection, Subscriber):
    """A pipelined connection to one Redis (``redis://[user:password@]host:port/db``): for
    calls, or, once :meth:`listen` was called, a subscriber's."""

    def __init__(self, url: str, timeout: float) -> None:
        if not lean_url(url):
            raise ValueError(f"not a plain redis:// URL: {url!r}")
        options = parse_url(url)
        self._host: str = options.get("host", "localhost")
        self._port: int = int(options.get("port", 6379))
        self._username: str | None = options.get("username")
        self._password: str | None = options.get("password")
        self._db: int = int(options.get("db", 0))
        self.timeout = timeout
        self._link: _Link | None = None
        self._opening: asyncio.Future[_Link] | None = None
        self._on_lost: Callable[[str], None] | None = None
        self._closed = False

    async def call(self, *args: Arg, deadline: float | None = None) -> Any:
        """:meth:`Connection.call`, connecting first if need be: the connection, its
        handshake and the reply all count against the one deadline."""
        loop = asyncio.get_running_loop()
        if deadline is None:
            deadline = loop.time() + self.timeout
        link = self._link
        if link is None or link.closed:
            link = await self._open(deadline)
        if link.pushes is not None:
            raise RuntimeError("a subscribed connection takes no calls")
        if loop.time() >= deadline:
            raise RedisTimeoutError("Timeout before the command was sent to Redis")
        return await link.send(encode(args), deadline)

    async def _open(self, deadline: float) -> _Link:
        """One connection at a time is opened, within ``timeout`` of starting; every call
        waiting for it shares it, and waits at most until its own deadline."""
        if self._closed:
            raise RedisConnectionError("Connection closed")
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._connect())
            self._opening.add_done_callback(self._opened)
        try:
            async with asyncio.timeout_at(deadline):
                return await asyncio.shield(self._opening)
        except TimeoutError:
            raise RedisTimeoutError(f"Timeout connecting to Redis {self._where}") from None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this caller is cancelled
            raise RedisConnectionError("Connection closed") from None  # aclose() came first

    def _opened(self, opening: asyncio.Future[_Link]) -> None:
        self._opening = None
        if opening.cancelled() or opening.exception() is not None:
            return
        link = opening.result()
        if self._closed:
            link.fail(RedisConnectionError("Connection closed"))
        elif not link.closed:
            self._link = link

    async def _connect(self) -> _Link:
        loop = asyncio.get_running_loop()
        # The connection and its handshake together take at most ``timeout``.
        deadline = loop.time() + self.timeout
        try:
            async with asyncio.timeout_at(deadline):
                _, link = await loop.create_connection(lambda: _Link(self), self._host, self._port)
        except TimeoutError:
            raise RedisTimeoutError(f"Timeout connecting to Redis {self._where}") from None
        except OSError as exc:
            raise RedisConnectionError(f"Error connecting to Redis {self._where}: {exc}") from exc
        _keep_alive(link)
        try:
            if self._password is not None:
                auth: tuple[Arg, ...] = (self._password,)
                if self._username:
                    auth = (self._username, self._password)
                await link.send(encode(("AUTH", *auth)), deadline)
            if self._db:
                await link.send(encode(("SELECT", self._db)), deadline)
        except BaseException:
            link.fail(RedisConnectionError(f"Redis {self._where} refused the handshake"))
            raise
        return link

    @property
    def _where(self) -> str:
        return f"{self._host}:{self._port}"

    def _lost(self, link: _Link) -> None:
        if self._link is link:
            self._link = None
        if self._on_lost is not None and link.pushes is not None:
            self._on_lost(link.why)

    async def listen(self, pushes: Callable[[Push], None], on_lost: Callable[[str], None]) -> None:
        """Make this a subscriber's connection (:meth:`Subscriber.listen`): every reply from
        now on goes to ``pushes``. Only :meth:`subscribe`, :meth:`unsubscribe` and
        :meth:`send` may be used on it afterwards."""
        link = self._link
        if link is None or link.closed:
            link = await self._open(asyncio.get_running_loop().time() + self.timeout)
        self._on_lost = on_lost
        link.pushes = pushes

    async def subscribe(self, channel: str) -> None:
        self.send("SSUBSCRIBE", channel)

    async def unsubscribe(self, channel: str) -> None:
        self.send("SUNSUBSCRIBE", channel)

    def drop(self, why: str) -> None:
        link = self._link
        if link is not None:
            link.fail(RedisConnectionError(why))

    def send(self, *args: Arg) -> None:
        """Write a command to a subscribed connection; its confirmation is pushed."""
        link = self._link
        if link is None:
            raise RedisConnectionError("The subscription connection is closed")
        link.write(encode(args))

    async def aclose(self) -> None:
        self._closed = True
        link, self._link = self._link, None
        if link is not None and not link.closed:
            link.fail(RedisConnectionError("Connection closed"))
        if self._opening is not None:
            self._opening.cancel()


class ClientConnection(Connection):
    """:class:`Connection` on redis-py's client, a ``Redis`` or a ``RedisCluster`` (which sends
    a script to the node holding its keys, and follows ``MOVED``/``ASK``): each command is
    bounded by the client's socket timeout and the whole call by its deadline. The client
    given must not retry writes (``retries=0``); it is closed with this."""

    def __init__(self, client: aioredis.Redis | aioredis.RedisCluster, timeout: float) -> None:
        self._client = client
        self.timeout = timeout

    async def call(self, *args: Arg, deadline: float | None = None) -> Any:
        if deadline is None:
            deadline = asyncio.get_running_loop().time() + self.timeout
        try:
            async with asyncio.timeout_at(deadline):
                return await self._client.execute_command(*args)
        except TimeoutError:
            # redis-py closes a connection whose command was cancelled: nothing is resent.
            raise RedisTimeoutError("Timeout reading from Redis") from None

    async def aclose(self) -> None:
        await self._client.aclose()


class ClientSubscriber(Subscriber):
    """:class:`Subscriber` on redis-py's client for one node (a cluster's master, TLS, a Unix
    socket): its ``PubSub``, read by a task from the first subscription on. The client must
    not retry (``retries=0``), so a lost connection ends the reader (``on_lost``) rather than
    being made again behind the store's back."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self._pubsub = client.pubsub(ignore_subscribe_messages=False)
        self._reader: asyncio.Task[None] | None = None
        self._pushes: Callable[[Push], None] | None = None
        self._on_lost: Callable[[str], None] | None = None
        self._why = "closed"

    async def listen(self, pushes: Callable[[Push], None], on_lost: Callable[[str], None]) -> None:
        self._pushes, self._on_lost = pushes, on_lost

    async def subscribe(self, channel: str) -> None:
        await self._pubsub.ssubscribe(channel)
        if self._reader is None:
            self._reader = asyncio.create_task(self._read())

    async def unsubscribe(self, channel: str) -> None:
        await self._pubsub.sunsubscribe(channel)

    async def _read(self) -> None:
        try:
            while True:
                message = await self._pubsub.get_message(timeout=1.0)
                if message is not None and self._pushes is not None:
                    kind = message.get("type", "").encode()
                    self._pushes([kind, message.get("channel"), message.get("data")])
        except (RedisError, OSError) as exc:
            self._why = str(exc) or type(exc).__name__
        finally:
            if self._on_lost is not None:
                self._on_lost(self._why)

    def drop(self, why: str) -> None:
        self._why = why
        if self._reader is not None:
            self._reader.cancel()  # from within the reader too: it ends at its next wait
        elif self._on_lost is not None:
            self._on_lost(why)

    async def aclose(self) -> None:
        self._on_lost = None
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self._client.aclose()

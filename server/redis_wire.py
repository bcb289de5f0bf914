"""A lean Redis connection for the one command on every action's path: the save script.

redis-py's asyncio client spends ~130-150 µs of CPU on one call here (its connection pool,
retry wrapper, event dispatch and stream layers), against ~60 µs for the same call on a bare
``asyncio.Protocol`` with hiredis's reply parser (``python -m bench.redis_client_cost``). A
save is made for every accepted action, so :class:`RedisStore` sends its save script on this
connection when the store is one plain Redis (``redis://``); everything else (reads, creation,
presence, pub/sub, a Redis Cluster, TLS or a Unix socket) stays on redis-py.

It keeps the promises redis-py's write client made here:

- **A call never waits longer than ``timeout``.** Replies come in order, so when the oldest
  call's time is up the connection is closed and every call on it fails with redis-py's
  ``TimeoutError``: their outcome is unknown, as with a lost reply, and the store's caller
  finds out by reading the record again (``server/store.py``).
- **No write is ever sent twice.** A lost connection fails every call on it with redis-py's
  ``ConnectionError``; the next call opens a new connection. Nothing is retried, except a
  script Redis did not know (``NOSCRIPT``: it did not run), which is sent whole once.
- Redis's own error replies are redis-py's ``ResponseError``.

Calls are pipelined: several rooms' saves share the connection, each awaiting its own reply.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
from collections.abc import Callable, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

Arg = bytes | str | int

_NOT_YET = object()


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


class _Link(asyncio.Protocol):
    """One TCP connection: replies are handed to the waiting calls in order.

    Once ``pushes`` is set (the connection subscribed), every reply is handed to it instead:
    a subscribed connection gets only pushed messages and confirmations."""

    def __init__(self, owner: LeanConnection) -> None:
        self._owner = owner
        self.pushes: Callable[[Any], None] | None = None
        self._reader = hiredis.Reader(replyError=ResponseError, notEnoughData=_NOT_YET)
        self.transport: asyncio.Transport | None = None
        #: Calls sent and not answered, oldest first: (future, deadline).
        self.waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self.closed = False
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
                if isinstance(reply, ResponseError):
                    self.fail(RedisConnectionError(f"Redis refused a subscription: {reply}"))
                    return
                self.pushes(reply)
                continue
            if not waiting:
                self.fail(RedisConnectionError("Redis sent a reply nobody asked for"))
                return
            future, _ = waiting.popleft()
            if not future.done():  # its caller may have been cancelled
                if isinstance(reply, ResponseError):
                    future.set_exception(reply)
                else:
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError(f"Connection to Redis lost: {exc or 'closed'}"))

    def send(self, data: bytes, deadline: float) -> asyncio.Future[Any]:
        assert self.transport is not None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.append((future, deadline))
        self.transport.write(data)
        if self._watchdog is None:
            self._watch(deadline)
        return future

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


class LeanConnection:
    """A pipelined connection to one Redis (``redis://[user:password@]host:port/db``)."""

    def __init__(self, url: str, timeout: float) -> None:
        if not lean_url(url):
            raise ValueError(f"not a plain redis:// URL: {url!r}")
        options = parse_url(url)
        self._host: str = options.get("host", "localhost")
        self._port: int = int(options.get("port", 6379))
        self._username: str | None = options.get("username")
        self._password: str | None = options.get("password")
        self._db: int = int(options.get("db", 0))
        self._timeout = timeout
        self._link: _Link | None = None
        self._opening: asyncio.Future[_Link] | None = None
        self._shas: dict[str, str] = {}
        self._on_lost: Callable[[], None] | None = None

    async def call(self, *args: Arg) -> Any:
        link = self._link
        if link is None:
            link = await self._open()
        loop = asyncio.get_running_loop()
        return await link.send(encode(args), loop.time() + self._timeout)

    async def evalsha(self, script: str, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """Run ``script`` by its SHA-1; if Redis does not have it (a restart, SCRIPT FLUSH),
        send it whole once: a ``NOSCRIPT`` reply means it did not run."""
        sha = self._shas.get(script)
        if sha is None:
            sha = self._shas[script] = hashlib.sha1(script.encode()).hexdigest()
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await self.call("EVAL", script, len(keys), *keys, *args)

    async def _open(self) -> _Link:
        """One connection at a time is opened; every call waiting for it shares it."""
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._connect())
            self._opening.add_done_callback(self._opened)
        return await asyncio.shield(self._opening)

    def _opened(self, opening: asyncio.Future[_Link]) -> None:
        self._opening = None
        if not opening.cancelled() and opening.exception() is None:
            link = opening.result()
            if not link.closed:
                self._link = link

    async def _connect(self) -> _Link:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._timeout):
                _, link = await loop.create_connection(lambda: _Link(self), self._host, self._port)
        except TimeoutError:
            raise RedisTimeoutError(f"Timeout connecting to Redis {self._where}") from None
        except OSError as exc:
            raise RedisConnectionError(f"Error connecting to Redis {self._where}: {exc}") from exc
        # The handshake's replies are watched like any call's (``timeout`` from now).
        deadline = loop.time() + self._timeout
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
            self._on_lost()

    async def subscribe(self, pushes: Callable[[Any], None], on_lost: Callable[[], None]) -> None:
        """Make this a subscriber's connection: from now on every reply (pushed messages,
        subscription confirmations) goes to ``pushes``, and ``on_lost`` is called once if the
        connection is lost. Only :meth:`send` may be used on it afterwards."""
        link = self._link or await self._open()
        self._on_lost = on_lost
        link.pushes = pushes

    def drop(self, why: str) -> None:
        """Close the connection now (a subscriber's ``on_lost`` is called)."""
        link = self._link
        if link is not None:
            link.fail(RedisConnectionError(why))

    def send(self, *args: Arg) -> None:
        """Write a command to a subscribed connection; its confirmation is pushed."""
        link = self._link
        if link is None or link.closed or link.transport is None:
            raise RedisConnectionError("The subscription connection is closed")
        link.transport.write(encode(args))

    async def aclose(self) -> None:
        link, self._link = self._link, None
        if link is not None and not link.closed:
            link.fail(RedisConnectionError("Connection closed"))
        if self._opening is not None:
            self._opening.cancel()

"""The Redis store: production backend, shared by any number of server instances.

Every accepted change is one Lua script: compare the version, write the record, append to the
move log (a Stream), refresh the time-to-live and PUBLISH a notice, atomically. Keys come from
:mod:`server.keys`; a room's keys share one hash tag so the script is single-slot on a cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server import keys
from server.store import (
    Notice,
    NoticeHandler,
    NoticeKind,
    RoomMissing,
    Stamp,
    Store,
    Stored,
    StoreUnavailable,
    VersionConflict,
    new_tag,
)

log = logging.getLogger(__name__)

# KEYS: room, log, presence. ARGV: data, entry, ttl_ms, tag
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'v', 1, 't', ARGV[4], 'data', ARGV[1])
redis.call('XADD', KEYS[2], '*', 'v', 1, 'e', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""

# KEYS: room, log, presence.
# ARGV: expected tag, version, data, entry, ttl_ms, log_max, channel, notice, new tag, then
# (version, entry) of each earlier log entry the save writes, oldest first.
_SAVE = """
local t = redis.call('HGET', KEYS[1], 't')
if not t then
  -- A record written before tags existed: its tag is its version (see legacy_tag).
  local v = redis.call('HGET', KEYS[1], 'v')
  if not v then return 0 end
  t = 'v' .. v
end
if t ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 't', ARGV[9], 'data', ARGV[3])
for i = 10, #ARGV, 2 do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', 'v', ARGV[i], 'e', ARGV[i + 1])
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', 'v', ARGV[2], 'e', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('PUBLISH', ARGV[7], ARGV[8])
return 1
"""

# KEYS: room, presence. ARGV: instance, claim, channel, notice
_PRESENCE = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1
"""


def _tag(tag: bytes | None, version: bytes) -> str:
    """A record's tag; one written before tags existed counts as tagged ``v<version>``, as the
    save script sees it too, so rooms from an older release carry on after an upgrade."""
    return tag.decode() if tag else f"v{version.decode()}"


class RedisStore(Store):
    kind = "redis"

    def __init__(self, url: str, log_max: int = 10_000, timeout: float = 1.0) -> None:
        self._url = url
        self._log_max = log_max
        self._timeout = timeout
        # Every call gives up after ``timeout`` (a frozen Redis must not freeze the players).
        # Reads may be retried once on a fresh connection (a pooled one may be dead after a
        # Redis restart). Writes never are: a write whose reply was lost may have happened,
        # and only the caller, by reading the record again, can tell (see store.py).
        common: dict[str, Any] = {
            "decode_responses": False,
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry_on_error": [RedisConnectionError, RedisTimeoutError],
        }
        self._redis: aioredis.Redis = aioredis.Redis.from_url(
            url, retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), retries=1), **common
        )
        self._writes: aioredis.Redis = aioredis.Redis.from_url(
            url, retry=Retry(NoBackoff(), retries=0), **common
        )
        self._create = self._writes.register_script(_CREATE)
        self._save = self._writes.register_script(_SAVE)
        self._presence = self._redis.register_script(_PRESENCE)
        self._listener: asyncio.Task[None] | None = None

    async def open(self, on_notice: NoticeHandler) -> None:
        await self.ping()
        ready = asyncio.Event()
        self._listener = asyncio.create_task(self._listen(on_notice, ready))
        # Subscribed before we serve anyone, so no notice after start-up can be missed.
        await asyncio.wait_for(ready.wait(), timeout=10)

    async def _listen(self, on_notice: NoticeHandler, ready: asyncio.Event) -> None:
        """Deliver notices; after every (re)subscription, tell the instance to resync.

        Its own client never retries, so a lost connection surfaces here and is replaced by a
        new subscription. Every ``subscribe`` confirmation after the first one means notices
        may have been missed in between (redis-py can also resubscribe silently on
        reconnect), so each one becomes a RESYNC."""
        delay = 0.05
        client: aioredis.Redis = aioredis.Redis.from_url(
            self._url,
            decode_responses=False,
            socket_connect_timeout=self._timeout,
            retry=Retry(NoBackoff(), retries=0),
        )
        try:
            while True:
                pubsub = client.pubsub(ignore_subscribe_messages=False)
                try:
                    await pubsub.subscribe(keys.NOTICES)
                    while True:
                        message = await pubsub.get_message(timeout=1.0)
                        if message is None:
                            continue
                        kind = message.get("type")
                        if kind == "subscribe":
                            if ready.is_set():
                                self._hand(on_notice, Notice(NoticeKind.RESYNC, "*", 0, ""))
                            ready.set()
                            delay = 0.05
                        elif kind == "message":
                            self._deliver(on_notice, message["data"])
                except (RedisError, OSError) as exc:
                    log.warning("notice listener lost Redis (%s); reconnecting", exc)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 1.0)
                finally:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()  # type: ignore[no-untyped-call]
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()

    @staticmethod
    def _deliver(on_notice: NoticeHandler, data: bytes) -> None:
        try:
            notice = Notice.decode(data.decode())
        except (ValueError, UnicodeDecodeError):
            log.warning("ignoring a malformed notice: %r", data)
            return
        RedisStore._hand(on_notice, notice)

    @staticmethod
    def _hand(on_notice: NoticeHandler, notice: Notice) -> None:
        try:
            on_notice(notice)
        except Exception:
            # One bad notice must not end the listener (and with it every notice after).
            log.exception("handling notice %r failed", notice)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self._redis.aclose()
        await self._writes.aclose()

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc) or type(exc).__name__) from exc

    async def ping(self) -> None:
        await self._call(self._redis.ping())

    async def create(self, code: str, data: bytes, entry: bytes, ttl: float) -> str | None:
        tag = new_tag()
        result = await self._call(
            self._create(
                keys=[keys.room(code), keys.log(code), keys.presence(code)],
                args=[data, entry, int(ttl * 1000), tag],
            )
        )
        return tag if result else None

    async def load(self, code: str) -> Stored | None:
        version, tag, data = await self._call(
            self._redis.hmget(keys.room(code), ["v", "t", "data"])
        )
        if version is None or data is None:
            return None
        return Stored(int(version), data, _tag(tag, version))

    async def save(
        self,
        code: str,
        expected: str,
        version: int,
        data: bytes,
        entry: bytes,
        ttl: float,
        notice: Notice,
        earlier: Sequence[tuple[int, bytes]] = (),
    ) -> str:
        tag = new_tag()
        result = await self._call(
            self._save(
                keys=[keys.room(code), keys.log(code), keys.presence(code)],
                args=[
                    expected,
                    str(version),
                    data,
                    entry,
                    int(ttl * 1000),
                    self._log_max,
                    keys.NOTICES,
                    notice.encode(),
                    tag,
                    *(part for v, e in earlier for part in (str(v), e)),
                ],
            )
        )
        if result == 0:
            raise RoomMissing(code)
        if result == -1:
            raise VersionConflict(code)
        return tag

    async def stamps(self, codes: list[str]) -> dict[str, Stamp | None]:
        if not codes:
            return {}
        async with self._redis.pipeline(transaction=False) as pipe:
            for code in codes:
                pipe.hmget(keys.room(code), ["v", "t"])
            rows = await self._call(pipe.execute())
        return {
            code: None if version is None else Stamp(int(version), _tag(tag, version))
            for code, (version, tag) in zip(codes, rows, strict=True)
        }

    async def log(self, code: str) -> list[tuple[int, bytes]]:
        rows = await self._call(self._redis.xrange(keys.log(code)))
        return [(int(fields[b"v"]), fields[b"e"]) for _id, fields in rows]

    async def codes(self, limit: int) -> list[str]:
        found: list[str] = []
        try:
            async for key in self._redis.scan_iter(match=keys.ROOM_PATTERN, count=500):
                code = keys.code_of(key.decode())
                if code is not None:
                    found.append(code)
                if len(found) >= limit:
                    break
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc) or type(exc).__name__) from exc
        return found

    async def ttl(self, code: str) -> float | None:
        ms = await self._call(self._redis.pttl(keys.room(code)))
        return None if ms < 0 else ms / 1000

    async def set_presence(
        self, code: str, instance: str, seat_ids: list[int], ttl: float, notice: Notice | None
    ) -> None:
        expires = int((time.time() + ttl) * 1000)
        claim = f"{expires}|{','.join(map(str, seat_ids))}"
        await self._call(
            self._presence(
                keys=[keys.room(code), keys.presence(code)],
                args=[instance, claim, keys.NOTICES, "" if notice is None else notice.encode()],
            )
        )

    async def presence(self, code: str) -> frozenset[int]:
        claims: dict[bytes, bytes] = await self._call(self._redis.hgetall(keys.presence(code)))
        now = int(time.time() * 1000)
        seats: set[int] = set()
        for claim in claims.values():
            expires, _, ids = claim.decode().partition("|")
            if int(expires) > now and ids:
                seats.update(int(i) for i in ids.split(","))
        return frozenset(seats)

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
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server import keys
from server.store import (
    Notice,
    NoticeHandler,
    NoticeKind,
    RoomMissing,
    Store,
    Stored,
    StoreUnavailable,
    VersionConflict,
)

log = logging.getLogger(__name__)

# KEYS: room, log, presence. ARGV: data, entry, ttl_ms
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'v', 1, 'data', ARGV[1])
redis.call('XADD', KEYS[2], '*', 'v', 1, 'e', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""

# KEYS: room, log, presence. ARGV: expected, data, entry, ttl_ms, log_max, channel, notice
_SAVE = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return 0 end
if v ~= ARGV[1] then return -1 end
local nv = tostring(tonumber(ARGV[1]) + 1)
redis.call('HSET', KEYS[1], 'v', nv, 'data', ARGV[2])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'v', nv, 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('PUBLISH', ARGV[6], ARGV[7])
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


class RedisStore(Store):
    kind = "redis"

    def __init__(self, url: str, log_max: int = 10_000) -> None:
        self._url = url
        self._log_max = log_max
        # A pooled connection may be dead after a Redis restart: reconnect and retry a few
        # times before telling anyone the store is unavailable. Retrying the compare-and-set is
        # safe: if the first attempt did apply, the retry finds the version moved on, and the
        # reload that follows recognises the action's sequence number as already applied.
        self._redis: aioredis.Redis = aioredis.Redis.from_url(
            url,
            decode_responses=False,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.02), retries=5),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
        )
        self._create = self._redis.register_script(_CREATE)
        self._save = self._redis.register_script(_SAVE)
        self._presence = self._redis.register_script(_PRESENCE)
        self._listener: asyncio.Task[None] | None = None

    async def open(self, on_notice: NoticeHandler) -> None:
        await self.ping()
        ready = asyncio.Event()
        self._listener = asyncio.create_task(self._listen(on_notice, ready))
        # Subscribed before we serve anyone, so no notice after start-up can be missed.
        await asyncio.wait_for(ready.wait(), timeout=10)

    async def _listen(self, on_notice: NoticeHandler, ready: asyncio.Event) -> None:
        delay = 0.1
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(keys.NOTICES)
                if ready.is_set():
                    # Notices may have been lost while disconnected: every room resyncs.
                    on_notice(Notice(NoticeKind.RESYNC, "*", 0, ""))
                ready.set()
                delay = 0.1
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is None or message.get("type") != "message":
                        continue
                    try:
                        on_notice(Notice.decode(message["data"].decode()))
                    except (ValueError, UnicodeDecodeError):
                        log.warning("ignoring a malformed notice: %r", message["data"])
            except (RedisError, OSError) as exc:
                log.warning("notice listener lost Redis (%s); reconnecting", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self._redis.aclose()

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc)) from exc

    async def ping(self) -> None:
        await self._call(self._redis.ping())

    async def create(self, code: str, data: bytes, entry: bytes, ttl: float) -> bool:
        result = await self._call(
            self._create(
                keys=[keys.room(code), keys.log(code), keys.presence(code)],
                args=[data, entry, int(ttl * 1000)],
            )
        )
        return bool(result)

    async def load(self, code: str) -> Stored | None:
        version, data = await self._call(self._redis.hmget(keys.room(code), ["v", "data"]))
        if version is None or data is None:
            return None
        return Stored(int(version), data)

    async def save(
        self, code: str, expected: int, data: bytes, entry: bytes, ttl: float, notice: Notice
    ) -> None:
        result = await self._call(
            self._save(
                keys=[keys.room(code), keys.log(code), keys.presence(code)],
                args=[
                    str(expected),
                    data,
                    entry,
                    int(ttl * 1000),
                    self._log_max,
                    keys.NOTICES,
                    notice.encode(),
                ],
            )
        )
        if result == 0:
            raise RoomMissing(code)
        if result == -1:
            raise VersionConflict(code)

    async def log(self, code: str) -> list[tuple[int, bytes]]:
        rows = await self._call(self._redis.xrange(keys.log(code)))
        return [(int(fields[b"v"]), fields[b"e"]) for _id, fields in rows]

    async def codes(self, limit: int) -> list[str]:
        found: list[str] = []
        async for key in self._redis.scan_iter(match=keys.ROOM_PATTERN, count=500):
            code = keys.code_of(key.decode())
            if code is not None:
                found.append(code)
            if len(found) >= limit:
                break
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

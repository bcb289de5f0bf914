"""The Redis store: production backend, shared by any number of server instances.

Every accepted change is one Lua script: compare the version, write the record, append to the move
log (a Stream), refresh the time-to-live and SPUBLISH a notice on the room's own sharded channel,
atomically. Keys come from :mod:`server.stores.keys`; a room's keys and channel share one hash tag,
so the script is single-slot on a Redis Cluster and its notice is published by the master holding
the room. An instance subscribes only to the rooms it has connections in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from server.stores import keys
from server.stores.redis_wire import (
    Arg,
    ClientConnection,
    ClientSubscriber,
    Connection,
    LeanConnection,
    Push,
    Subscriber,
    lean_url,
)
from server.stores.store import (
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

# KEYS: room, log, presence, archive. ARGV: data, entry, ttl_ms, tag
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[1], 'v', 1, 't', ARGV[4], 'data', ARGV[1])
redis.call('XADD', KEYS[2], '*', 'v', 1, 'e', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""

# KEYS: room, log, presence, archive.
# ARGV: expected tag, version, data, entry, ttl_ms, log_max, channel, notice, new tag, the
# number n of archive entries, those n entries, then (version, entry) of each earlier log
# entry the save writes, oldest first.
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
local n = tonumber(ARGV[10])
if n > 0 then redis.call('RPUSH', KEYS[4], unpack(ARGV, 11, 10 + n)) end
for i = 11 + n, #ARGV, 2 do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', 'v', ARGV[i], 'e', ARGV[i + 1])
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', 'v', ARGV[2], 'e', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call('SPUBLISH', ARGV[7], ARGV[8])
return 1
"""

# KEYS: room, archive. The archive of a live room only (its keys expire together, but not at
# the same instant).
_ARCHIVE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
return redis.call('LRANGE', KEYS[2], 0, -1)
"""

# KEYS: wakes. ARGV: code, at, expected ("" for none). See Store.set_wake.
_WAKE = """
local held = redis.call('ZSCORE', KEYS[1], ARGV[1])
if ARGV[3] ~= '' and held then
  local n = tonumber(held)
  if n ~= tonumber(ARGV[3]) and n ~= tonumber(ARGV[2]) then return 0 end
end
if tonumber(ARGV[2]) > 0 then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
"""

# KEYS: room, presence. ARGV: instance, claim, channel, notice
_PRESENCE = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[4] ~= '' then redis.call('SPUBLISH', ARGV[3], ARGV[4]) end
return 1
"""


def _tag(tag: bytes | None, version: bytes) -> str:
    """A record's tag; one written before tags existed counts as tagged ``v<version>``, as the
    save script sees it too, so rooms from an older release carry on after an upgrade."""
    return tag.decode() if tag else f"v{version.decode()}"


class _Shard:
    """One pub/sub connection to one Redis node (the node itself, or a cluster master) and the
    room channels subscribed to there, whichever connection serves it (a
    :class:`~server.stores.redis_wire.Subscriber`: the lean one on one plain Redis, redis-py's
    elsewhere).

    A lost connection is never made again behind its back: it marks the shard failed, and the
    store's supervisor builds a new one. Every ``ssubscribe`` confirmation becomes a RESYNC
    notice for that room: notices may have been missed before it."""

    def __init__(self, store: RedisStore, name: str, conn: Subscriber) -> None:
        self.name = name
        self.codes: set[str] = set()
        self.failed = False
        self._store = store
        self._conn = conn
        self._listening = False

    async def add(self, codes: set[str]) -> None:
        if not self._listening:
            await self._conn.listen(self._push, self._on_lost)
            self._listening = True
        # One SSUBSCRIBE per channel: on a cluster, channels of several slots in one command
        # are refused (CROSSSLOT).
        for code in sorted(codes):
            await self._conn.subscribe(keys.notices(code))
            self.codes.add(code)

    async def remove(self, codes: set[str]) -> None:
        for code in sorted(codes):
            self.codes.discard(code)
            await self._conn.unsubscribe(keys.notices(code))

    def _push(self, push: Push) -> None:
        try:
            kind = push[0]
            if kind == b"smessage":
                self._store._deliver(push[2])
                return
            code = keys.code_of(push[1].decode().removesuffix(":notices"))
        except (TypeError, IndexError, AttributeError, UnicodeDecodeError):
            log.warning("ignoring a malformed push from Redis: %r", push)
            return
        if code is None or code not in self.codes:
            return
        if kind == b"ssubscribe":
            self._store._hand(Notice(NoticeKind.RESYNC, code, 0, ""))
        elif kind == b"sunsubscribe":
            # Not asked for: the node no longer serves the room's slot (resharding, or it
            # became a replica). The supervisor routes it again.
            log.info("notices of %s unsubscribed by %s; routing again", code, self.name)
            self._conn.drop("unsubscribed by Redis")

    def _on_lost(self, why: str) -> None:
        if not self.failed:
            self.failed = True
            log.warning("notice listener lost Redis %s (%s); reconnecting", self.name, why)
            self._store._wake_up()

    async def close(self) -> None:
        self.failed = True
        await self._conn.aclose()


class RedisStore(Store):
    """``cluster``: ``url`` names one node of a Redis Cluster (see docs/deploy.md)."""

    kind = "redis"

    def __init__(
        self,
        url: str,
        log_max: int = 10_000,
        timeout: float = 1.0,
        *,
        cluster: bool = False,
        seeds: Sequence[str] = (),
    ) -> None:
        self._url = url
        self._log_max = log_max
        self._timeout = timeout
        self._cluster = cluster
        # Every call gives up after ``timeout`` (a frozen Redis must not freeze the players).
        # Reads may be retried once on a fresh connection when the connection failed (a
        # pooled one may be dead after a Redis restart), never after a timeout: a Redis that
        # did not answer in time would only make the player wait twice as long (a frozen
        # Redis answered a sync after 2 s, not 1). Writes are never retried: a write whose
        # reply was lost may have happened, and only the caller, by reading the record
        # again, can tell (see store.py). The cluster client follows MOVED and ASK
        # redirections whatever its retries: a redirected command was not run.
        common: dict[str, Any] = {
            "decode_responses": False,
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry_on_error": [RedisConnectionError],
        }
        reads = Retry(
            ExponentialBackoff(cap=0.2, base=0.02),
            retries=1,
            supported_errors=(RedisConnectionError,),
        )
        writes = Retry(NoBackoff(), retries=0)
        self._redis: Any
        self._writes: Any
        if cluster:
            # Any one live node of these (``url``'s and the ``seeds``, ``host:port``) is
            # enough to learn the cluster: a dead seed does not stop an instance starting.
            nodes = [
                ClusterNode(host, int(port)) for host, port in (s.rsplit(":", 1) for s in seeds)
            ]
            self._redis = aioredis.RedisCluster.from_url(
                url, retry=reads, startup_nodes=list(nodes), **common
            )
            self._writes = aioredis.RedisCluster.from_url(
                url, retry=writes, startup_nodes=list(nodes), **common
            )
        else:
            self._redis = aioredis.Redis.from_url(url, retry=reads, **common)
            self._writes = aioredis.Redis.from_url(url, retry=writes, **common)
        #: Whether the saves and the subscriptions are on lean connections: on one plain
        #: Redis (see server/stores/redis_wire.py); redis-py's client serves them elsewhere.
        self._lean = not cluster and lean_url(url)
        #: Creation's connection, and the save's (the one save path, :meth:`_save`).
        self._creates: Connection = ClientConnection(self._writes, timeout)
        self._saves = LeanConnection(url, timeout) if self._lean else self._creates
        self._presence = self._redis.register_script(_PRESENCE)
        self._archive = self._redis.register_script(_ARCHIVE)
        self._wake_script = self._redis.register_script(_WAKE)
        self._on_notice: NoticeHandler | None = None
        #: Rooms whose notices this instance wants (see :meth:`watch`).
        self._watched: set[str] = set()
        self._wake = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        #: The supervisor's subscriptions, by node name.
        self._shards: dict[str, _Shard] = {}

    async def open(self, on_notice: NoticeHandler) -> None:
        await self.ping()
        self._on_notice = on_notice
        self._supervisor = asyncio.create_task(self._supervise())

    def watch(self, code: str) -> None:
        if code not in self._watched:
            self._watched.add(code)
            self._wake_up()

    def unwatch(self, code: str) -> None:
        if code in self._watched:
            self._watched.discard(code)
            self._wake_up()

    def _wake_up(self) -> None:
        self._wake.set()

    async def _supervise(self) -> None:
        """Keep one subscription per watched room, on the node that serves its channel.

        Woken by :meth:`watch`, :meth:`unwatch` and a failed shard, and once a second anyway:
        on a cluster the slot map may have changed meanwhile (a failover, resharding; the
        cluster client learns it from MOVED replies and from re-reading the topology after a
        shard failed), and a channel whose slot moved is subscribed again on its new master."""
        shards = self._shards
        delay = 0.05
        stale = False
        try:
            while True:
                self._wake.clear()
                try:
                    await self._reconcile(shards, stale)
                    delay, wait, stale = 0.05, 1.0, False
                except Exception as exc:
                    # Whatever went wrong, the listener must carry on (or no notice arrives).
                    log.warning("notice subscriptions failed (%r); trying again", exc)
                    delay, wait, stale = min(delay * 2, 1.0), delay, True
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
        finally:
            for shard in shards.values():
                await shard.close()

    async def _reconcile(self, shards: dict[str, _Shard], stale: bool) -> None:
        """Subscribe each watched room on its node; ``stale``: the last try failed, so the
        cluster's slot map may be out of date too (a master died: its replica takes over)."""
        failed = [name for name, shard in shards.items() if shard.failed]
        for name in failed:
            await shards.pop(name).close()
        if (failed or stale) and self._cluster:
            await self._redis.nodes_manager.initialize()
        routes = {code: self._node_of(code) for code in self._watched}
        for name, shard in list(shards.items()):
            moved = {c for c in shard.codes if c not in routes or routes[c][0] != name}
            if moved:
                await shard.remove(moved)
            if not shard.codes:
                await shards.pop(name).close()
        wanted: dict[str, set[str]] = {}
        for code, (name, _, _) in routes.items():
            if name not in shards or code not in shards[name].codes:
                wanted.setdefault(name, set()).add(code)
        for name, codes in wanted.items():
            if name not in shards:
                _, host, port = routes[next(iter(codes))]
                shards[name] = _Shard(self, name, self._subscriber(host, port))
            shard = shards[name]
            try:
                await shard.add(codes)
            except BaseException:
                await shards.pop(name).close()
                raise

    def _node_of(self, code: str) -> tuple[str, str, int]:
        """The node serving the room's channel: (name, host, port); on one Redis, always it."""
        if not self._cluster:
            return ("redis", "", 0)
        node = self._redis.get_node_from_key(keys.notices(code))
        if node is None:
            raise RedisConnectionError(f"no node serves room {code}")
        return (node.name, node.host, node.port)

    def _subscriber(self, host: str, port: int) -> Subscriber:
        """A connection for the notices of the node at ``host:port`` (on one Redis, it)."""
        if self._lean:
            return LeanConnection(self._url, self._timeout)
        options: dict[str, Any] = {
            "decode_responses": False,
            "socket_connect_timeout": self._timeout,
            "retry": Retry(NoBackoff(), retries=0),
        }
        if not self._cluster:
            return ClientSubscriber(aioredis.Redis.from_url(self._url, **options))
        # The cluster URL's credentials and TLS apply to every node.
        parsed = urlsplit(self._url)
        url = parsed._replace(
            netloc=f"{parsed.netloc.rpartition('@')[0]}@{host}:{port}"
            if "@" in parsed.netloc
            else f"{host}:{port}",
            path="",
        )
        return ClientSubscriber(aioredis.Redis.from_url(urlunsplit(url), **options))

    def _deliver(self, data: bytes) -> None:
        try:
            notice = Notice.decode(data.decode())
        except (ValueError, UnicodeDecodeError):
            log.warning("ignoring a malformed notice: %r", data)
            return
        self._hand(notice)

    def _hand(self, notice: Notice) -> None:
        if self._on_notice is None:
            return
        try:
            self._on_notice(notice)
        except Exception:
            # One bad notice must not end the listener (and with it every notice after).
            log.exception("handling notice %r failed", notice)

    async def close(self) -> None:
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        self._on_notice = None
        try:
            await self._redis.aclose()
            await self._creates.aclose()
        finally:
            if self._saves is not self._creates:
                await self._saves.aclose()

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc) or type(exc).__name__) from exc

    async def ping(self) -> None:
        await self._call(self._redis.ping())

    async def create(self, code: str, data: bytes, entry: bytes, ttl: float) -> str | None:
        tag = new_tag()
        names = [keys.room(code), keys.log(code), keys.presence(code), keys.archive(code)]
        args: list[Arg] = [data, entry, int(ttl * 1000), tag]
        result = await self._call(self._creates.evalsha(_CREATE, names, args))
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
        archive: Sequence[bytes] = (),
    ) -> str:
        tag = new_tag()
        names = [keys.room(code), keys.log(code), keys.presence(code), keys.archive(code)]
        args: list[Arg] = [
            expected,
            str(version),
            data,
            entry,
            int(ttl * 1000),
            self._log_max,
            keys.notices(code),
            notice.encode(),
            tag,
            len(archive),
            *archive,
            *(part for v, e in earlier for part in (str(v), e)),
        ]
        result = await self._call(self._save(names, args))
        if result == 0:
            raise RoomMissing(code)
        if result == -1:
            raise VersionConflict(code)
        return tag

    async def _save(self, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """The save script's one path, on one plain Redis and on a cluster alike: on the
        save's connection, by its SHA-1, sent whole once after ``NOSCRIPT``, within one
        timeout, never resent (:meth:`~server.stores.redis_wire.Connection.evalsha`)."""
        return await self._saves.evalsha(_SAVE, keys, args)

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

    async def archive(self, code: str) -> list[bytes]:
        found = await self._call(self._archive(keys=[keys.room(code), keys.archive(code)]))
        return list(found)

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

    async def set_wake(self, code: str, at: float, expected: float | None = None) -> None:
        condition = "" if expected is None else repr(float(expected))
        await self._call(
            self._wake_script(keys=[keys.WAKES], args=[code, repr(float(at)), condition])
        )

    async def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        found = await self._call(
            self._redis.zrangebyscore(keys.WAKES, "-inf", now, start=0, num=limit, withscores=True)
        )
        return [(code.decode(), float(at)) for code, at in found]

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
                args=[
                    instance,
                    claim,
                    keys.notices(code),
                    "" if notice is None else notice.encode(),
                ],
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

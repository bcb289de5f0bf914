"""The store's Redis connections (server/stores/redis_wire.py): the lean one on a real
redis-server, its replies, its pipelining, Redis's error replies as redis-py's own exceptions,
and its promises through faults (a paused, killed or restarted Redis): a call never waits past
its timeout, and nothing is ever sent twice; and the one save path and the one subscriber of
the store, on one plain Redis (the lean connection) and on a Redis Cluster (redis-py's)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
from collections.abc import AsyncIterator

import hiredis
import pytest
import redis.asyncio as aioredis
from redis import Redis
from redis._parsers import BaseParser
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AuthenticationError, NoScriptError, RedisError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.codes import ALPHABET
from server.stores import keys
from server.stores.redis_store import RedisStore
from server.stores.redis_wire import (
    ClientConnection,
    ClientSubscriber,
    Connection,
    LeanConnection,
    encode,
    lean_url,
)
from server.stores.store import Notice, NoticeKind, StoreUnavailable, VersionConflict
from tests.processes import LOCALHOST
from tests.redis_process import RedisProcess
from tests.server.conftest import Run
from tests.server.harness import flush

# KEYS: counter. ARGV: step. The counter after the step.
COUNT = "return redis.call('INCRBY', KEYS[1], ARGV[1])"


def test_a_command_is_encoded_as_resp_bulk_strings() -> None:
    assert encode(("SET", b"k\r\n", 12)) == b"*3\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$2\r\n12\r\n"
    with pytest.raises(TypeError):
        encode(("SET", 1.5))  # type: ignore[arg-type]


def test_only_a_plain_redis_url_gets_the_lean_connection() -> None:
    assert lean_url("redis://127.0.0.1:6379/0")
    assert not lean_url("rediss://127.0.0.1:6379/0")
    assert not lean_url("unix:///run/redis.sock")
    plain = RedisStore("redis://127.0.0.1:1/0")
    assert plain._lean and isinstance(plain._saves, LeanConnection)
    assert isinstance(plain._subscriber("", 0), LeanConnection)
    for other in (
        RedisStore("rediss://127.0.0.1:1/0"),
        RedisStore("redis://127.0.0.1:1/0", cluster=True),
    ):
        assert not other._lean and isinstance(other._saves, ClientConnection)
        assert isinstance(other._subscriber("127.0.0.1", 1), ClientSubscriber)


def test_a_script_runs_by_its_sha_and_is_sent_whole_once_after_a_script_flush(
    redis_url: str, run: Run
) -> None:
    async def body() -> None:
        lean = LeanConnection(redis_url, timeout=2.0)
        try:
            await lean.call("DEL", "lean:count")
            assert await lean.evalsha(COUNT, ["lean:count"], [2]) == 2
            assert await lean.call("SCRIPT", "FLUSH") == b"OK"
            assert await lean.evalsha(COUNT, ["lean:count"], [3]) == 5  # NOSCRIPT: it did not run
            assert await lean.evalsha(COUNT, ["lean:count"], [1]) == 6
        finally:
            await lean.aclose()

    run(body())


def test_pipelined_calls_each_get_their_own_reply(redis_url: str, run: Run) -> None:
    async def body() -> None:
        lean = LeanConnection(redis_url, timeout=2.0)
        try:
            replies = await asyncio.gather(*(lean.call("ECHO", f"m{i}") for i in range(500)))
            assert replies == [f"m{i}".encode() for i in range(500)]
        finally:
            await lean.aclose()

    run(body())


def test_an_error_reply_is_a_response_error_and_the_connection_carries_on(
    redis_url: str, run: Run
) -> None:
    async def body() -> None:
        lean = LeanConnection(redis_url, timeout=2.0)
        try:
            first = lean.call("NO-SUCH-COMMAND")
            second = lean.call("ECHO", "after")
            with pytest.raises(ResponseError, match="unknown command"):
                await first
            assert await second == b"after"
        finally:
            await lean.aclose()

    run(body())


def _error_replies() -> list[str]:
    """An error reply for every entry of redis-py's parser table (each ``ERR`` message it
    names, each code), as Redis sends them, and some it does not name."""
    replies = []
    for code, classes in BaseParser.EXCEPTION_CLASSES.items():
        if isinstance(classes, dict):
            replies += [f"{code} {message}" for message in classes]
        elif code in ("ASK", "MOVED"):
            replies.append(f"{code} 3999 127.0.0.1:6381")
        else:
            replies.append(f"{code} the rest of the message")
    return [*replies, "ERR unknown command 'NOPE'", "WRONGTYPE Operation against a key"]


class ErrorRedis:
    """A stand-in for Redis on a free loopback port: ``PING`` is answered with the error
    reply given, ``ECHO`` with its argument, anything else with ``+OK``."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._serve, LOCALHOST, 0)
        return f"redis://{LOCALHOST}:{self.server.sockets[0].getsockname()[1]}/0"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        parser = hiredis.Reader()
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                parser.feed(data)
                while (command := parser.gets()) is not False:
                    name = command[0].upper()
                    if name == b"PING":
                        writer.write(b"-" + self.reply.encode() + b"\r\n")
                    elif name == b"ECHO":
                        writer.write(b"$%d\r\n%s\r\n" % (len(command[1]), command[1]))
                    else:
                        writer.write(b"+OK\r\n")
        writer.close()


@pytest.mark.parametrize("reply", _error_replies(), ids=lambda reply: reply[:40])
async def test_an_error_reply_is_the_exception_redis_py_makes_of_it(reply: str) -> None:
    """Each error reply is the exception redis-py's own client raises for it, made by
    redis-py's own table (it was a ResponseError whatever the reply). One redis-py counts as
    the connection's (a client limit, a wrong password, LOADING) closes the connection, as
    redis-py does; any other leaves it serving."""
    expected = BaseParser.parse_error(reply)
    async with ErrorRedis(reply) as url:
        lean = LeanConnection(url, timeout=2.0)
        client = aioredis.Redis.from_url(url, retry=Retry(NoBackoff(), retries=0))
        try:
            with pytest.raises(RedisError) as ours:
                await lean.call("PING")
            with pytest.raises(RedisError) as theirs:
                await client.execute_command("PING")
            assert type(ours.value) is type(expected) is type(theirs.value)
            if isinstance(expected, RedisConnectionError):
                assert str(expected) in str(ours.value)
                assert lean._link is None
            else:
                assert str(ours.value) == str(expected) == str(theirs.value)
                assert lean._link is not None
            assert await lean.call("ECHO", "next") == b"next"
        finally:
            await lean.aclose()
            await client.aclose()


def test_a_script_redis_does_not_know_is_redis_pys_no_script_error(
    redis_url: str, run: Run
) -> None:
    """From a real Redis: what the NOSCRIPT fallback catches (it matched the message's
    first word before)."""

    async def body() -> None:
        lean = LeanConnection(redis_url, timeout=2.0)
        try:
            with pytest.raises(NoScriptError):
                await lean.call("EVALSHA", "0" * 40, 0)
            assert await lean.call("ECHO", "on") == b"on"
        finally:
            await lean.aclose()

    run(body())


def test_a_cancelled_call_leaves_the_replies_of_the_others_in_order(
    redis_url: str, run: Run
) -> None:
    async def body() -> None:
        lean = LeanConnection(redis_url, timeout=2.0)
        try:
            await lean.call("PING")
            calls = [asyncio.ensure_future(lean.call("ECHO", f"m{i}")) for i in range(20)]
            calls[5].cancel()
            calls[11].cancel()
            done = await asyncio.gather(*calls, return_exceptions=True)
            for i, reply in enumerate(done):
                if i in (5, 11):
                    assert isinstance(reply, asyncio.CancelledError)
                else:
                    assert reply == f"m{i}".encode()
            assert await lean.call("ECHO", "next") == b"next"
        finally:
            await lean.aclose()

    run(body())


def test_a_paused_redis_times_out_every_waiting_call_and_runs_none_twice(
    redis_proc: RedisProcess, run: Run
) -> None:
    async def body() -> None:
        lean = LeanConnection(redis_proc.url, timeout=0.3)
        try:
            assert await lean.evalsha(COUNT, ["lean:paused"], [1]) == 1
            redis_proc.pause()
            # Steps of 10, 100 and 1,000: the counter then says which calls ran, and how often.
            steps = (10, 100, 1000)
            try:
                calls = [lean.evalsha(COUNT, ["lean:paused"], [step]) for step in steps]
                for outcome in await asyncio.gather(*calls, return_exceptions=True):
                    assert isinstance(outcome, RedisTimeoutError)
            finally:
                redis_proc.resume()
            # A new connection. Whether Redis read the timed-out calls before their connection
            # was reset is up to the kernel, but each ran at most once and none was resent:
            # the counter is 1 plus some subset of the steps, and stays there.
            after = await lean.evalsha(COUNT, ["lean:paused"], [0])
            at_most_once = {
                1 + sum(s for s, ran in zip(steps, used, strict=True) if ran)
                for used in itertools.product((False, True), repeat=3)
            }
            assert after in at_most_once, f"a timed-out call ran twice: {after}"
            assert await lean.evalsha(COUNT, ["lean:paused"], [0]) == after
        finally:
            await lean.aclose()

    run(body())


def test_a_killed_redis_fails_the_call_and_a_restarted_one_is_used_again(
    redis_proc: RedisProcess, run: Run
) -> None:
    async def body() -> None:
        lean = LeanConnection(redis_proc.url, timeout=1.0)
        try:
            assert await lean.call("SET", "lean:k", "v") == b"OK"
            redis_proc.kill()
            with pytest.raises(RedisConnectionError):
                await lean.call("GET", "lean:k")
            with pytest.raises(RedisConnectionError):
                await lean.call("GET", "lean:k")  # nothing listens: refused, not hung
            redis_proc.start()
            assert await lean.call("SET", "lean:k", "w") == b"OK"
            assert await lean.call("GET", "lean:k") == b"w"
        finally:
            await lean.aclose()

    run(body())


def test_the_password_and_database_of_the_url_are_used(run: Run) -> None:
    async def body() -> None:
        with RedisProcess() as redis:
            with redis.client() as admin:
                admin.config_set("requirepass", "s3cret")
            url = f"redis://:s3cret@{LOCALHOST}:{redis.port}/3"
            lean = LeanConnection(url, timeout=2.0)
            try:
                assert await lean.call("SET", "lean:db", "here") == b"OK"
                assert await lean.call("CLIENT", "INFO") is not None
            finally:
                await lean.aclose()
            with Redis(host=LOCALHOST, port=redis.port, password="s3cret", db=3) as client:
                assert client.get("lean:db") == b"here"
            # A wrong password is redis-py's AuthenticationError, as redis-py raises it (it was
            # a bare ResponseError).
            wrong = LeanConnection(f"redis://:wrong@{LOCALHOST}:{redis.port}/0", timeout=2.0)
            with pytest.raises(AuthenticationError):
                await wrong.call("PING")
            await wrong.aclose()

    run(body())


def test_the_store_saves_through_it_and_a_paused_redis_is_unavailable_not_a_hang(
    redis_proc: RedisProcess, run: Run
) -> None:
    async def body() -> None:
        store = RedisStore(redis_proc.url, timeout=0.3)
        notice = Notice(NoticeKind.CHANGE, "LEANX", 2, "i")
        try:
            tag = await store.create("LEANX", b"one", b"e1", ttl=60.0)
            assert tag is not None
            new = await store.save("LEANX", tag, 2, b"two", b"e2", 60.0, notice)
            stored = await store.load("LEANX")
            assert stored is not None and (stored.version, stored.data) == (2, b"two")
            assert isinstance(store._saves, LeanConnection) and store._saves._link is not None
            redis_proc.pause()
            try:
                with pytest.raises(StoreUnavailable):
                    await store.save("LEANX", new, 3, b"three", b"e3", 60.0, notice)
            finally:
                redis_proc.resume()
            stored = await store.load("LEANX")
            assert stored is not None and stored.version in (2, 3)
        finally:
            await store.close()

    run(body())


_CODES = iter(f"LEA{a}{b}" for a in ALPHABET for b in ALPHABET)


def _code() -> str:
    """A room code no earlier test used (the session's Redis is shared)."""
    return next(_CODES)


async def _created(store: RedisStore, code: str) -> str:
    """Create the room; a write is never retried by the store, so after Redis restarted the
    first try may meet a dead pooled connection (unavailable) and the second opens a new one."""
    for _ in range(2):
        try:
            tag = await store.create(code, b"one", b"e1", ttl=60.0)
        except StoreUnavailable:
            continue
        assert tag is not None
        return tag
    raise AssertionError("the room could not be created")


async def _opened(url: str) -> tuple[RedisStore, asyncio.Queue[Notice]]:
    store = RedisStore(url, timeout=1.0)
    notices: asyncio.Queue[Notice] = asyncio.Queue()
    await store.open(notices.put_nowait)
    return store, notices


async def _next(notices: asyncio.Queue[Notice], kind: NoticeKind) -> Notice:
    """The next notice of ``kind`` (others, such as a RESYNC after a reconnection, skipped)."""
    while True:
        got = await asyncio.wait_for(notices.get(), 10)
        if got.kind is kind:
            return got


@contextlib.asynccontextmanager
async def _watching(url: str, code: str) -> AsyncIterator[tuple[RedisStore, asyncio.Queue[Notice]]]:
    """Two instances' stores on one Redis: a writer, and a reader watching room ``code``
    whose subscription is live (its first RESYNC came); the writer and the reader's notices."""
    writer, _ = await _opened(url)
    reader, notices = await _opened(url)
    try:
        reader.watch(code)
        assert await _next(notices, NoticeKind.RESYNC) == Notice(NoticeKind.RESYNC, code, 0, "")
        yield writer, notices
    finally:
        await writer.close()
        await reader.close()


def test_notices_reach_another_instance_through_the_lean_subscriber(
    redis_url: str, run: Run
) -> None:
    async def body() -> None:
        code = _code()
        async with _watching(redis_url, code) as (writer, notices):
            tag = await _created(writer, code)
            sent = Notice(NoticeKind.CHANGE, code, 2, "writer")
            await writer.save(code, tag, 2, b"two", b"e2", 60.0, sent)
            assert await _next(notices, NoticeKind.CHANGE) == sent

    run(body())


def test_a_killed_redis_ends_the_subscription_and_it_is_made_again_with_a_resync(
    redis_proc: RedisProcess, run: Run
) -> None:
    async def body() -> None:
        code = _code()
        async with _watching(redis_proc.url, code) as (writer, notices):
            redis_proc.kill()
            redis_proc.start()
            # Persistence is off: the room is gone, but the subscription is made again and
            # says so, and notices flow again.
            assert await _next(notices, NoticeKind.RESYNC) == Notice(NoticeKind.RESYNC, code, 0, "")
            tag = await _created(writer, code)
            sent = Notice(NoticeKind.CHANGE, code, 2, "writer")
            await writer.save(code, tag, 2, b"two", b"e2", 60.0, sent)
            assert await _next(notices, NoticeKind.CHANGE) == sent

    run(body())


@pytest.mark.parametrize("where", ["redis", "cluster"])
async def test_an_unsubscription_not_asked_for_makes_the_subscription_again(
    where: str, request: pytest.FixtureRequest
) -> None:
    """What a cluster node does when a room's slot moves away; here Redis is made to send it
    by unsubscribing behind the store's back. The one subscriber, on the lean connection (one
    Redis) and on redis-py's (a cluster)."""
    code = _code()
    cluster = where == "cluster"
    url = request.getfixturevalue("redis_cluster_clean" if cluster else "redis_url")
    reader = RedisStore(url, timeout=1.0, cluster=cluster)
    notices: asyncio.Queue[Notice] = asyncio.Queue()
    await reader.open(notices.put_nowait)
    try:
        reader.watch(code)
        await _next(notices, NoticeKind.RESYNC)
        shard = next(iter(reader._shards.values()))
        assert isinstance(shard._conn, ClientSubscriber if cluster else LeanConnection)
        await shard._conn.unsubscribe(keys.notices(code))
        assert await _next(notices, NoticeKind.RESYNC) == Notice(NoticeKind.RESYNC, code, 0, "")
        assert shard.failed
        assert next(iter(reader._shards.values())) is not shard
    finally:
        await reader.close()


def test_a_redis_at_its_client_limit_is_an_error_at_once_not_a_hang(
    redis_proc: RedisProcess, run: Run
) -> None:
    """Redis at ``maxclients`` (or in protected mode) greets a new connection with an error
    and closes it: the call that opened it fails with a connection error, within its timeout,
    and the store calls that unavailable (review finding: it hung on asyncio's loop and was
    a bare RuntimeError on uvloop)."""

    async def body() -> None:
        with redis_proc.client() as admin:
            admin.config_set("maxclients", 1)  # this admin connection is the one
            lean = LeanConnection(redis_proc.url, timeout=1.0)
            store = RedisStore(redis_proc.url, timeout=1.0)
            try:
                with pytest.raises(RedisConnectionError, match="max number of clients"):
                    await asyncio.wait_for(lean.call("PING"), 5)
                notice = Notice(NoticeKind.CHANGE, "LEANM", 2, "i")
                with pytest.raises(StoreUnavailable):
                    await asyncio.wait_for(store.save("LEANM", "t", 2, b"d", b"e", 60.0, notice), 5)
            finally:
                admin.config_set("maxclients", 10000)
                await lean.aclose()
                await store.close()

    run(body())


class SlowRedis:
    """A stand-in for Redis on a free loopback port that answers each command ``delay``
    seconds after it came, from ``answers`` (command name -> RESP reply; ``+OK`` for any
    other): for what a real Redis cannot be made to do on cue, a slow reply to each step of a
    handshake."""

    def __init__(self, answers: dict[bytes, bytes], delay: float) -> None:
        self.answers = answers
        self.delay = delay
        self.commands: list[bytes] = []
        self.got = asyncio.Event()
        self.gone = asyncio.Event()
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._serve, LOCALHOST, 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"redis://:pw@{LOCALHOST}:{port}/0"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        parser = hiredis.Reader()
        try:
            while data := await reader.read(65536):
                parser.feed(data)
                while (command := parser.gets()) is not False:
                    self.commands.append(command[0].upper())
                    self.got.set()
                    await asyncio.sleep(self.delay)  # the stand-in's slowness, not a wait
                    writer.write(self.answers.get(command[0].upper(), b"+OK\r\n"))
        except ConnectionError:
            pass
        finally:
            self.gone.set()
            writer.close()


@pytest.mark.parametrize(
    "greeting",
    [b"-ERR max number of clients reached\r\n", b"-DENIED Redis is running in protected mode\r\n"],
)
def test_a_refusal_that_comes_after_the_call_was_written_is_a_connection_error(
    greeting: bytes, run: Run
) -> None:
    """Redis's refusal greeting can come after the first command was written (the race the
    client-limit test above runs into now and then): it is still a refused connection, a
    connection error, not that command's own error reply."""

    async def body() -> None:
        async with SlowRedis({b"AUTH": greeting}, delay=0.0) as url:
            lean = LeanConnection(url, timeout=1.0)
            try:
                with pytest.raises(RedisConnectionError, match="refused the connection"):
                    await asyncio.wait_for(lean.call("PING"), 5)
            finally:
                await lean.aclose()

    run(body())


@pytest.mark.parametrize("kind", ["lean", "redis-py"])
def test_the_connection_its_handshake_and_a_noscript_fallback_share_one_timeout(
    kind: str, run: Run
) -> None:
    """Each step answers in 0.3 s, the timeout is 0.5 s: AUTH, then EVALSHA (NOSCRIPT), then
    EVAL would take 0.9 s, so the call times out instead of taking every step's full timeout
    (review finding: it succeeded after 0.9 s). The same on redis-py's connection, which the
    save uses on a cluster (its socket timeout alone would have allowed each step 5 s)."""

    async def body() -> None:
        answers = {b"AUTH": b"+OK\r\n", b"EVALSHA": b"-NOSCRIPT no script\r\n", b"EVAL": b":1\r\n"}
        async with SlowRedis(answers, delay=0.3) as url:
            conn: Connection
            if kind == "lean":
                conn = LeanConnection(url, timeout=0.5)
            else:
                client = aioredis.Redis.from_url(
                    url, socket_timeout=5.0, retry=Retry(NoBackoff(), retries=0), protocol=2
                )
                conn = ClientConnection(client, timeout=0.5)
            loop = asyncio.get_running_loop()
            started = loop.time()
            try:
                with pytest.raises(RedisTimeoutError):
                    await conn.evalsha(COUNT, ["k"], [1])
                assert loop.time() - started < 0.8
            finally:
                await conn.aclose()

    run(body())


def test_closing_while_connecting_fails_the_waiting_call_and_keeps_no_connection(
    run: Run,
) -> None:
    """``aclose()`` while the handshake is under way: the waiting call fails with a
    connection error (not a cancellation it never asked for), and the connection is not
    kept afterwards (review finding: it was installed after the close and leaked)."""

    async def body() -> None:
        stand_in = SlowRedis({b"AUTH": b"+OK\r\n"}, delay=0.3)
        async with stand_in as url:
            lean = LeanConnection(url, timeout=5.0)
            call = asyncio.ensure_future(lean.call("PING"))
            await asyncio.wait_for(stand_in.got.wait(), 5)  # the AUTH has come
            await lean.aclose()
            with pytest.raises(RedisConnectionError):
                await call
            assert not call.cancelled()
            await asyncio.wait_for(stand_in.gone.wait(), 5)  # and its connection is closed
            assert lean._link is None
            with pytest.raises(RedisConnectionError):
                await lean.call("PING")

    run(body())


def test_the_connection_probes_a_silent_peer_with_tcp_keepalive(redis_url: str, run: Run) -> None:
    """A Redis gone without a word (a dropped NAT entry, a dead host) is noticed within about
    a minute: the socket has TCP keepalive on, probing after 30 s of silence."""

    async def body() -> None:
        lean = LeanConnection(redis_url, timeout=2.0)
        try:
            await lean.call("PING")
            assert lean._link is not None and lean._link.transport is not None
            sock = lean._link.transport.get_extra_info("socket")
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 30
        finally:
            await lean.aclose()

    run(body())


@pytest.mark.parametrize("where", ["redis", "cluster"])
async def test_one_save_path_serves_one_redis_and_a_cluster(
    where: str, request: pytest.FixtureRequest
) -> None:
    """The store's save is written once, whichever connection serves it (the lean one on one
    Redis, redis-py's on a cluster): the save script by its SHA-1, sent whole once after Redis
    lost it (SCRIPT FLUSH), its compare-and-set answered alike."""
    cluster = where == "cluster"
    if cluster:
        url = request.getfixturevalue("redis_cluster_clean")
        nodes: list[RedisProcess] = request.getfixturevalue("redis_cluster").live()
    else:
        url = request.getfixturevalue("redis_url")
        await flush(url)
        nodes = []
    store = RedisStore(url, timeout=1.0, cluster=cluster)
    conn = store._saves
    assert type(conn) is (ClientConnection if cluster else LeanConnection)
    sent: list[object] = []
    call = conn.call

    async def recording(*args: bytes | str | int, deadline: float | None = None) -> object:
        sent.append(args[0])
        return await call(*args, deadline=deadline)

    conn.call = recording  # type: ignore[method-assign]
    code = _code()
    notice = Notice(NoticeKind.CHANGE, code, 2, "i")
    try:
        tag = await store.create(code, b"one", b"e1", ttl=60.0)
        assert tag is not None
        sent.clear()
        if cluster:
            for node in nodes:
                with node.client() as admin:
                    admin.script_flush()
        else:
            with Redis.from_url(url) as admin:
                admin.script_flush()
        second = await store.save(code, tag, 2, b"two", b"e2", 60.0, notice)
        assert sent == ["EVALSHA", "EVAL"]  # NOSCRIPT: it did not run, and was sent whole
        await store.save(code, second, 3, b"three", b"e3", 60.0, notice)
        assert sent == ["EVALSHA", "EVAL", "EVALSHA"]
        with pytest.raises(VersionConflict):
            await store.save(code, tag, 3, b"late", b"e3", 60.0, notice)
        stored = await store.load(code)
        assert stored is not None and (stored.version, stored.data) == (3, b"three")
        assert [v for v, _ in await store.log(code)] == [1, 2, 3]
    finally:
        await store.close()

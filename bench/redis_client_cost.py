"""What one compare-and-set call to Redis costs the client's CPU, through redis-py's asyncio
client (as a registered script, and as the store's save runs on redis-py: ``ClientConnection``),
through redis-py's connection used directly, through a bare ``asyncio.Protocol`` with the
hiredis reader, and through the lean connection the store's save uses on one Redis
(``LeanConnection``; both in ``server/stores/redis_wire.py``; not a test).

Starts its own redis-server on a free loopback port, then makes the same ``EVALSHA`` of a
small script (``HSET`` of a 4 KB record and a ``PUBLISH``) ``--calls`` times, one at a time,
each way, under uvloop as the server runs, and prints the process's CPU time per call.

    python -m bench.redis_client_cost --calls 5000
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import hiredis
import redis.asyncio as aioredis
import uvloop
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from server.stores.redis_wire import ClientConnection, LeanConnection
from tests.redis_process import RedisProcess

SCRIPT = "redis.call('HSET', KEYS[1], 'data', ARGV[1]) redis.call('PUBLISH', 'x', ARGV[2]) return 1"


class Bare(asyncio.Protocol):
    """One Redis connection: commands written as RESP, replies read by hiredis in order."""

    def __init__(self) -> None:
        self.reader = hiredis.Reader()
        self.waiting: list[asyncio.Future[Any]] = []
        self.transport: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # uvloop's, which is not an asyncio.Transport subclass

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            self.waiting.pop(0).set_result(reply)

    def call(self, *args: bytes | str | int) -> asyncio.Future[Any]:
        parts = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode()
            parts += [b"$%d\r\n" % len(data), data, b"\r\n"]
        future = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        self.transport.write(b"".join(parts))
        return future


async def measure(calls: int) -> dict[str, float]:
    with RedisProcess() as redis:
        client = aioredis.Redis.from_url(
            redis.url, socket_timeout=1.0, retry=Retry(NoBackoff(), retries=0)
        )
        script = client.register_script(SCRIPT)
        sha = await client.script_load(SCRIPT)
        data = b"x" * 4000
        started = time.process_time()
        for _ in range(calls):
            await script(keys=["{a}room"], args=[data, "notice"])
        redis_py = (time.process_time() - started) / calls
        # The store's one save path on redis-py's client (a cluster, TLS, a Unix socket; and
        # what every save would cost without the lean connection).
        through = ClientConnection(client, timeout=1.0)
        started = time.process_time()
        for _ in range(calls):
            await through.evalsha(SCRIPT, ["{a}room"], [data, "notice"])
        client_connection = (time.process_time() - started) / calls
        # redis-py's own connection, as a leaner save through redis-py would use it: one pooled
        # connection, the command packed and sent, the reply read, without the client's command
        # layers.
        pool = client.connection_pool
        started = time.process_time()
        for _ in range(calls):
            conn = await pool.get_connection()
            try:
                await conn.send_packed_command(
                    conn.pack_command("EVALSHA", sha, 1, "{a}room", data, "notice"),
                    check_health=False,
                )
                await conn.read_response()
            finally:
                await pool.release(conn)
        connection = (time.process_time() - started) / calls
        loop = asyncio.get_running_loop()
        _, bare = await loop.create_connection(Bare, "127.0.0.1", redis.port)
        started = time.process_time()
        for _ in range(calls):
            await bare.call("EVALSHA", sha, 1, "{a}room", data, "notice")
        raw = (time.process_time() - started) / calls
        # What the store's save uses on one Redis (server/stores/redis_wire.py): the bare protocol
        # plus the timeout watch, the error replies and NOSCRIPT.
        lean = LeanConnection(redis.url, timeout=1.0)
        await lean.evalsha(SCRIPT, ["{a}room"], [data, "notice"])
        started = time.process_time()
        for _ in range(calls):
            await lean.evalsha(SCRIPT, ["{a}room"], [data, "notice"])
        ours = (time.process_time() - started) / calls
        await lean.aclose()
        await client.aclose()
    return {
        "redis_py_us_per_call": round(1e6 * redis_py, 1),
        "redis_py_client_connection_us_per_call": round(1e6 * client_connection, 1),
        "redis_py_connection_us_per_call": round(1e6 * connection, 1),
        "bare_us_per_call": round(1e6 * raw, 1),
        "lean_connection_us_per_call": round(1e6 * ours, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    uvloop.install()
    print(asyncio.run(measure(args.calls)))


if __name__ == "__main__":
    main()

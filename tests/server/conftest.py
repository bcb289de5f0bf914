"""Fixtures for the server tests: the toy game, a session redis-server, stores, servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import redis.asyncio as aioredis

from rules.registry import all_games, register
from server.memory_store import MemoryStore
from server.redis_store import RedisStore
from server.store import Store
from tests.server.harness import redis_server
from tests.server.toygame import ToyGame

if "toy" not in all_games():
    register(ToyGame())


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture
async def redis_clean(redis_url: str) -> AsyncIterator[str]:
    """The session's Redis, flushed before the test."""
    client = aioredis.Redis.from_url(redis_url)
    await client.flushall()
    await client.aclose()
    yield redis_url


@pytest.fixture(params=["memory", "redis"])
async def store_factory(request: pytest.FixtureRequest) -> AsyncIterator[Callable[[], Store]]:
    """Makes unopened stores of each backend; the Redis one is flushed for the test."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_clean")
        yield lambda: RedisStore(url)
    else:
        yield MemoryStore

"""Fixtures for the server tests: the toy game, a session redis-server, stores, servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from rules.registry import all_games, register
from tests.server.harness import flush, redis_server
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
    await flush(redis_url)
    yield redis_url

"""Fixtures for the server tests: the toy game, redis-servers, stores, servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Literal

import pytest

from rules.registry import all_games, register
from tests.redis_process import RedisProcess
from tests.server.harness import flush
from tests.server.toygame import ToyGame

if "toy" not in all_games():
    register(ToyGame())


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """One redis-server for the session (persistence off)."""
    with RedisProcess() as redis:
        yield redis.url


@pytest.fixture
async def redis_clean(redis_url: str) -> AsyncIterator[str]:
    """The session's Redis, flushed before the test."""
    await flush(redis_url)
    yield redis_url


@pytest.fixture
def redis_proc(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RedisProcess]:
    """A private redis-server for fault tests: kill, pause, restart, restore.

    Persistence is off unless the test asks for the append-only file:
    ``@pytest.mark.parametrize("redis_proc", ["aof"], indirect=True)``. Its work dir (and
    log) is under the test's tmp_path."""
    persistence: Literal["off", "aof"] = getattr(request, "param", "off")
    with RedisProcess(persistence=persistence, workdir=tmp_path / "redis") as redis:
        yield redis

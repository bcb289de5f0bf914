"""Fixtures for the server tests: the toy game, redis-servers, stores, servers.

The toy game is in the game registry only while server tests are collected or run: the rules
tests list every registered game, and must see the same games whatever else runs with them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pytest
import uvloop

from rules.registry import all_games, register, unregister
from tests.redis_cluster import RedisCluster
from tests.redis_process import RedisProcess
from tests.server.harness import flush
from tests.server.toygame import ToyGame

TOY = ToyGame()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On plain ASGI (PARLOR_PLAIN_ASGI=1) the bounds Parlor's own protocols add to uvicorn
    are not there to test: those tests are left out of that run, and run in the usual one."""
    from tests.server.harness import TEST_SETTINGS

    if not TEST_SETTINGS.plain_asgi:
        return
    skip = pytest.mark.skip(reason="a bound of Parlor's protocols; this run is on plain ASGI")
    for item in items:
        if "parlor_protocols" in item.keywords:
            item.add_marker(skip)


Run = Callable[[Coroutine[Any, Any, None]], None]


@pytest.fixture(params=["asyncio", "uvloop"])
def run(request: pytest.FixtureRequest) -> Run:
    """Runs a test's body on asyncio's loop, and on uvloop (which the server runs on, and whose
    transports and timers are not asyncio's own)."""
    factory = uvloop.new_event_loop if request.param == "uvloop" else asyncio.new_event_loop

    def run(body: Coroutine[Any, Any, None]) -> None:
        with asyncio.Runner(loop_factory=factory) as runner:
            runner.run(body)

    return run


@contextmanager
def _toy_registered() -> Iterator[None]:
    if TOY.id in all_games():
        # Already registered by an enclosing collector or the package fixture.
        yield
        return
    register(TOY)
    try:
        yield
    finally:
        unregister(TOY.id)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    # Only called for collectors under tests/server: some of their tests are parametrised by
    # the registered games when their module is imported.
    with _toy_registered():
        return (yield)


@pytest.fixture(scope="package", autouse=True)
def toy_game() -> Iterator[ToyGame]:
    """The toy game registered for the server tests, and only for them."""
    with _toy_registered():
        yield TOY


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """One redis-server for the session (persistence off)."""
    with RedisProcess() as redis:
        yield redis.url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    """One Redis Cluster for the session: three masters, one replica each (six redis-servers).
    A test that kills a node takes its own (see test_redis_cluster.py)."""
    with RedisCluster() as cluster:
        yield cluster


@pytest.fixture
def redis_cluster_clean(redis_cluster: RedisCluster) -> str:
    """The session's cluster, every master flushed before the test; its URL."""
    redis_cluster.flush()
    return redis_cluster.url


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

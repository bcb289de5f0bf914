"""Fixtures for the server tests: the toy game, a session redis-server, stores, servers.

The toy game is in the game registry only while server tests are collected or run: the rules
tests list every registered game, and must see the same games whatever else runs with them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Iterator
from contextlib import contextmanager

import pytest

from rules.registry import all_games, register, unregister
from tests.server.harness import flush, redis_server
from tests.server.toygame import ToyGame

TOY = ToyGame()


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
    with redis_server() as url:
        yield url


@pytest.fixture
async def redis_clean(redis_url: str) -> AsyncIterator[str]:
    """The session's Redis, flushed before the test."""
    await flush(redis_url)
    yield redis_url

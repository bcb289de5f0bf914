"""Fixtures for the browser tests: a real ``parlor serve`` and Debian's Chromium via Playwright.

The server runs as a subprocess (uvicorn, embedded store, small bot delay) on a free port; the
browser is the system's ``/usr/bin/chromium`` — nothing is downloaded. Each test gets fresh
browser contexts (separate storage, like separate people), and fails on any page error or
console error.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.browser.pages import Person
from tests.browser.served import parlor_serve

CHROMIUM = os.environ.get("PARLOR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    served = parlor_serve(tmp_path_factory.mktemp("server"))
    with served.process:
        yield served.url


# Per module, not per session: Playwright's sync API keeps an event loop running in this thread
# while it is open, which would stop the asyncio tests of other packages from running theirs.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/bootstrap (installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def person(browser: object, server_url: str) -> Iterator[Callable[..., Person]]:
    """``person(name, phone=True)``: a new browser context (own storage) with one page."""
    made: list[Person] = []

    def make(name: str, *, phone: bool = True) -> Person:
        context = browser.new_context(  # type: ignore[attr-defined]
            viewport=PHONE if phone else DESKTOP, base_url=server_url
        )
        context.set_default_timeout(15_000)
        someone = Person(name, context.new_page(), server_url)
        made.append(someone)
        return someone

    yield make
    problems = [f"{p.name}: {e}" for p in made for e in p.errors]
    for someone in made:
        someone.page.context.close()
    assert not problems, "errors in the page:\n" + "\n".join(problems)

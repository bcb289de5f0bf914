"""Plays a whole game in the browser: every person clicks legal controls on their own page.

Nothing polls on a clock: when nobody can move, we wait for the next version to reach the page
that is behind (or, when all pages agree, for a bot's move to reach the first one).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import TimeoutError

from tests.browser.pages import Person

ROOT = Path(__file__).resolve().parents[2]


def screenshot_dir(tmp: Path) -> Path:
    """``PARLOR_SCREENSHOTS=docs/screenshots`` refreshes the README's pictures; else a temp dir."""
    chosen = os.environ.get("PARLOR_SCREENSHOTS")
    return (ROOT / chosen) if chosen else tmp


def results_shots(game: str, tmp: Path, phone: Person, desktop: Person) -> dict[str, Path]:
    """Where ``play_to_the_end(shoot_results=…)`` puts each page's results screen:
    ``<game>-results-phone.png`` and ``<game>-results-desktop.png``."""
    folder = screenshot_dir(tmp)
    return {
        phone.name: folder / f"{game}-results-phone.png",
        desktop.name: folder / f"{game}-results-desktop.png",
    }


def wait_for_news(players: list[Person], versions: list[int]) -> None:
    """Nobody could move at ``versions``: wait for the page that is behind to catch up or, when
    all agreed, for the next change (a bot's move) to reach the first page."""
    behind = versions.index(min(versions))
    players[behind].wait_version_above(versions[behind])


def play_to_the_end(
    game: str,
    players: list[Person],
    *,
    limit_s: float = 240,
    at_step: dict[int, Callable[[], None]] | None = None,
    shoot: dict[str, Path] | None = None,
    shoot_after: int = 8,
    shoot_results: dict[str, Path] | None = None,
) -> int:
    """Drive ``players`` until every page shows the game over; returns the number of clicks.

    ``at_step[n]`` runs once after the n-th click (a reload, say). ``shoot`` maps a player's
    name to a screenshot path, taken the first time that player is mid-turn (something chosen,
    the move not yet made) after ``shoot_after`` clicks; ``shoot_results`` likewise, of the
    results over the table once the game is over (see ``results_shots``).
    """
    hooks = dict(at_step or {})
    shots = dict(shoot or {})
    clicks = 0
    deadline = time.monotonic() + limit_s
    while not all(p.over() for p in players):
        assert time.monotonic() < deadline, f"{game}: no end after {clicks} clicks"
        # Read before looking for moves: whatever arrives after this wakes the wait below.
        versions = [p.version for p in players]
        acted = False
        for person in players:
            if person.step(game):
                acted = True
                clicks += 1
                if clicks in hooks:
                    hooks.pop(clicks)()
                path = shots.get(person.name)
                if path and clicks >= shoot_after and person.my_turn():
                    person.screenshot(path)
                    del shots[person.name]
        if acted:
            continue
        if not all(p.over() for p in players):
            try:
                wait_for_news(players, versions)
            except TimeoutError:
                raise AssertionError(
                    f"{game}: stuck after {clicks} clicks: {_where(players)}"
                ) from None
    for person, path in shots.items():
        # The game ended before that person was mid-turn: show the final table instead.
        next(p for p in players if p.name == person).screenshot(path)
    for name, path in (shoot_results or {}).items():
        someone = next(p for p in players if p.name == name)
        someone.page.locator("[data-results]").wait_for()
        someone.screenshot(path)
    return clicks


def _where(players: list[Person]) -> str:
    return "; ".join(
        f"{p.name} {p.facts()} banner={p.page.locator('.turn-banner').all_inner_texts()}"
        for p in players
    )


def play_until(
    game: str, players: list[Person], done: Callable[[], bool], *, limit_s: float = 120
) -> int:
    """Drive ``players`` (each clicks its preferred legal control on its turn) until ``done()``;
    returns the number of clicks. Like ``play_to_the_end``, nothing polls on a clock: when nobody
    can move, wait for the next version to reach the page that is behind."""
    clicks = 0
    deadline = time.monotonic() + limit_s
    while not done():
        assert time.monotonic() < deadline, f"{game}: not done after {clicks} clicks"
        assert not all(p.over() for p in players), f"{game}: the game ended first"
        versions = [p.version for p in players]
        acted = False
        for person in players:
            if person.step(game):
                acted = True
                clicks += 1
        if acted or done():
            continue
        try:
            wait_for_news(players, versions)
        except TimeoutError:
            raise AssertionError(
                f"{game}: stuck after {clicks} clicks: {_where(players)}"
            ) from None
    return clicks

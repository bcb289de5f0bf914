"""The replay viewer (/r/CODE/replay/N) in a real browser, for every game: a game played to
the end over a WebSocket (tests/browser/recorded.py), then watched step by step on a phone and
a desktop — the deal checked, the controls and the keyboard, the seat chooser, the move feed,
the download, the result at the last step; errors in words; the link from the results.

These run against their own ``parlor serve`` whose bots move at once (and whose flood limit lets
the test's client move as fast), so each game is made in about a second; each game is made once
for the module and watched by every test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.contrast import CONTRAST_JS
from tests.browser.pages import Person
from tests.browser.recorded import Game, finished_game, game_in_play
from tests.browser.served import Served, parlor_serve

Make = Callable[..., Person]
GAMES = ["numberswap", "warp99", "floor"]
SIZES = ["phone", "desktop"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = parlor_serve(
        tmp_path_factory.mktemp("replay"),
        PARLOR_BOT_DELAY="0",
        # The test's client moves at machine speed, faster than a person may send.
        PARLOR_FLOOD_RATE="1000",
        PARLOR_FLOOD_BURST="1000",
    )
    with served.process:
        yield served


@pytest.fixture(scope="module")
def server_url(served: Served) -> str:
    """The ``person`` fixture's server, for this module: the one with the quick bots."""
    return served.url


@pytest.fixture(scope="module")
def finished(served: Served) -> Callable[[str], tuple[Game, dict[str, Any]]]:
    """``finished(game)``: a finished game of ``game`` (made once) and its record."""
    made: dict[str, tuple[Game, dict[str, Any]]] = {}

    def get(game: str) -> tuple[Game, dict[str, Any]]:
        if game not in made:
            played = finished_game(served.url, game)
            answer = httpx.get(f"{served.url}{record_path(played)}")
            assert answer.status_code == 200, answer.text
            made[game] = (played, answer.json())
        return made[game]

    return get


def record_path(game: Game) -> str:
    return f"/api/rooms/{game.code}/games/{game.number}/record"


def viewer(person: Make, size: str, game: Game, query: str = "") -> Person:
    someone = person("Ana", phone=size == "phone")
    someone.page.goto(f"/r/{game.code}/replay/{game.number}{query}")
    return someone


def sideways(page: Page) -> int:
    width: int = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


def shown(page: Page, step: int, seat: str = "spectator") -> None:
    """Wait until the table shows ``step`` from ``seat``'s view."""
    page.locator(f'.replay-table[data-shown-step="{step}"][data-shown-seat="{seat}"]').wait_for()


def table_html(page: Page) -> str:
    """The table's drawing (the players, the middle, the tray), without the line saying the move;
    attributes in name order (a patched element may list them in another order than a new one)."""
    html: str = page.evaluate(
        """() => {
          const out = (n) => n.nodeType !== 1 ? n.textContent : `<${n.tagName}`
            + [...n.attributes].map((a) => ` ${a.name}="${a.value}"`).sort().join('')
            + `>${[...n.childNodes].map(out).join('')}</${n.tagName}>`;
          const parts = document.querySelectorAll('.replay-table > :not(.replay-now)');
          return [...parts].map(out).join('');
        }"""
    )
    return html


def open_feed(page: Page) -> None:
    feed = page.locator("details.replay-feed")
    if feed.get_attribute("open") is None:
        feed.locator("summary").click()
        expect(feed).to_have_attribute("open", "")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("game", GAMES)
def test_the_viewer_steps_through_a_finished_game(
    person: Make, finished: Callable[[str], tuple[Game, dict[str, Any]]], game: str, size: str
) -> None:
    played, record = finished(game)
    total = len(record["actions"])
    assert total >= 3, record["actions"]
    ana = viewer(person, size, played)
    page = ana.page
    counter = page.locator("[data-step-counter]")
    # The deal was checked in the browser, which did not play it: nothing contradicts it, but
    # only a browser that contributed can call it verified. The commitment is shown.
    expect(page.locator("[data-deal-check=unchecked]")).to_contain_text(
        "Deal not checked by this browser: you watched"
    )
    expect(page.locator("[data-commitment]")).to_have_text(
        f"Deal sealed: {record['commitment'][:8]}…"
    )
    shown(page, 0)
    expect(counter).to_have_text(f"Step 0 of {total}")
    assert sideways(page) == 0
    deal = table_html(page)

    # Forward: the counter and the table move on.
    page.get_by_role("button", name="Forward one step").click()
    shown(page, 1)
    expect(counter).to_have_text(f"Step 1 of {total}")
    assert table_html(page) != deal
    # The keyboard: → and ←, End and Home.
    page.keyboard.press("ArrowRight")
    shown(page, 2)
    page.keyboard.press("ArrowLeft")
    shown(page, 1)
    page.keyboard.press("End")
    shown(page, total)
    expect(counter).to_have_text(f"Step {total} of {total}")
    # The last step shows the result.
    result = page.locator("[data-replay-result]")
    winners = [record["seats"][s]["name"] for s in record["result"]["winners"]]
    expect(result).to_contain_text(winners[0])
    expect(result).to_contain_text("Game over")
    assert sideways(page) == 0
    # Back works, and the result is gone before the end.
    page.get_by_role("button", name="Back one step").click()
    shown(page, total - 1)
    expect(result).to_have_count(0)
    page.keyboard.press("Home")
    shown(page, 0)
    assert table_html(page) == deal
    # The slider goes anywhere.
    page.get_by_role("slider", name="Step").fill(str(total // 2))
    shown(page, total // 2)
    expect(counter).to_have_text(f"Step {total // 2} of {total}")

    # The feed: every move up to this step, the current one marked; a line is a way there.
    open_feed(page)
    lines = page.locator(".replay-moves li")
    expect(lines).to_have_count(total // 2 + 1)
    expect(page.locator(".replay-moves li[aria-current=step]")).to_have_count(1)
    texts = lines.all_inner_texts()
    assert all(t.strip() and "undefined" not in t for t in texts), texts
    page.locator('.replay-moves [data-step="1"]').click()
    shown(page, 1)
    expect(lines).to_have_count(2)

    # A player's view keeps the step; that player's hand is in the tray, and nothing is live.
    own_turn = next(i for i, done in enumerate(record["actions"]) if done["seat"] == 0)
    page.get_by_role("slider", name="Step").fill(str(own_turn))
    shown(page, own_turn)
    page.get_by_label("Whose view").select_option(label="Ana's view")
    shown(page, own_turn, "0")
    expect(counter).to_have_text(f"Step {own_turn} of {total}")
    assert page.locator(".replay-tray .card").count() > 0
    assert page.locator("#app .replay-table [data-legal]").count() == 0
    page.get_by_label("Whose view").select_option(label="Spectator")
    shown(page, own_turn)

    # The record can be downloaded, and the page says how to check it.
    file = f"parlor-{played.code}-{played.number}.json"
    link = page.locator("[data-download-record]")
    expect(link).to_have_attribute("href", record_path(played))
    expect(link).to_have_attribute("download", file)
    expect(page.locator(".replay-download")).to_contain_text(f"parlor verify {file}")
    assert page.request.get(record_path(played)).json() == record

    assert sideways(page) == 0
    if size == "phone":
        # The controls sit in a bar at the bottom of the screen.
        bar = page.locator(".replay-bar").bounding_box()
        height = page.viewport_size["height"]  # type: ignore[index]
        assert bar is not None and bar["y"] + bar["height"] <= height + 1, bar
        assert bar["y"] > height / 2, bar


@pytest.mark.parametrize("game", GAMES)
def test_everything_revealed(
    person: Make, finished: Callable[[str], tuple[Game, dict[str, Any]]], game: str
) -> None:
    """Every hand open (``Game.open_view``): the view no seat had during the game."""
    played, record = finished(game)
    step = len(record["actions"]) // 2
    ana = viewer(person, "phone", played, f"?step={step}")
    page = ana.page
    shown(page, step)
    spectator = table_html(page)
    page.get_by_label("Whose view").select_option(label="Everything revealed")
    # The open views, or the page's words for a server that cannot give them.
    page.locator('[data-replay-failed], .replay-table[data-shown-seat="all"]').first.wait_for()
    failed = page.locator("[data-replay-failed]")
    assert failed.count() == 0, failed.inner_text()
    shown(page, step, "all")
    expect(page.locator("[data-step-counter]")).to_have_text(
        f"Step {step} of {len(record['actions'])}"
    )
    assert table_html(page) != spectator
    assert sideways(page) == 0
    # Switching back keeps the step too.
    page.get_by_label("Whose view").select_option(label="Spectator")
    shown(page, step)


def test_the_seat_and_step_are_in_the_address(
    person: Make, finished: Callable[[str], tuple[Game, dict[str, Any]]]
) -> None:
    played, record = finished("numberswap")
    ana = viewer(person, "desktop", played)
    page = ana.page
    shown(page, 0)
    page.get_by_role("button", name="Last step").click()
    page.get_by_label("Whose view").select_option(label="Bot 1's view")
    total = len(record["actions"])
    shown(page, total, "1")
    page.reload()
    shown(page, total, "1")
    expect(page.get_by_label("Whose view")).to_have_value("1")


def test_the_viewer_reads_well(
    person: Make, finished: Callable[[str], tuple[Game, dict[str, Any]]]
) -> None:
    played, _ = finished("warp99")
    ana = viewer(person, "phone", played)
    page = ana.page
    shown(page, 0)
    page.locator("[data-deal-check=unchecked]").wait_for()
    open_feed(page)
    texts = page.evaluate(
        CONTRAST_JS,
        "#app .replay-head *, #app .replay-feed *, #app .replay-bar *, #app .replay-now",
    )
    assert len(texts) > 8, texts
    low = [t for t in texts if t["ratio"] < 4.5]
    assert not low, low[:5]
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('#app button, #app input, #app select, #app a')]
            .filter(el => !(el.getAttribute('aria-label') || el.textContent.trim()
                || (el.labels && el.labels.length)))
            .map(el => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []


def test_a_game_still_being_played_has_no_replay_yet(served: Served, person: Make) -> None:
    playing = game_in_play(served.url, "numberswap")
    ana = viewer(person, "phone", playing)
    page = ana.page
    expect(page.get_by_role("alert")).to_have_text(
        "Game 1 is still being played — come back when it is over."
    )
    expect(page.locator("[data-room-link]")).to_have_attribute("href", f"/r/{playing.code}")
    assert sideways(page) == 0
    # The browser logs the API's refusal; that one is expected.
    ana.errors = [e for e in ana.errors if "409 (Conflict)" not in e]


def test_no_such_room_or_game_is_said_in_words(
    person: Make, finished: Callable[[str], tuple[Game, dict[str, Any]]]
) -> None:
    played, _ = finished("floor")
    ana = person("Ana")
    ana.page.goto("/r/ZZZZZ/replay/1")
    expect(ana.page.get_by_role("alert")).to_contain_text("There is no room ZZZZZ")
    ana.page.goto(f"/r/{played.code}/replay/7")
    expect(ana.page.get_by_role("alert")).to_have_text(
        f"Room {played.code} has no record of game 7."
    )
    ana.errors = [e for e in ana.errors if "404 (Not Found)" not in e]


def test_the_results_link_to_the_replay(
    person: Make, finished: Callable[[str], tuple[Game, dict[str, Any]]]
) -> None:
    played, _ = finished("numberswap")
    ben = person("Ben", phone=False)
    ben.watch(played.code)
    link = ben.page.locator("[data-results] [data-replay-link]")
    expect(link).to_have_text("Watch the replay")
    expect(link).to_have_attribute("href", f"/r/{played.code}/replay/{played.number}")
    link.click()
    ben.page.wait_for_url(re.compile(rf"/r/{played.code}/replay/{played.number}"))
    expect(ben.page.locator("[data-deal-check=unchecked]")).to_contain_text("you watched")

"""Number Swap's phone-first table in a real browser, at a phone's and a desktop's size: the grid
and the moves slot stay put across a turn, the table fits the screen, a card keeps its colours
when hovered or chosen, the ticker says what a move did, focus stays on the table, the round end
waits for "Next round", and the results name the players.

Two people and no bot, where a test needs the table to stand still between its steps (nothing
moves unless a page clicks); a bot where a test needs someone who is ready at once.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Error, Page, WebSocketRoute

from tests.browser.pages import Person
from tests.browser.play import play_to_the_end, screenshot_dir, wait_for_news

Make = Callable[..., Person]
SIZES = {"phone": {"width": 375, "height": 812}, "desktop": {"width": 1280, "height": 800}}
GRID = ".tray-hand .ns-grid"
MOVES = ".tray-moves"
# Every move of a round but the round end's: face-down cards first, so the round ends.
PLAYING = (
    "[data-legal=cell]:not([data-up])",
    "[data-legal=draw]",
    "[data-legal=take]",
    "[data-legal=cell]",
)


@pytest.fixture(params=sorted(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def _sized(person: Make, name: str, size: str) -> Person:
    someone = person(name, phone=size == "phone")
    someone.page.set_viewport_size(SIZES[size])
    return someone


def _start(host: Person, others: list[Person], *, bots: int = 0, target: int = 1000) -> None:
    code = host.create_room("numberswap", {"target_score": target})
    for other in others:
        other.join_by_code(code)
    for _ in range(bots):
        host.click("Add a bot")
    host.wait_seats(1 + len(others) + bots)
    host.click("Start the game")
    for someone in (host, *others):
        someone.wait_screen("table")


def _flip_two(someone: Person) -> None:
    page = someone.page
    page.locator("#app [data-legal=cell]").first.click()
    page.locator("#app [data-legal=cell]").first.click()
    someone.wait_idle()


def _two_at_table(person: Make, size: str) -> tuple[Person, Person]:
    """Ana (at ``size``) and Ben, both past the opening flips; nothing moves by itself."""
    ana, ben = _sized(person, "Ana", size), person("Ben", phone=False)
    _start(ana, [ben])
    _flip_two(ana)
    _flip_two(ben)
    for someone in (ana, ben):
        someone.page.locator(".ns-piles").wait_for()
    return ana, ben


def _turn_start(players: list[Person]) -> Person:
    """The one whose turn starts now (both the discard and the draw pile offered)."""
    for someone in players:
        someone.page.wait_for_function("() => document.body.dataset.busy !== 'true'")
    for someone in players:
        if someone.my_turn() and someone.page.locator("#app [data-legal=take]").count():
            return someone
    raise AssertionError("nobody's turn starts")


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not on the page"
    return {k: round(v, 1) for k, v in box.items()}


def _no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), (
        "the page scrolls sideways"
    )


def test_the_grid_and_the_moves_slot_stay_put_across_a_turn(person: Make, size: str) -> None:
    ana, ben = _two_at_table(person, size)
    me = _turn_start([ana, ben])
    page = me.page
    before = (_box(page, GRID), _box(page, MOVES))
    # First tap: draw. The moves for the drawn card appear in their reserved slot.
    page.locator("#app [data-legal=draw]").click()
    page.locator(f"{MOVES} [data-legal=mode]").wait_for()
    assert (_box(page, GRID), _box(page, MOVES)) == before, "the first tap moved the grid"
    version = me.version
    page.locator("#app [data-legal=cell]").first.click()
    me.wait_version_above(version)
    me.wait_idle()
    assert (_box(page, GRID), _box(page, MOVES)) == before, "the move moved the grid"
    _no_sideways_scroll(page)


def test_the_table_fits_the_screen_during_play(person: Make, size: str) -> None:
    ana, ben = _two_at_table(person, size)
    for someone in (ana, ben):
        page = someone.page
        _no_sideways_scroll(page)
        height = page.evaluate("() => window.innerHeight")
        assert page.evaluate("() => window.scrollY") == 0
        for selector in (GRID, ".ns-piles", MOVES, ".tray-hint", ".table-strip"):
            box = _box(page, selector)
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (
                f"{someone.name}: {selector} {box} is outside the {height}px screen"
            )


def _paint(page: Page, selector: str) -> dict[str, str]:
    paint: dict[str, str] = page.locator(selector).first.evaluate(
        """el => { const s = getComputedStyle(el);
                   return {bg: s.backgroundColor, image: s.backgroundImage, color: s.color,
                           opacity: s.opacity}; }"""
    )
    return paint


def test_a_hovered_or_chosen_card_keeps_its_colours(person: Make, size: str) -> None:
    ana, ben = _sized(person, "Ana", size), person("Ben", phone=False)
    _start(ana, [ben])
    page = ana.page
    down = "#app .tray-hand [data-legal=cell]"
    face_down = _paint(page, down)
    assert face_down["image"] != "none", "a face-down card shows its back"
    page.locator(down).first.hover()
    assert _paint(page, down) == face_down, "hovering repainted a face-down card"
    page.locator(down).first.click()
    chosen = "#app .tray-hand .ns-card.selected"
    page.locator(chosen).wait_for()
    assert _paint(page, chosen) == face_down, "choosing repainted a face-down card"
    page.locator("#app [data-legal=cell]:not(.selected)").first.click()
    ana.wait_idle()
    # A face-up card: the value's colour stays, hovered, focused or not.
    up = "#app .tray-hand .ns-card[data-up]"
    page.locator(up).first.wait_for()
    face_up = _paint(page, up)
    assert face_up["bg"] not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
    page.locator(up).first.hover()
    page.locator(up).first.focus()
    assert _paint(page, up) == face_up, "hovering or focusing repainted a face-up card"


def test_the_ticker_names_the_player_and_the_card_taken(person: Make, size: str) -> None:
    ana, ben = _two_at_table(person, size)
    me = _turn_start([ana, ben])
    other = ben if me is ana else ana
    page = me.page
    top = page.locator(".ns-pile.discard .ns-value").inner_text()
    page.locator("#app [data-legal=take]").click()
    cell = page.locator("#app [data-legal=cell]").nth(4)
    column = int(cell.get_attribute("data-pos") or 0) // 3 + 1
    cell.click()
    line = f"{me.name} took the {top} → column {column}"
    for someone in (me, other):
        someone.page.wait_for_function(
            "line => document.querySelector('.ticker[data-ticker]').textContent.includes(line)",
            arg=line,
        )


def test_focus_stays_on_the_table_after_a_move(person: Make, size: str) -> None:
    ana, ben = _two_at_table(person, size)
    me = _turn_start([ana, ben])
    page = me.page
    page.locator("#app [data-legal=draw]").click()
    page.locator("#app [data-legal=cell]").first.wait_for()
    version = me.version
    page.locator("#app [data-legal=cell]").first.click()
    me.wait_version_above(version)
    me.wait_idle()
    where = page.evaluate(
        """() => { const a = document.activeElement;
                   return a !== document.body && Boolean(a.closest('.tray, .table-middle')); }"""
    )
    assert where, "focus fell to the page after the move"


def _step(someone: Person) -> bool:
    """One move of a round (never Next round) when it is this person's turn."""
    if not someone.my_turn():
        return False
    for selector in PLAYING:
        control = someone.page.locator(f"#app {selector}").first
        if control.count():
            try:
                control.click(timeout=5_000)
            except Error:  # the view changed under the click; look again
                return True
            someone.wait_idle()
            return True
    return False


def _play_the_round(players: list[Person]) -> None:
    deadline = time.monotonic() + 180
    while not all(p.page.locator(".ns-reveal").count() for p in players):
        assert time.monotonic() < deadline, "the round did not end"
        versions = [p.version for p in players]
        moved = any([_step(p) for p in players])
        if not moved and not all(p.page.locator(".ns-reveal").count() for p in players):
            wait_for_news(players, versions)


def test_the_round_end_waits_for_next_round(person: Make, size: str, tmp_path: Path) -> None:
    ana, ben = _sized(person, "Ana", size), person("Ben", phone=False)
    _start(ana, [ben], bots=1)
    _play_the_round([ana, ben])
    page = ana.page
    reveal = page.locator(".ns-reveal")
    # Every grid revealed with its score, the bot ready at once, the table waiting for people.
    assert reveal.locator(".ns-reveal-row").count() == 3
    assert reveal.locator(".ns-card.down").count() == 0, "a card is still face down"
    assert sorted(reveal.locator(".ns-reveal-who strong").all_inner_texts()) == [
        "Ana (you)",
        "Ben",
        "Bot 1",
    ]
    reveal.locator(".ns-reveal-row", has_text="Bot 1").locator("[data-ready]").wait_for()
    assert page.locator(".ns-round-score").count() == 3
    assert page.locator("[data-countdown]").count() >= 1
    next_round = page.locator("#app [data-legal=next]")
    assert next_round.is_visible()
    shot = screenshot_dir(tmp_path) / f"numberswap-round-end-{size}.png"
    ana.screenshot(shot)
    version = ana.version
    next_round.click()
    page.locator(MOVES).get_by_text("Waiting for Ben…").wait_for()
    ben.page.locator(".ns-reveal-row", has_text="Ana").locator("[data-ready]").wait_for()
    assert ana.version > version and reveal.is_visible(), "the reveal stays until all are ready"
    ben.page.locator("#app [data-legal=next]").click()
    for someone in (ana, ben):
        someone.page.locator(".ns-piles").wait_for()
        someone.page.locator(".ns-status", has_text="Round 2").wait_for()
    assert not reveal.count()


def test_the_results_name_every_player_round_by_round(person: Make, size: str) -> None:
    ana = _sized(person, "Ana", size)
    _start(ana, [], bots=1, target=10)
    play_to_the_end("numberswap", [ana])
    names = [row[1] for row in ana.results()]
    assert sorted(names) == ["Ana", "Bot 1"]
    heads = ana.page.locator("[data-results] .ns-summary [role=columnheader]").all_inner_texts()
    assert heads == ["Round", "Ana", "Bot 1"]
    assert "Seat" not in ana.page.locator("[data-results]").inner_text()
    _no_sideways_scroll(ana.page)


CONTRAST = """els => els.map(el => {
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(c => c / 255)
    .map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  let back = el;
  while (back && rgb(getComputedStyle(back).backgroundColor).length > 3
         && rgb(getComputedStyle(back).backgroundColor)[3] === 0) back = back.parentElement;
  const bg = back ? rgb(getComputedStyle(back).backgroundColor) : [255, 255, 255];
  const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(bg)].sort((x, y) => y - x);
  return [el.textContent.trim(), (a + 0.05) / (b + 0.05)];
})"""


def test_card_faces_and_table_words_have_contrast(person: Make, size: str) -> None:
    ana, _ = _two_at_table(person, size)
    page = ana.page
    words = ".pile-label, .ns-status, .ns-seat-facts span, .tray-hint"
    checked = page.locator(words).evaluate_all(CONTRAST)
    page.get_by_role("button", name="How to play").first.click()
    checked += page.locator(".ns-howto .ns-card .ns-value").evaluate_all(CONTRAST)
    assert len(checked) > 10
    low = [(text, round(ratio, 2)) for text, ratio in checked if ratio < 4.5]
    assert not low, f"text below 4.5:1: {low}"


RECORD_MOTION = """() => { window.__moved = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    window.__moved.push(this.dataset.anim || this.className);
    return animate.apply(this, args);
  }; }"""


def test_a_move_animates_on_the_other_players_page(person: Make, size: str) -> None:
    ana, ben = _two_at_table(person, size)
    me = _turn_start([ana, ben])
    other = ben if me is ana else ana
    other.page.evaluate(RECORD_MOTION)
    version = other.version
    me.page.locator("#app [data-legal=draw]").click()
    other.wait_version_above(version)
    other.page.wait_for_function("() => window.__moved.includes('drawn')")
    version = other.version
    cell = me.page.locator("#app [data-legal=cell]").nth(5)
    pos = cell.get_attribute("data-pos")
    cell.click()
    other.wait_version_above(version)
    # The drawn card flies into the mover's mini grid in the strip; the old card to the pile.
    other.page.wait_for_function(
        "name => window.__moved.includes(name) && window.__moved.includes('discard')",
        arg=f"mini-{me.seat}-{pos}",
    )


def test_the_move_in_flight_says_sending_and_the_grid_stays_legible(
    person: Make, size: str
) -> None:
    ana, ben = _sized(person, "Ana", size), person("Ben", phone=False)
    link: dict[str, object] = {"hold": False, "held": [], "server": None}

    def through(page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()
        link["server"] = server_side

        def up(message: str | bytes) -> None:
            if link["hold"]:
                link["held"].append(message)  # type: ignore[attr-defined]
            else:
                server_side.send(message)

        page_side.on_message(up)
        server_side.on_message(page_side.send)

    ana.page.route_web_socket(re.compile(r"/ws/"), through)
    _start(ana, [ben])
    page = ana.page
    page.locator("#app [data-legal=cell]").first.click()
    paint = _paint(page, "#app .tray-hand .ns-card:not(.selected)")
    link["hold"] = True
    page.locator("#app [data-legal=cell]:not(.selected)").first.click()
    # Ana's two cards are on their way: each says so; the rest of the grid keeps its look.
    page.locator(".tray-hand .is-sending .sending").first.wait_for()
    assert page.locator(".tray-hand .is-sending .sending").count() == 2
    assert page.locator(".tray-hand .sending").first.inner_text() == "sending…"
    assert _paint(page, "#app .tray-hand .ns-card:not(.is-sending)") == paint
    version = ana.version
    link["hold"] = False
    for message in link["held"]:  # type: ignore[attr-defined]
        link["server"].send(message)  # type: ignore[attr-defined]
    ana.wait_version_above(version)
    page.locator(".tray-hand .sending").first.wait_for(state="detached")


def test_nothing_moves_for_a_player_who_asks_for_reduced_motion(person: Make, size: str) -> None:
    """Under ``prefers-reduced-motion: reduce`` the same two moves animate nothing: no
    element's ``animate`` is called and no ghost card is left on the page."""
    ana, ben = _two_at_table(person, size)
    me = _turn_start([ana, ben])
    other = ben if me is ana else ana
    other.page.emulate_media(reduced_motion="reduce")
    other.page.evaluate(RECORD_MOTION)
    version = other.version
    me.page.locator("#app [data-legal=draw]").click()
    other.wait_version_above(version)
    version = other.version
    me.page.locator("#app [data-legal=cell]").nth(5).click()
    # The version is written after the page is patched and its motion started (main.js).
    other.wait_version_above(version)
    assert other.page.evaluate("window.__moved") == []
    assert other.page.locator("body > [aria-hidden=true].card").count() == 0

"""Warp 99's table on a phone (375 by 812) and a desktop (1280 by 800): Ana against a bot.

Ana sits in seat 1, so the game opens on her Action A with an empty row, where any card fits:
every test starts from the same kind of position whatever the deal.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.contrast import CONTRAST_JS
from tests.browser.pages import Person

SIZES = {
    "phone": {"width": 375, "height": 812},
    "desktop": {"width": 1280, "height": 800},
}

Open = Callable[[], Person]

# WCAG contrast of a text's colour on what is painted behind it (alpha-blended up to the page).


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def table(request: pytest.FixtureRequest, browser: Any, server_url: str) -> Iterator[Open]:
    """``table()``: Ana's page at the first move of a game against a bot, at that size."""
    size = request.param
    made: list[Person] = []

    def open_table() -> Person:
        context = browser.new_context(
            viewport=SIZES[size], base_url=server_url, has_touch=size == "phone"
        )
        context.set_default_timeout(15_000)
        ana = Person("Ana", context.new_page(), server_url)
        made.append(ana)
        ana.create_room("warp99")
        ana.click("Add a bot")
        ana.wait_seats(2)
        ana.click("Start the game")
        ana.wait_screen("table")
        ana.page.wait_for_function(
            "() => document.body.dataset.myTurn === 'true'"
            " && document.querySelector('[data-legal=card]')"
        )
        return ana

    yield open_table
    problems = [f"{p.name}: {e}" for p in made for e in p.errors]
    for someone in made:
        someone.page.context.close()
    assert not problems, "errors in the page:\n" + "\n".join(problems)


def _tap(person: Person, selector: str) -> None:
    control = person.page.locator(f"#app {selector}").first
    if person.page.viewport_size and person.page.viewport_size["width"] < 700:
        control.tap()
    else:
        control.click()


def _boxes(page: Page) -> dict[str, Any]:
    boxes: dict[str, Any] = page.evaluate(
        """() => Object.fromEntries(['.tray', '.tray-hint', '.tray-moves', '.tray-hand', '.w-hand']
             .map((s) => { const r = document.querySelector(s).getBoundingClientRect();
                           return [s, [r.x, r.y, r.width, r.height].map(Math.round)]; }))"""
    )
    return boxes


def _move(person: Person, selector: str) -> None:
    """Make a move with the control `selector`; wait until its answer has been drawn."""
    version = person.version
    _tap(person, selector)
    person.wait_version_above(version)
    person.wait_idle()


def _fits(page: Page) -> None:
    size = page.viewport_size
    assert size is not None
    # A card in flight may stick out of the middle for its 250 ms: measure the table at rest,
    # and give a redraw that a bot's move started just then the time to settle (the page is
    # measured once it fits, or after 5 s as it is then).
    page.wait_for_function("() => document.getAnimations().length === 0")
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            """([w, h]) => {
              const doc = document.documentElement;
              const tray = document.querySelector('.tray').getBoundingClientRect();
              const middle = document.querySelector('.table-middle');
              return document.getAnimations().length === 0 && doc.scrollWidth <= w
                && tray.bottom <= h + 0.5 && tray.right <= w + 0.5
                && middle.scrollHeight - middle.clientHeight <= 1
                && middle.scrollWidth - middle.clientWidth <= 1;
            }""",
            arg=[size["width"], size["height"]],
            timeout=5_000,
        )
    facts = page.evaluate(
        """() => {
          const doc = document.documentElement;
          const tray = document.querySelector('.tray').getBoundingClientRect();
          const middle = document.querySelector('.table-middle');
          return {scrollWidth: doc.scrollWidth, scrollX: window.scrollX,
                  trayBottom: tray.bottom, trayRight: tray.right,
                  middleOver: middle.scrollHeight - middle.clientHeight,
                  middleWide: middle.scrollWidth - middle.clientWidth};
        }"""
    )
    assert facts["scrollWidth"] <= size["width"], f"sideways scroll: {facts}"
    assert facts["trayBottom"] <= size["height"] + 0.5, f"the hand is below the fold: {facts}"
    assert facts["trayRight"] <= size["width"] + 0.5, facts
    assert facts["middleOver"] <= 1, f"the middle needs scrolling: {facts}"
    assert facts["middleWide"] <= 1, f"the middle scrolls sideways: {facts}"


def test_the_table_fits_the_screen_without_sideways_scroll_during_play(table: Open) -> None:
    ana = table()
    _fits(ana.page)
    clicks = 0
    while clicks < 24 and not ana.over():
        version = ana.version
        if ana.step("warp99"):
            clicks += 1
            _fits(ana.page)
        else:
            ana.wait_version_above(version)
    assert clicks >= 10


def test_the_hand_and_the_moves_keep_their_place_across_a_turn(table: Open) -> None:
    ana = table()
    before = _boxes(ana.page)
    _tap(ana, "[data-legal=card]")
    ana.page.locator("#app .tray-moves [data-legal=move]").wait_for()
    tapped = _boxes(ana.page)
    assert tapped == before, "the first tap moved the tray"
    _move(ana, "[data-legal=move]")
    ana.page.wait_for_function("() => document.querySelector('.w-table').dataset.step === 'B'")
    after = _boxes(ana.page)
    assert after == before, "the move moved the tray"


COLOURS_JS = """(selector) => {
  const el = document.querySelector(selector);
  const look = (n) => {
    const s = getComputedStyle(n);
    return [s.backgroundColor, s.color, s.opacity];
  };
  return [look(el), ...[...el.querySelectorAll('span')].map(look)];
}"""


def test_a_hovered_focused_or_selected_card_keeps_its_own_colours(table: Open) -> None:
    ana = table()
    page = ana.page
    card_id = page.locator("#app .w-hand [data-legal=card]").first.get_attribute("data-card")
    one = f".w-hand [data-card='{card_id}']"
    plain = page.evaluate(COLOURS_JS, one)
    assert plain[0][0] not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)"), plain
    page.locator(one).hover()
    assert page.evaluate(COLOURS_JS, one) == plain, "hovered"
    page.locator(one).focus()
    assert page.evaluate(COLOURS_JS, one) == plain, "focused"
    _tap(ana, one)
    page.locator(f"{one}.selected").wait_for()
    assert page.evaluate(COLOURS_JS, one) == plain, "selected (and still hovered)"
    page.mouse.move(0, 0)
    assert page.evaluate(COLOURS_JS, one) == plain, "selected"
    # A card that cannot be played now is just as legible.
    other = page.locator("#app .w-hand .w-card:not([data-legal])")
    if other.count():
        other_id = other.first.get_attribute("data-card")
        looks = page.evaluate(COLOURS_JS, f".w-hand [data-card='{other_id}']")
        assert looks[0][2] == "1", "an unplayable card is not faded"


def test_the_ticker_tells_a_scripted_move_in_players_words(table: Open) -> None:
    ana = table()
    page = ana.page
    label = page.locator("#app .w-hand [data-legal=card]").first.get_attribute("aria-label") or ""
    card = label.removesuffix(", playable")
    _tap(ana, ".w-hand [data-legal=card]")
    assert page.locator(".tray-hint").inner_text() == f"{card} → your row (starts it)"
    _move(ana, "[data-legal=move]")
    ticker = page.locator("[data-ticker]")
    assert ticker.inner_text() == f"You added {card} to your row"
    # Step B: a card played on a pile is told with the rule it followed.
    playable = page.locator("#app .w-hand [data-legal=card]")
    if playable.count():
        card = (playable.first.get_attribute("aria-label") or "").removesuffix(", playable")
        _tap(ana, ".w-hand [data-legal=card]")
        hint = page.locator(".tray-hint").inner_text()
        assert hint.startswith(f"{card} → "), hint
        _move(ana, "[data-legal=pile]")
        lines = page.locator(".game-log li").all_inner_texts()
        played = [line for line in lines if line.startswith(f"You played {card} on the ")]
        assert played, lines
        assert re.fullmatch(
            rf"You played {card} on the (left|right) pile \([A-Za-z0-9 +]+\)(: bonus card!)?",
            played[-1],
        ), played


def test_focus_stays_on_the_table_after_a_move(table: Open) -> None:
    ana = table()
    page = ana.page
    page.locator("#app .w-hand [data-legal=card]").first.focus()
    page.keyboard.press("Enter")
    page.locator("#app .tray-moves [data-legal=move]").first.focus()
    version = ana.version
    page.keyboard.press("Enter")
    ana.wait_version_above(version)
    ana.wait_idle()
    inside = page.evaluate(
        "() => Boolean(document.activeElement && document.activeElement.closest('.table-area'))"
    )
    assert inside, page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")


def test_a_rule_card_opens_its_explanation(table: Open) -> None:
    ana = table()
    page = ana.page
    faces = page.locator("#app .w-rule-face")
    assert faces.count() == 3
    names = [page.locator("#app .w-rule-name").nth(i).inner_text() for i in range(3)]
    assert names == ["Same Colour", "Plus 1", "Total 10"]
    _tap(ana, ".w-rule-face[data-rule='1']")
    explain = page.locator("#app .w-explain")
    explain.wait_for()
    assert "Plus 1: your card is one higher than the pile's top (6 → 7). Impossible on a 10." in (
        explain.inner_text()
    )
    assert explain.locator(".w-card.card").count() == 2, "with a picture of the example"
    assert faces.nth(1).get_attribute("aria-expanded") == "true"
    _tap(ana, ".w-explain-close")
    explain.wait_for(state="detached")
    # By keyboard: the rule card is a button.
    faces.nth(2).focus()
    page.keyboard.press("Enter")
    assert "Total 10: your card and the pile's top add up to 10" in explain.inner_text()
    page.keyboard.press("Escape")
    explain.wait_for(state="detached")
    assert page.evaluate("() => document.activeElement.dataset.rule") == "2"


def test_card_text_is_large_enough_and_contrasts_4_5_to_1(table: Open) -> None:
    ana = table()
    page = ana.page
    # Every card of the game, as the hand, the piles, a row and the players strip draw them.
    page.evaluate(
        """async () => {
          const url = [...document.querySelectorAll('link[rel=modulepreload], script[type=module]')]
            .map((l) => l.href || l.src).find((u) => u.includes('/js/main.js'));
          const cards = await import(new URL('views/games/warp99-cards.js', url).href);
          const all = [...Array(110).keys()].map(cards.cardOf);
          const box = document.createElement('div');
          box.id = 'all-cards';
          box.innerHTML = ['w-hand', 'w-pile', 'w-row', 'w-seat-row']
            .map((c) => `<div class="${c}"></div>`).join('');
          const [hand, pile, row, strip] = box.children;
          for (const card of all) {
            hand.append(cards.cardPicture(card));
            pile.append(cards.cardPicture(card, {class: 'top'}));
            row.append(cards.cardPicture(card, {size: 'small'}));
            strip.append(cards.cardPicture(card, {size: 'mini'}));
          }
          for (const part of box.children) part.style.flexWrap = 'wrap';
          document.body.append(box);
        }"""
    )
    texts = page.evaluate(CONTRAST_JS, "#all-cards .w-card span")
    assert len(texts) >= 110 * 7, len(texts)
    low = [t for t in texts if t["ratio"] < 4.5]
    small = [t for t in texts if t["px"] < 11]
    assert not low, low[:5]
    assert not small, small[:5]
    page.evaluate("() => document.getElementById('all-cards').remove()")
    # And the table's own words around the cards.
    _tap(ana, ".w-hand [data-legal=card]")
    texts = page.evaluate(CONTRAST_JS, "#app .table-middle *, #app .tray *, #app .strip-facts *")
    assert len(texts) > 20
    low = [t for t in texts if t["ratio"] < 4.5]
    assert not low, low[:5]


def test_a_move_in_flight_is_marked_sending(table: Open) -> None:
    ana = table()
    page = ana.page
    _tap(ana, ".w-hand [data-legal=card]")
    # Hold the answer back: the page shows the move in flight until the server answers.
    page.evaluate(
        """() => {
          const send = WebSocket.prototype.send;
          window.__held = [];
          WebSocket.prototype.send = function (data) { window.__held.push([this, data]); };
          window.__release = () => { WebSocket.prototype.send = send;
            for (const [ws, data] of window.__held) send.call(ws, data); };
        }"""
    )
    version = ana.version
    page.locator("#app [data-legal=move]").first.click()
    sending = page.locator("#app .sending")
    sending.first.wait_for()
    assert page.locator("#app .w-hand .w-card.is-sending .sending").count() == 1
    opacity = page.evaluate(
        "() => [...document.querySelectorAll('.w-hand .w-card')]"
        ".map(c => getComputedStyle(c).opacity)"
    )
    assert set(opacity) == {"1"}, "the hand stays legible while the move is in flight"
    page.evaluate("() => window.__release()")
    ana.wait_version_above(version)
    ana.wait_idle()
    page.locator("#app .sending").first.wait_for(state="detached")


def test_event_texts_name_the_player_and_the_reason(table: Open) -> None:
    ana = table()
    lines = ana.page.evaluate(
        """async () => {
          const url = [...document.querySelectorAll('link[rel=modulepreload], script[type=module]')]
            .map((l) => l.href || l.src).find((u) => u.includes('/js/main.js'));
          const game = await import(new URL('views/games/warp99.js', url).href);
          const ctx = {you: 1, names: (s) => ['Ana', 'Ben'][s]};
          const say = (event) => game.eventText(event, event.seat, ctx);
          return [
            say({type: 'pile_card', seat: 0, card: 7, pile: 0, rules: ['plus_one'], bonus: false}),
            say({type: 'pile_card', seat: 0, card: 4, pile: 1,
                 rules: ['same_colour', 'total_ten'], bonus: true}),
            say({type: 'drew', seat: 0, count: 1, why: 'bonus'}),
            say({type: 'row_card', seat: 1, card: 51}),
            say({type: 'row_scored', seat: 0, cards: [1, 14, 27, 40]}),
            say({type: 'scored', seat: 0, points: 16, reason: 'row', score: 16}),
            say({type: 'deck_emptied', seat: 0}),
            say({type: 'scored', seat: 0, points: 15, reason: 'deck_emptied', score: 31}),
            say({type: 'deck_emptied', seat: 0, bonus: 15}),
            say({type: 'deck_emptied', seat: 0, bonus: 0}),
            say({type: 'rule_flipped', seat: 0, rule: 1, side: 2, now: 'minus_one',
                 name: 'Minus 1'}),
            say({type: 'drew', seat: 0, count: 3, why: 'refill'}),
            say({type: 'hand_emptied', seat: 1}),
            say({type: 'turn_started', seat: 1}),
            say({type: 'game_won', seat: 0, score: 101}),
          ];
        }"""
    )
    assert lines == [
        "Ana played Red 7 on the left pile (Plus 1)",
        "Ana played Red 4 on the right pile (Same Colour + Total 10): bonus card!",
        "Bonus card! Ana drew 1",
        "You added Light blue 7 to your row",
        "Ana scored a row of 4: +16",
        None,
        None,
        "+15: Ana's deck emptied",
        None,
        "Ana's short deck ran out: no points",
        "Rule flipped: Minus 1 (Ana was stuck)",
        "Ana drew 3",
        "You emptied your hand: 6 new cards and another go!",
        None,
        "Ana reached 101 points and wins!",
    ]


def test_how_to_play_shows_the_steps_with_pictures_of_cards(table: Open) -> None:
    ana = table()
    page = ana.page
    opener = "#app [aria-label='Rules: how to play'], #app .howto-button >> visible=true"
    page.locator(opener).first.click()
    sheet = page.locator("#app .w-howto")
    sheet.wait_for()
    text = sheet.inner_text()
    for words in ("First to 99 points wins", "A · Your row", "B · The two piles", "C · Draw"):
        assert words in text
    assert sheet.locator(".w-card.card").count() >= 10


def test_a_long_hand_shares_the_width_without_sideways_scroll(table: Open) -> None:
    ana = table()
    page = ana.page
    # Nine cards (three more than a hand ever holds in play) in the drawn hand.
    widths = page.evaluate(
        """() => {
          const hand = document.querySelector('.w-hand');
          const card = hand.querySelector('.w-card');
          for (let i = 0; i < 3; i += 1) hand.append(card.cloneNode(true));
          const r = hand.getBoundingClientRect();
          const cards = [...hand.querySelectorAll('.w-card')].map((c) => c.getBoundingClientRect());
          return {n: cards.length, left: r.left, right: r.right,
                  minLeft: Math.min(...cards.map((c) => c.left)),
                  maxRight: Math.max(...cards.map((c) => c.right)),
                  page: document.documentElement.scrollWidth};
        }"""
    )
    assert widths["n"] == 9
    assert widths["minLeft"] >= widths["left"] - 0.5, widths
    assert widths["maxRight"] <= widths["right"] + 0.5, widths
    assert widths["page"] <= (page.viewport_size or {"width": 0})["width"]

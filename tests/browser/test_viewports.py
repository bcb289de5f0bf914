"""Every game on six screens, in a real browser: a phone upright (375 by 812) and a small one
(320 by 640), phones held sideways (812 by 375, 740 by 360), a tablet (768 by 1024) and a desktop
(1280 by 800).

On each, during play, everything a player needs to play (the hand or grid, the piles, the rule
cards, the row, the floor, the move buttons, the hint, whose turn) is whole on the screen: the
page does not scroll, the table's middle and tray do not need to, nothing of it is cut off by the
screen or by a box that clips it, nothing lies over it, and no word of it is cut or broken in
two. Over six turns that pass without input the table does not jump (cumulative layout shift at
most 0.05), and a card in flight passes under the pile labels, never over them. Around the
table: the header keeps "Parlor" whole while reconnecting, "Create room" is in sight on a phone's
home page, "Add a bot" is never under the lobby's Start bar, a Warp 99 card's "sending…" is
whole, one Tab leads from Number Swap's grid to the piles, and an error never covers the hand.
Tables a deal offers only sometimes (Floor's opener up for grabs, a Warp 99 card that fits both
piles) are made sure of by changing the views the page gets, and fit every screen too.

With ``PARLOR_SCREENSHOTS=docs/screenshots`` the sideways phone's table of each game is saved as
``docs/screenshots/<game>-phone-sideways.png``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, WebSocketRoute

from tests.browser.pages import Person
from tests.browser.play import play_until, screenshot_dir

Make = Callable[..., Person]

SCREENS: dict[str, ViewportSize] = {
    "phone": {"width": 375, "height": 812},
    "phone-sideways": {"width": 812, "height": 375},
    "small-phone-sideways": {"width": 740, "height": 360},
    "small-phone": {"width": 320, "height": 640},
    "tablet": {"width": 768, "height": 1024},
    "desktop": {"width": 1280, "height": 800},
}
GAMES = ["numberswap", "warp99", "floor"]

# What a player needs to play, per game: `whole` must lie whole on the screen and inside every
# box that clips it; `words` also must not be cut (scrollWidth/scrollHeight within the box) nor
# have a word broken across lines; `open` must not have anything lying over it (probed at its
# centre and its corners; the banner at its centre: its clock lies over its right end).
FRAME = {
    "whole": [".turn-banner", ".tray-hint", ".table-strip .strip-seat"],
    "words": [".turn-banner", ".tray-hint", ".banner-timer", ".strip-seat .seat-name"],
    "open": [".tray-hint", ".tray-moves button"],
}
PARTS: dict[str, dict[str, list[str]]] = {
    "numberswap": {
        "whole": [".ns-status", ".ns-pile", ".ns-tray .ns-card", ".tray-moves button"],
        "words": [".pile-label", ".ns-move", ".ns-status", ".ns-seat-facts > *"],
        "open": [".ns-pile", ".ns-tray .ns-card"],
    },
    "warp99": {
        "whole": [
            ".w-steps",
            ".w-flip-note",
            ".w-rule",
            ".w-pile",
            ".w-supply",
            ".w-myrow",
            ".w-row .w-card",
            ".w-hand .w-card",
            ".tray-moves button",
        ],
        "words": [
            ".w-steps li",
            ".w-flip-note",
            ".w-rule-name",
            ".w-rule-side",
            ".pile-label",
            ".w-stack",
            ".w-pile .w-name",
            ".w-row .w-name",
            ".w-row-head > *",
            ".w-hand .w-name",
            ".w-moves button",
        ],
        "open": [".w-rule", ".w-pile", ".w-supply", ".w-hand .w-card"],
    },
    "floor": {
        "whole": [
            ".f-floor",
            ".f-top",
            ".f-drawpile",
            ".f-direction",
            ".f-pending",
            ".f-hand .f-card",
            ".tray-moves button",
        ],
        "words": [".pile-label", ".f-pending", ".f-moves button", ".f-dir-words"],
        # A hand's cards overlap by design (each shows its corner): not probed.
        "open": [".f-floor", ".f-top", ".f-drawpile", ".f-direction"],
    },
}

CHECK = """({whole, words, open}) => {
  const vw = innerWidth, vh = innerHeight;
  const problems = [];
  const shown = (sel) => [...document.querySelectorAll('#app ' + sel)]
    .filter((e) => e.getClientRects().length);
  const what = (el) => {
    const words = (el.innerText || '').trim().slice(0, 30).replace(/\\n/g, '/');
    return `${el.className || el.tagName} "${words}"`;
  };
  // The part of the screen where `el` can be seen: the viewport, cut by every ancestor that
  // clips its overflow.
  const seen = (el) => {
    const r = {left: 0, top: 0, right: vw, bottom: vh};
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      const x = s.overflowX !== 'visible', y = s.overflowY !== 'visible';
      if (!x && !y) continue;
      const b = a.getBoundingClientRect();
      if (x) { r.left = Math.max(r.left, b.left); r.right = Math.min(r.right, b.right); }
      if (y) { r.top = Math.max(r.top, b.top); r.bottom = Math.min(r.bottom, b.bottom); }
    }
    return r;
  };
  const isWhole = (el) => {
    const b = el.getBoundingClientRect(), v = seen(el);
    return b.left >= v.left - 1 && b.top >= v.top - 1
      && b.right <= v.right + 1 && b.bottom <= v.bottom + 1;
  };
  for (const sel of [...whole, ...words]) {
    for (const el of shown(sel)) if (!isWhole(el)) problems.push(`cut off: ${sel} ${what(el)}`);
  }
  for (const sel of words) {
    for (const el of shown(sel)) {
      if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
        const needs = `${el.scrollWidth}x${el.scrollHeight}`;
        const has = `${el.clientWidth}x${el.clientHeight}`;
        problems.push(`text clipped: ${sel} ${what(el)} (${needs} in ${has})`);
      }
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let t = walk.nextNode(); t; t = walk.nextNode()) {
        for (const m of t.data.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(t, m.index);
          range.setEnd(t, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
            .map((r) => Math.round(r.top)));
          if (lines.size > 1) problems.push(`word broken: "${m[0]}" in ${sel}`);
        }
      }
    }
  }
  for (const sel of open) {
    const centreOnly = sel.includes('turn-banner');
    for (const el of shown(sel)) {
      const b = el.getBoundingClientRect();
      const points = [[b.left + b.width / 2, b.top + b.height / 2], [b.left + 5, b.top + 5],
        [b.right - 5, b.top + 5], [b.left + 5, b.bottom - 5], [b.right - 5, b.bottom - 5]];
      for (const [x, y] of centreOnly ? points.slice(0, 1) : points) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || !(el === hit || el.contains(hit))) {
          problems.push(`covered: ${sel} ${what(el)} by ${hit ? what(hit) : 'nothing'}`);
          break;
        }
      }
    }
  }
  const page = document.scrollingElement;
  if (page.scrollHeight > vh + 1 || page.scrollWidth > vw + 1) {
    problems.push(`the page scrolls: ${page.scrollWidth}x${page.scrollHeight}`);
  }
  for (const sel of ['.table-middle', '.tray']) {
    const el = document.querySelector(sel);
    if (el && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)) {
      const sizes = `${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`;
      problems.push(`${sel} needs scrolling: ${sizes}`);
    }
  }
  const counts = Object.fromEntries([...whole, ...words, ...open].map((s) => [s, shown(s).length]));
  return {problems, counts};
}"""


def _settle(page: Page) -> None:
    """Wait until no card is in flight (motion lasts at most 250 ms), then for a painted frame."""
    page.wait_for_function("() => document.getAnimations().length === 0")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _problems(page: Page, game: str) -> tuple[list[str], dict[str, int]]:
    parts = {key: FRAME[key] + PARTS[game][key] for key in FRAME}
    found: dict[str, Any] = page.evaluate(CHECK, parts)
    return found["problems"], found["counts"]


def _at_the_table(person: Make, game: str, *, bots: int = 1) -> tuple[Person, str]:
    """Ana at a table of ``game`` with bots, her turn's clock long (600 s: the widest clock);
    and the room's code."""
    ana = person("Ana")
    return ana, _start(ana, game, bots=bots)


def _start(ana: Person, game: str, *, bots: int = 1) -> str:
    """Ana starts a table of ``game`` with bots, her turn's clock long; the room's code."""
    code = ana.create_room(game, {"turn-timer": 600})
    for seats in range(2, bots + 2):
        ana.click("Add a bot")
        ana.wait_seats(seats)
    ana.click("Start the game")
    ana.wait_screen("table")
    return code


def _my_turn(ana: Person, selector: str) -> None:
    ana.page.wait_for_function(
        "s => document.body.dataset.myTurn === 'true' && document.body.dataset.busy !== 'true'"
        " && document.querySelector('#app ' + s)",
        arg=selector,
    )


def _positions(game: str, ana: Person) -> list[Callable[[], None]]:
    """The positions to look at, each reached from the one before: a card chosen and the move
    buttons out, the most a player has on screen at once."""
    page = ana.page

    def swap_step() -> None:  # Number Swap: two cards turned up, a card drawn: swap or discard
        for _ in range(2):
            page.locator("#app [data-legal=cell]").first.click()
        ana.wait_idle()
        _my_turn(ana, "[data-legal=draw]")
        page.locator("#app [data-legal=draw]").click()
        page.locator("#app .ns-moves [data-legal=mode]").wait_for()

    def row_step() -> None:  # Warp 99: step A, a card chosen
        _my_turn(ana, ".w-hand [data-legal=card]")
        page.locator("#app .w-hand [data-legal=card]").first.click()
        page.locator("#app .w-moves [data-legal=move]").first.wait_for()

    def piles_step() -> None:  # Warp 99: step B (a card in the row), a card chosen if one fits
        version = ana.version
        page.locator("#app .w-moves [data-legal=move]").first.click()
        ana.wait_version_above(version)
        ana.wait_idle()
        playable = page.locator("#app .w-hand [data-legal=card]")
        if playable.count():
            playable.first.click()
            page.locator("#app .w-moves [data-legal=move]").first.wait_for()

    def a_play() -> None:  # Floor: cards picked that make a play, when the hand has one
        # The deal is sealed, not chosen by the test: on a turn where no card fits, draw and
        # wait for the next (a hand grows until one does: the deck has wild cards).
        for _ in range(30):
            _my_turn(ana, ".f-moves [data-legal=general]")
            if page.locator("#app .f-hand [data-legal=card]").count():
                break
            version = ana.version
            page.locator("#app [data-legal=general]", has_text="Draw").first.click()
            ana.wait_version_above(version)
        cards = page.locator("#app .f-hand [data-legal=card]")
        for index in range(cards.count()):
            cards.nth(index).click()
            if page.locator("#app .f-moves [data-legal=move]").count():
                return
            page.get_by_role("button", name="Clear the selection").click()

    return {
        "numberswap": [swap_step],
        "warp99": [row_step, piles_step],
        "floor": [a_play],
    }[game]


@pytest.mark.parametrize("game", GAMES)
def test_everything_a_player_needs_is_whole_on_every_screen_without_scrolling(
    person: Make, game: str, tmp_path: Path
) -> None:
    ana, _ = _at_the_table(person, game)
    page = ana.page
    problems: list[str] = []
    for reach in _positions(game, ana):
        reach()
        for name, size in SCREENS.items():
            page.set_viewport_size(size)
            _settle(page)
            found, counts = _problems(page, game)
            problems += [f"{name}: {problem}" for problem in found]
            missing = [s for s in FRAME["whole"] + PARTS[game]["open"] if not counts[s]]
            assert not missing, f"{game} on the {name}: nothing matches {missing}"
            if name == "phone-sideways":
                page.screenshot(path=str(screenshot_dir(tmp_path) / f"{game}-phone-sideways.png"))
    assert not problems, f"{game}:\n" + "\n".join(problems)


# -- nothing jumps -------------------------------------------------------------------------------

# The layout shifts of a page (those within 500 ms of its own input excluded, as CLS does), and
# the turns it saw pass: a change of the seats marked to play in the strip.
WATCH_SHIFTS = """() => {
  window.__shift = 0;
  window.__shifts = [];
  window.__turns = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      window.__shift += e.value;
      const moved = e.sources.map((s) => s.node && (s.node.className || s.node.nodeName));
      window.__shifts.push([e.value, moved]);
    }
  }).observe({type: 'layout-shift'});
  let seen = null;
  const look = () => {
    const now = [...document.querySelectorAll('.table-strip .strip-seat.turn')]
      .map((e) => e.dataset.seat).join();
    if (seen !== null && now !== seen) window.__turns += 1;
    seen = now;
  };
  look();
  new MutationObserver(look).observe(document.getElementById('app'),
    {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
}"""


@pytest.mark.parametrize("game", GAMES)
def test_the_table_does_not_jump_over_six_turns_without_input(person: Make, game: str) -> None:
    # Floor with three bots: six turns pass before anyone empties a hand.
    ana, code = _at_the_table(person, game, bots=3 if game == "floor" else 1)
    phone, sideways = person("Cleo"), person("Dan")
    sideways.page.set_viewport_size(SCREENS["phone-sideways"])
    watchers = [phone, sideways]
    for someone in watchers:
        someone.watch(code)
        someone.wait_screen("table")
        someone.page.locator(".table-middle > *").first.wait_for()
        someone.page.evaluate(WATCH_SHIFTS)
    ana.page.evaluate(WATCH_SHIFTS)
    # Ana plays her turns on her page; the spectators' pages get no input at all.
    play_until(game, [ana], lambda: phone.page.evaluate("window.__turns") >= 6)
    assert not ana.over(), f"{game}: the game ended within six turns"
    for someone in [*watchers, ana]:
        shift: float = someone.page.evaluate("window.__shift")
        assert shift <= 0.05, (
            f"{game}, {someone.name}'s page: layout shift {shift:.3f} over six turns: "
            f"{someone.page.evaluate('window.__shifts')}"
        )


# While a card flies, every label it passes over stays on top: at each sixteenth of the flight
# (the animation paused and set there) the point in the middle of what the card and a label share
# on screen is the label's. The card takes no pointer (pointer-events: none); for the probe it
# takes them, so that the probe finds whichever of the two is on top.
WATCH_FLIGHTS = """() => {
  window.__flights = [];
  const examined = new WeakSet();
  const labels = () => [...document.querySelectorAll(
    '#app .pile-label, #app .tray-hint, #app .ns-status')].filter((e) => e.getClientRects().length);
  const seen = (el) => {
    let r = el.getBoundingClientRect();
    r = {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      r = {left: Math.max(r.left, b.left), top: Math.max(r.top, b.top),
           right: Math.min(r.right, b.right), bottom: Math.min(r.bottom, b.bottom)};
    }
    return r;
  };
  const look = () => {
    for (const animation of document.getAnimations()) {
      const card = animation.effect && animation.effect.target;
      // The cards motion.js moves (Web Animations), not a CSS transition's small lift.
      if (!card || examined.has(animation) || animation.playState !== 'running'
          || animation.constructor !== Animation) continue;
      examined.add(animation);
      const untouchable = getComputedStyle(card).pointerEvents === 'none';
      const flight = {card: card.className, untouchable, crossings: 0, over: []};
      animation.pause();
      const duration = animation.effect.getTiming().duration;
      const before = card.style.pointerEvents;
      card.style.setProperty('pointer-events', 'auto', 'important');
      for (let step = 0; step <= 16; step += 1) {
        animation.currentTime = (duration * step) / 16;
        const c = seen(card);
        for (const label of labels()) {
          if (card.contains(label) || label.contains(card)) continue;
          const l = label.getBoundingClientRect();
          const x0 = Math.max(c.left, l.left), x1 = Math.min(c.right, l.right);
          const y0 = Math.max(c.top, l.top), y1 = Math.min(c.bottom, l.bottom);
          if (x1 - x0 < 2 || y1 - y0 < 2) continue;
          flight.crossings += 1;
          const hit = document.elementFromPoint((x0 + x1) / 2, (y0 + y1) / 2);
          if (!(hit === label || label.contains(hit))) flight.over.push(label.textContent.trim());
        }
      }
      card.style.removeProperty('pointer-events');
      if (before) card.style.pointerEvents = before;
      animation.currentTime = 0;
      animation.play();
      window.__flights.push(flight);
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""


def test_a_card_in_flight_passes_under_the_pile_labels(person: Make) -> None:
    """Number Swap: Ana takes the discard onto her grid; the card she puts away flies from her
    grid up to the discard pile, across the pile's label."""
    ana, _ = _at_the_table(person, "numberswap")
    page = ana.page
    for _ in range(2):
        page.locator("#app [data-legal=cell]").first.click()
    ana.wait_idle()
    _my_turn(ana, "[data-legal=take]")
    page.evaluate(WATCH_FLIGHTS)
    version = ana.version
    page.locator("#app [data-legal=take]").click()
    page.locator("#app [data-legal=cell]").first.click()
    ana.wait_version_above(version)
    page.wait_for_function(
        "() => window.__flights.some((f) => f.crossings > 0)"
        " && document.getAnimations().length === 0"
    )
    flights: list[dict[str, Any]] = page.evaluate("window.__flights")
    crossing = [f for f in flights if f["crossings"]]
    assert crossing, flights
    assert all(f["untouchable"] for f in flights), f"a card in flight takes taps: {flights}"
    assert not [f for f in crossing if f["over"]], f"a card flew over a label: {crossing}"


# -- around the table ----------------------------------------------------------------------------


def _lines(page: Page, selector: str) -> int:
    """How many lines the text of ``selector`` takes."""
    lines: int = page.locator(selector).evaluate(
        """el => { const range = document.createRange(); range.selectNodeContents(el);
                   return new Set([...range.getClientRects()].filter((r) => r.width > 0)
                     .map((r) => Math.round(r.top))).size; }"""
    )
    return lines


def test_the_header_keeps_parlor_whole_while_reconnecting(person: Make) -> None:
    ana = person("Ana")
    sockets: list[WebSocketRoute] = []

    def first_only(ws: WebSocketRoute) -> None:
        # The first connection goes through; the later ones never answer: reconnecting it stays.
        if not sockets:
            ws.connect_to_server()
        sockets.append(ws)

    ana.page.route_web_socket(re.compile(r"/ws/"), first_only)
    ana.create_room("numberswap")
    page = ana.page
    header = page.locator("header#top")
    heights = {}
    for width in (320, 375):
        page.set_viewport_size({"width": width, "height": 640})
        heights[width] = header.bounding_box()["height"]  # type: ignore[index]
    sockets[0].close(code=4000, reason="network went away")
    page.locator("[data-connection=reconnecting]").wait_for()
    for width in (320, 375):
        page.set_viewport_size({"width": width, "height": 640})
        assert _lines(page, ".brand") == 1, f"{width} px: the brand wraps"
        assert header.bounding_box()["height"] == heights[width], f"{width} px: the header grew"  # type: ignore[index]
        status: dict[str, float] = page.locator(".conn").evaluate(
            """el => { const r = el.getBoundingClientRect();
                       return {right: r.right, sw: el.scrollWidth, cw: el.clientWidth,
                               sh: el.scrollHeight, ch: el.clientHeight}; }"""
        )
        assert status["right"] <= width, status
        assert status["sw"] <= status["cw"] and status["sh"] <= status["ch"], status
    assert page.locator(".conn").inner_text() == "Connection lost — reconnecting…"


def test_create_room_is_in_sight_on_a_phones_home_page(person: Make) -> None:
    ana = person("Ana")
    ana.home()
    button = ana.page.get_by_role("button", name="Create room").bounding_box()
    assert button and button["y"] + button["height"] <= SCREENS["phone"]["height"], button
    assert ana.page.evaluate("scrollY") == 0


def test_add_a_bot_is_never_under_the_lobby_start_bar_on_a_phone(person: Make) -> None:
    ana = person("Ana")
    ana.create_room("numberswap")
    page = ana.page
    for seats in range(2, 5):
        add = page.get_by_role("button", name="Add a bot")
        box = add.bounding_box()
        bar = page.locator(".start-bar").bounding_box()
        assert box and bar, (box, bar)
        assert box["y"] + box["height"] <= bar["y"], f"{seats - 1} seats: {box} under {bar}"
        assert box["y"] >= 0, box
        on_top = add.evaluate(
            """el => { const r = el.getBoundingClientRect();
                       const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                       return el.contains(hit); }"""
        )
        assert on_top, f"{seats - 1} seats: something lies over Add a bot"
        add.click()
        ana.wait_seats(seats)


@pytest.mark.parametrize("screen", ["phone", "small-phone"])
def test_sending_is_whole_on_a_warp99_card_in_flight(person: Make, screen: str) -> None:
    ana, _ = _at_the_table(person, "warp99")
    page = ana.page
    page.set_viewport_size(SCREENS[screen])
    _my_turn(ana, ".w-hand [data-legal=card]")
    page.locator("#app .w-hand [data-legal=card]").first.click()
    # Hold the move back: the card shows "sending…" until the server answers.
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
    page.locator("#app .w-moves [data-legal=move]").first.click()
    mark = page.locator("#app .w-hand .w-card.is-sending .sending")
    mark.wait_for()
    _settle(page)
    found: dict[str, Any] = page.evaluate(
        CHECK,
        {
            "whole": [],
            "words": [".w-hand .w-card.is-sending .sending"],
            "open": [".w-hand .w-card.is-sending .sending"],
        },
    )
    assert not found["problems"], found["problems"]
    page.evaluate("() => window.__release()")
    ana.wait_version_above(version)


def test_one_tab_leads_from_the_number_swap_grid_to_the_piles(person: Make) -> None:
    ana, _ = _at_the_table(person, "numberswap")
    ana.page.set_viewport_size(SCREENS["desktop"])
    page = ana.page
    # The two opening cards turned up from the keyboard: the focus stays on the second one.
    page.locator("#app [data-legal=cell]").first.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    ana.wait_idle()
    _my_turn(ana, "[data-legal=draw]")
    assert page.evaluate("() => document.activeElement.closest('.ns-grid') !== null")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.dataset.legal")
    assert focused == "draw", focused
    # From there on the order is the page's: the discard pile next.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.legal") == "take"


@pytest.mark.parametrize("screen", ["phone", "phone-sideways"])
def test_an_error_never_covers_the_hand(person: Make, screen: str) -> None:
    ana, _ = _at_the_table(person, "numberswap")
    page = ana.page
    page.set_viewport_size(SCREENS[screen])
    ana.open_sheet("chat")
    # The chat allows a burst of five, then one a second: twelve in a row are too many.
    for i in range(12):
        page.get_by_role("textbox", name="Message").fill(f"message {i}")
        page.get_by_role("button", name="Send").click()
    ana.close_sheet()
    boxes: dict[str, Any] = page.wait_for_function(
        """() => { const toast = document.querySelector('.toast');
                   if (!toast) return null;
                   const box = (el) => { const r = el.getBoundingClientRect();
                                         return [r.left, r.top, r.right, r.bottom]; };
                   return {toast: box(toast), tray: box(document.querySelector('.tray'))}; }"""
    ).json_value()
    toast, tray = boxes["toast"], boxes["tray"]
    apart = toast[3] <= tray[1] or toast[1] >= tray[3] or toast[2] <= tray[0] or toast[0] >= tray[2]
    assert apart, f"the message {toast} lies over the tray {tray}"
    assert toast[1] >= 0 and toast[3] <= SCREENS[screen]["height"], toast


def _views_changed(page: Page, change: Callable[[dict[str, Any]], None]) -> None:
    """Every state Ana's page gets during play passes through ``change(view)`` first: a test
    makes sure of a table the deal would offer only sometimes."""
    from rules.codec import pack, unpack

    def handler(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, bytes):
                decoded = unpack(message)
                view = decoded.get("view") if decoded.get("type") == "state" else None
                if view and decoded["room"]["phase"] == "playing":
                    change(view)
                    message = pack(decoded)
            ws.send(message)

        ws.on_message(lambda m: server.send(m))
        server.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/"), handler)


def _every_screen(page: Page, game: str) -> list[str]:
    problems: list[str] = []
    for name, size in SCREENS.items():
        page.set_viewport_size(size)
        _settle(page)
        found, _ = _problems(page, game)
        problems += [f"{name}: {problem}" for problem in found]
    return problems


@pytest.mark.parametrize("chosen", ["number", "power"])
def test_floors_grabbable_opener_fits_every_screen(person: Make, chosen: str) -> None:
    """The deal decides whether the first player may grab the opener, and what her hand can
    play, so the fullest tray is made sure of here: every state Ana's page gets says the
    opener, the card with the longest name, is up for grabs, with Grab among her moves, and
    that her first card makes a play: a Number (Play), or a Power (one button per shape, the
    most moves Floor offers at once). With that card chosen the tray holds Play, ✕, Grab and
    Draw, or the four shapes and ✕ (a choice to make hides the plain moves until it is made or
    cleared): the notice, the hint and the moves fit every screen. (They used to name the
    card, and overflowed the small phone's middle and the sideways phone's tray; then the
    moves beside a chosen play wrapped to a second line and overflowed the sideways trays: the
    full viewport test failed whenever a deal offered it.)"""
    from rules.floor.cards import CARDS, Kind, Shape, number_id, power_id

    card: list[int] = []  # the card that makes the play, once the hand is seen

    def grab_on_offer(view: dict[str, Any]) -> None:
        view["opener_grabbable"] = True
        view["top"] = 101  # the Triangle Take +2: the longest name a card has
        legal = view.get("legal") or []
        hand = view.get("hand") or []
        if not legal or not hand:
            return
        if chosen == "power":
            if power_id(0) not in hand:
                hand[0] = power_id(0)
            play = {"type": "power", "cards": [power_id(0)], "shapes": [s.value for s in Shape]}
        else:
            numbers = [c for c in hand if CARDS[c].kind is Kind.NUMBER]
            if not numbers:
                hand[0] = number_id(Shape.SQUARE, 8, 1)
                numbers = [hand[0]]
            shape = CARDS[numbers[0]].shape
            play = {"type": "number", "plays": [{"cards": [numbers[0]], "shapes": [shape]}]}
        card[:] = [play["cards"][0] if chosen == "power" else numbers[0]]
        # Only the draw besides: the card's play is the one on offer.
        legal = [a for a in legal if a.get("type") == "draw"]
        view["legal"] = [*legal, {"type": "grab"}, play]

    ana = person("Ana")
    _views_changed(ana.page, grab_on_offer)
    _start(ana, "floor")
    _my_turn(ana, ".f-pending.p-grab")
    page = ana.page
    page.locator(f"#app .f-hand [data-key=h{card[0]}]").click()
    page.locator("#app .f-moves [data-legal=move]").first.wait_for()
    if chosen == "number":
        page.locator("#app .tray button", has_text="Grab").first.wait_for()
    else:  # a choice to make: the four shapes and ✕ only, until it is made or cleared
        assert page.locator("#app .f-moves [data-legal=move]").count() == 4
        assert not page.locator("#app .f-moves [data-legal=general]").count()
    problems = _every_screen(page, "floor")
    assert not problems, "\n".join(problems)


def test_warp99s_card_that_fits_both_piles_fits_every_screen(person: Make) -> None:
    """The deal decides whether Ana's chosen card in step B fits both piles, so that is made
    sure of here: every state her page gets in step B says each card in her hand fits both.
    With a card chosen, its hint and the most moves step B offers (Left pile, Right pile, End
    step B) fit every screen: on the small phone the three buttons wrapped to a second line
    and pushed her row out of the middle (the full viewport test failed about one run in
    five, on the deal)."""

    def both_piles(view: dict[str, Any]) -> None:
        if view.get("step") == "B" and view.get("turn") == 0 and view.get("hand"):
            plays = [
                {"type": "play_to_pile", "card": card, "pile": pile}
                for card in view["hand"]
                for pile in (0, 1)
            ]
            view["legal"] = [*plays, {"type": "end_step"}]

    ana = person("Ana")
    _views_changed(ana.page, both_piles)
    _start(ana, "warp99")
    page = ana.page
    _my_turn(ana, ".w-hand [data-legal=card]")
    page.locator("#app .w-hand [data-legal=card]").first.click()
    version = ana.version
    page.locator("#app .w-moves [data-legal=move]").first.click()
    ana.wait_version_above(version)
    _my_turn(ana, ".w-hand [data-legal=card]")
    page.locator("#app .w-hand [data-legal=card]").first.click()
    page.locator("#app .w-moves [data-legal=move]").nth(1).wait_for()
    problems = _every_screen(page, "warp99")
    assert not problems, "\n".join(problems)

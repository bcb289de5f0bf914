"""Floor's table on a phone (375 by 812) and a desktop (1280 by 800): it fits the screen without
sideways scrolling, the hand and the move buttons stay where they are across a turn, cards keep
their faces when hovered, focused or selected, the ticker says what happened, the focus stays on
the table after a move, and an Operation is shown as arithmetic ("4 + 6 = 10 → 0")."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.contrast import CONTRAST_JS
from tests.browser.pages import Person

Make = Callable[..., Person]

SIZES = {"phone": {"width": 375, "height": 812}, "desktop": {"width": 1280, "height": 800}}
sizes = pytest.mark.parametrize("size", list(SIZES))

BOX = """el => { const r = el.getBoundingClientRect();
  return [r.x, r.y, r.width, r.height].map(Math.round); }"""


def _two_at_the_table(person: Make, size: str) -> tuple[Person, Person]:
    """Ana (at ``size``, seat 0: she moves first) and Ben, at a Floor table of two."""
    ana, ben = person("Ana"), person("Ben", phone=False)
    ana.page.set_viewport_size(SIZES[size])
    code = ana.create_room("floor")
    ben.join_by_code(code)
    ana.wait_seats(2)
    ana.click("Start the game")
    for someone in (ana, ben):
        someone.wait_screen("table")
    ana.page.wait_for_function("() => document.body.dataset.myTurn === 'true'")
    return ana, ben


def _box(page: Page, selector: str) -> list[int]:
    box: list[int] = page.locator(selector).first.evaluate(BOX)
    return box


def _draw(someone: Person) -> None:
    someone.page.wait_for_function(
        "() => document.body.dataset.myTurn === 'true' && document.body.dataset.busy !== 'true'"
    )
    version = someone.version
    someone.page.locator("[data-legal=general]", has_text="Draw").first.click()
    someone.wait_version_above(version)


def _fits(page: Page) -> dict[str, Any]:
    facts: dict[str, Any] = page.evaluate(
        """() => {
          const doc = document.documentElement;
          const cards = [...document.querySelectorAll('.tray-hand .card')]
            .map((c) => c.getBoundingClientRect());
          const tray = document.querySelector('.tray').getBoundingClientRect();
          const table = document.querySelector('.table-area').getBoundingClientRect();
          return {
            sideways: doc.scrollWidth > window.innerWidth,
            tall: table.top < 0 || table.bottom > window.innerHeight,
            trayBottom: tray.bottom, height: window.innerHeight, width: window.innerWidth,
            cardsOut: cards.filter((r) => r.left < 0 || r.right > window.innerWidth
              || r.bottom > window.innerHeight).length,
            cards: cards.length,
          };
        }"""
    )
    return facts


@sizes
def test_the_table_fits_the_screen_without_sideways_scroll_even_with_many_cards(
    person: Make, size: str
) -> None:
    ana, ben = _two_at_the_table(person, size)
    hand = _box(ana.page, ".tray-hand")
    facts = _fits(ana.page)
    assert not facts["sideways"] and not facts["tall"], facts
    assert facts["trayBottom"] <= facts["height"] and facts["cardsOut"] == 0, facts
    # Both keep drawing: Ana's hand grows to 17 cards (two overlapping rows), still on screen.
    for _ in range(10):
        _draw(ana)
        _draw(ben)
    ana.page.wait_for_function("() => document.querySelectorAll('.tray-hand .card').length >= 17")
    facts = _fits(ana.page)
    assert not facts["sideways"] and not facts["tall"], facts
    assert facts["cardsOut"] == 0, facts
    assert _box(ana.page, ".tray-hand") == hand, "the hand keeps its place as it grows"


@sizes
def test_the_hand_and_the_moves_keep_their_place_across_a_turn(person: Make, size: str) -> None:
    ana, _ = _two_at_the_table(person, size)
    page = ana.page
    places = [(_box(page, ".tray-hand"), _box(page, ".tray-moves"))]
    card = page.locator("#app [data-legal=card]").first
    version = ana.version
    if card.count():
        card.click()
        page.locator("#app .tray-hand .card.selected").first.wait_for()
        places.append((_box(page, ".tray-hand"), _box(page, ".tray-moves")))
        move = page.locator("#app [data-legal=move]")
        (move if move.count() else page.locator("#app [data-legal=general]")).first.click()
    else:
        page.locator("#app [data-legal=general]").first.click()
    ana.wait_version_above(version)
    ana.wait_idle()
    places.append((_box(page, ".tray-hand"), _box(page, ".tray-moves")))
    assert all(place == places[0] for place in places), places


COLOURS = """el => { const s = getComputedStyle(el);
  return [s.backgroundColor, s.backgroundImage, s.color, s.borderTopColor, s.opacity]; }"""


#: Deals tried for a test that needs Ana to hold a playable card (nearly every deal does).
DEALS = 5


def _with_a_playable_card(person: Make, size: str) -> Person:
    """Ana at a fresh table whose deal gives her a card she can play now (the deal is the
    server's random one; another table is dealt if this one gives her none)."""
    for _ in range(DEALS):
        ana, _ = _two_at_the_table(person, size)
        ana.page.locator("#app .tray-hand .card").first.wait_for()
        if ana.page.locator("#app .tray-hand [data-legal=card]").count():
            return ana
    raise AssertionError(f"no playable card for Ana in {DEALS} deals")


@sizes
def test_a_card_keeps_its_face_when_hovered_focused_or_selected(person: Make, size: str) -> None:
    ana = _with_a_playable_card(person, size)
    page = ana.page
    card = page.locator("#app .tray-hand [data-legal=card]").first
    key = card.get_attribute("data-key")
    same = page.locator(f"#app .tray-hand [data-key='{key}']")
    page.mouse.move(0, 0)
    face = same.evaluate(COLOURS)
    same.hover()
    assert same.evaluate(COLOURS) == face, "hovered"
    same.focus()
    assert same.evaluate(COLOURS) == face, "focused"
    same.click()
    page.locator(f"#app .tray-hand [data-key='{key}'].selected").wait_for()
    assert same.evaluate(COLOURS) == face, "selected (and still hovered, as on a phone)"
    # Cards that cannot be played now stay fully legible.
    opacities = page.locator("#app .tray-hand .card").evaluate_all(
        "cards => cards.map((c) => Number(getComputedStyle(c).opacity))"
    )
    assert min(opacities) == 1, opacities


@sizes
def test_the_ticker_says_who_drew(person: Make, size: str) -> None:
    ana, ben = _two_at_the_table(person, size)
    _draw(ana)
    ana.page.locator(".ticker[data-ticker]", has_text="You drew a card").wait_for()
    ben.page.locator(".ticker[data-ticker]", has_text="Ana drew a card").wait_for()
    _draw(ben)
    ana.page.locator(".ticker[data-ticker]", has_text="Ben drew a card").wait_for()


@sizes
def test_the_focus_stays_on_the_table_after_a_move(person: Make, size: str) -> None:
    ana, _ = _two_at_the_table(person, size)
    page = ana.page
    draw = page.locator("#app [data-legal=general]", has_text="Draw").first
    draw.focus()
    version = ana.version
    page.keyboard.press("Enter")
    ana.wait_version_above(version)
    ana.wait_idle()
    inside = page.evaluate(
        "() => Boolean(document.activeElement && document.activeElement !== document.body"
        " && document.activeElement.closest('.table-area'))"
    )
    assert inside, page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")


# A floor of Triangle 4; the hand: Add, Triangle 6 (id 1 * 20 + 6 * 2) and Circle 3. The legal
# list in the view's compact form (docs/rules/floor.md, "Legal actions in the view").
OPERATION_VIEW = {
    "game": "floor",
    "seat": 0,
    "to_act": [0],
    "over": False,
    "result": None,
    "phase": "play",
    "turn": 0,
    "direction": 1,
    "hand_sizes": [3, 7],
    # On the wire a card is its id (docs/rules/floor.md): Circle 3, Triangle 6, Add.
    "hand": [6, 32, 80],
    "floor": {"shape": "triangle", "number": 4},
    "top": 28,  # Triangle 4
    "pending": None,
    "opener_grabbable": False,
    "draw_size": 80,
    "discard_size": 5,
    "passes": 0,
    "legal": [
        {"type": "draw", "count": 1},
        {"type": "number", "plays": [{"cards": [32], "shapes": ["triangle"]}]},
        {
            "type": "operation",
            "floor": 4,
            "choices": [
                {
                    "op": "add",
                    "cards": [80],
                    "operands": [
                        {"card": 32, "shape": "triangle", "result": 0},
                        {"card": 6, "shape": "circle", "result": 7},
                    ],
                }
            ],
            "riders": {},
        },
    ],
}

DRAW_TABLE = """async ([view, picked, pending = null]) => {
  const floor = await import("/js/views/games/floor.js");
  const ctx = { you: 0, spectator: false, names: (s) => ["Ana", "Ben"][s], ui: { picked },
                setUi() {}, act() {}, busy: pending !== null, pending };
  const parts = floor.table(view, ctx);
  const sending = [...parts.moves.querySelectorAll("button")]
    .filter((b) => b.querySelector(".sending"));
  const line = floor.eventText({ type: "played_operation", seat: 1, card: 81, operand: 32,
                                 riders: [], floor: { shape: "triangle", number: 0 } }, 1, ctx);
  return { moves: parts.moves.textContent, hint: parts.hint, line,
           sending: sending.map((b) => b.getAttribute("aria-label") || b.textContent),
           selected: [...parts.tray.querySelectorAll(".card.selected")]
             .map((c) => c.getAttribute("aria-label")) };
}"""


@sizes
def test_an_operation_is_shown_as_arithmetic(person: Make, size: str) -> None:
    ana = person("Ana")
    ana.page.set_viewport_size(SIZES[size])
    ana.home()
    drawn = ana.page.evaluate(DRAW_TABLE, [OPERATION_VIEW, [80, 32]])
    assert "4 + 6 = 10 → 0" in drawn["moves"], drawn
    assert drawn["hint"].startswith("4 + 6 = 10 → 0: only the last digit counts"), drawn
    assert drawn["line"] == "Ben played Add Triangle 6: 4 + 6 = 10 → 0", drawn
    # Picking the Add alone says what to pick next; a Number alone that fits says why.
    alone = ana.page.evaluate(DRAW_TABLE, [OPERATION_VIEW, [80]])
    assert alone["hint"] == "Add: pick the Number to add to 4.", alone
    single = ana.page.evaluate(DRAW_TABLE, [OPERATION_VIEW, [32]])
    assert "matches the floor shape" in single["hint"], single
    assert re.search(
        r"\d \+ \d = \d+", ana.page.evaluate(DRAW_TABLE, [OPERATION_VIEW, [80, 6]])["moves"]
    )


MULTIPLY_LINE = """async (view) => {
  const floor = await import("/js/views/games/floor.js");
  const ctx = { you: 0, spectator: false, names: (s) => ["Ana", "Ben"][s], ui: {},
                setUi() {}, act() {}, busy: false, pending: null };
  floor.table(view, ctx);
  // Times 2 gives 6 from a 3 and from an 8: the floor drawn last (3) says which.
  return floor.eventText({ type: "played_operation", seat: 1, card: 88, operand: 64,
                           riders: [], floor: { shape: "star", number: 6 } }, 1, ctx);
}"""


def test_a_multiplication_is_worked_out_from_the_floor_it_was_played_on(person: Make) -> None:
    ana = person("Ana")
    ana.home()
    view = {**OPERATION_VIEW, "floor": {"shape": "triangle", "number": 3}}
    line = ana.page.evaluate(MULTIPLY_LINE, view)
    assert line == "Ben played Multiply Star 2: 3 \u00d7 2 = 6", line


#: Records the `data-anim` name of every element that is animated (motion.js uses el.animate).
RECORD_MOTION = """(() => {
  window.__moved = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    window.__moved.push(this.dataset ? this.dataset.anim || "" : "");
    return animate.apply(this, args);
  };
})();"""


def _moved(someone: Person) -> list[str]:
    moved: list[str] = someone.page.evaluate("() => window.__moved.splice(0)")
    return moved


@sizes
def test_a_draw_and_a_play_move_the_cards(person: Make, size: str) -> None:
    ana, ben = _two_at_the_table(person, size)
    for someone in (ana, ben):
        someone.page.add_init_script(RECORD_MOTION)
        someone.page.reload()
        someone.wait_screen("table")
    _draw(ana)
    ana.page.wait_for_function("() => window.__moved.some((n) => n.startsWith('hand-'))")
    ben.page.wait_for_function("() => window.__moved.includes('seat-0')")
    _moved(ana)
    # Ben plays whatever he can (else draws): on Ana's page his card lands on the pile.
    ben.page.wait_for_function("() => document.body.dataset.myTurn === 'true'")
    version = ana.version
    card = ben.page.locator("#app [data-legal=card]")
    if card.count():
        while not ben.page.locator("#app [data-legal=move]").count():
            ben.page.locator("#app [data-legal=card]").first.click()
        ben.page.locator("#app [data-legal=move]").first.click()
        ana.wait_version_above(version)
        ana.page.wait_for_function("() => window.__moved.includes('discard')")
    else:
        ben.page.locator("#app [data-legal=general]", has_text="Draw").first.click()
        ana.wait_version_above(version)
        ana.page.wait_for_function("() => window.__moved.includes('seat-1')")


@sizes
def test_the_move_in_flight_is_marked_sending(person: Make, size: str) -> None:
    ana = person("Ana")
    ana.page.set_viewport_size(SIZES[size])
    ana.home()
    play = {"type": "operation", "card": 80, "operand": 32, "riders": [], "shape": "triangle"}
    # The frame clears the picked cards when the move is sent: the play stays, marked.
    drawn = ana.page.evaluate(DRAW_TABLE, [OPERATION_VIEW, [], play])
    assert drawn["sending"] == ["Add Triangle 6: 4 + 6 = 10 → 0"], drawn
    assert sorted(drawn["selected"]) == ["Add", "Triangle 6"], drawn
    drawing = ana.page.evaluate(DRAW_TABLE, [OPERATION_VIEW, [], {"type": "draw"}])
    assert drawing["sending"] == ["Draw sending…"], drawing


@sizes
def test_how_to_play_shows_the_cards(person: Make, size: str) -> None:
    ana, _ = _two_at_the_table(person, size)
    page = ana.page
    page.locator("#app").get_by_role("button", name="How to play").first.click()
    sheet = page.locator(".f-howto")
    sheet.wait_for()
    assert sheet.locator(".card").count() >= 8
    assert "Only the last digit counts" in sheet.inner_text()


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(fg: str, bg: str) -> float:
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


#: Every text colour of Floor's section of app.css on the background it sits on.
TEXT_COLOURS = [
    ("#1d2521", "#ffffff"),  # card ink on a Number
    ("#1d2521", "#f1f3f5"),  # on an Operation
    ("#1d2521", "#e6fcf5"),  # on a Swap
    ("#1d2521", "#fff4e6"),  # on a Power
    ("#1d2521", "#e7f5ff"),  # on a Freeze
    ("#1d2521", "#fff0f6"),  # on a Take
    ("#5b655f", "#f3f0e8"),  # pile labels and direction on the page
    ("#8a1c1c", "#ffe3e3"),  # a Take stack, the last-card badge
    ("#0b4a80", "#dbeefe"),  # frozen
    ("#0b5f55", "#d3f5ee"),  # a charged Swap
    ("#6b4b00", "#fff0d6"),  # the opener can be grabbed
    ("#3d4641", "#ebe7dc"),  # a plain badge
]


def test_floor_text_colours_have_enough_contrast() -> None:
    low = [
        (fg, bg, round(_contrast(fg, bg), 2)) for fg, bg in TEXT_COLOURS if _contrast(fg, bg) < 4.5
    ]
    assert not low, low


@sizes
def test_the_words_on_a_floor_table_have_enough_contrast_as_drawn(person: Make, size: str) -> None:
    """Measured on the page (the colours actually behind each text), not from a list: the
    piles, the floor number, the hint, the moves, the hand's corners and the strip."""
    ana = _with_a_playable_card(person, size)
    ana.page.locator("#app .tray [data-legal=card]").first.click()
    texts = ana.page.evaluate(
        CONTRAST_JS, "#app .table-middle *, #app .tray *, #app .table-strip *"
    )
    assert len(texts) > 15, texts
    # The floor number stands on its shape (an SVG fill, which no background colour shows):
    # measured below against each shape's fill instead.
    low = [t for t in texts if t["ratio"] < 4.5 and "f-floor-number" not in t["cls"]]
    assert not low, low[:5]
    pairs = ana.page.evaluate(FLOOR_NUMBER_ON_EACH_SHAPE)
    assert len(pairs) == 4
    low_numbers = [
        (shape, text, fill, round(_contrast(_hex(text), _hex(fill)), 2))
        for shape, text, fill in pairs
        if _contrast(_hex(text), _hex(fill)) < 4.5
    ]
    assert not low_numbers, low_numbers


#: The floor number's colour and the fill of the shape under it, for each of the four shapes.
FLOOR_NUMBER_ON_EACH_SHAPE = """() => {
  const face = document.querySelector('#app .f-floor-face');
  return ['circle', 'triangle', 'square', 'star'].map((shape) => {
    const copy = face.cloneNode(true);
    copy.className = `f-floor-face s-${shape}`;
    const icon = copy.querySelector('.shape');
    if (icon) icon.setAttribute('class', `shape shape-${shape}`);
    document.body.appendChild(copy);
    const fill = getComputedStyle(copy.querySelector('.shape') || copy).fill;
    const text = getComputedStyle(copy.querySelector('.f-floor-number')).color;
    copy.remove();
    return [shape, text, fill];
  });
}"""


def _hex(rgb: str) -> str:
    """``rgb(12, 34, 56)`` as ``#0c2238``."""
    parts = [int(float(p)) for p in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    return "#" + "".join(f"{p:02x}" for p in parts)

"""The frame around every game, in a real browser on a phone (375 by 812) and a desktop
(1280 by 800):
the table fits one screen, long names never make the page scroll sideways, the lobby's Start
and Share are in sight, results over the table, the way back to a game, the signs that it is
your turn, the chat's unread badge, focus after a move, the event feed and text contrast."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page, Route, expect

from tests.browser.pages import Person
from tests.browser.play import play_to_the_end

Make = Callable[..., Person]
LONG_NAME = "Maximiliana Wolfeschlegel"[:24]  # the longest name a seat takes: 24 characters


def _sideways(page: Page) -> int:
    """How far the page could scroll sideways (0: not at all)."""
    width: int = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


def _with_bot(
    host: Person, game: str = "numberswap", options: dict[str, object] | None = None
) -> str:
    code = host.create_room(game, options if options is not None else {"target_score": 10})
    host.click("Add a bot")
    host.wait_seats(2)
    return code


def _start(host: Person, *others: Person) -> None:
    host.click("Start the game")
    for someone in (host, *others):
        someone.wait_screen("table")


def _opening_flip(person: Person) -> None:
    """Number Swap's opening: turn up two cards (two clicks, one move)."""
    for _ in range(2):
        person.page.locator("#app [data-legal=cell]:not([disabled])").first.click()
    person.wait_idle()


# -- layout ----------------------------------------------------------------------------------


def test_a_long_name_never_makes_the_phone_page_scroll_sideways(person: Make) -> None:
    wolf, ben = person(LONG_NAME), person("Ben")
    assert len(LONG_NAME) == 24
    code = wolf.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    wolf.wait_seats(2)
    for someone in (wolf, ben):
        assert _sideways(someone.page) == 0, f"lobby, {someone.name}"
    _start(wolf, ben)
    for someone in (wolf, ben):
        assert _sideways(someone.page) == 0, f"table, {someone.name}"
        someone.open_sheet("players")
        assert _sideways(someone.page) == 0, f"players sheet, {someone.name}"
    # The name is cut with an ellipsis in the strip, not spilled.
    name = ben.page.locator(".table-strip .seat-name", has_text="Maximiliana")
    assert name.evaluate("el => getComputedStyle(el).textOverflow") == "ellipsis"
    assert name.evaluate("el => el.scrollWidth > el.clientWidth")


def test_the_table_fits_one_phone_screen_and_one_desktop_screen(person: Make) -> None:
    for phone in (True, False):
        ana = person("Ana", phone=phone)
        _with_bot(ana)
        _start(ana)
        page = ana.page
        height = page.evaluate("innerHeight")
        assert page.evaluate("document.documentElement.scrollHeight") <= height
        for region in (".table-strip", ".ticker", ".turn-banner", ".table-middle", ".tray"):
            box = page.locator(region).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= height + 0.5, region
        # The hint line and the move row keep their room even when empty.
        assert page.locator(".tray-moves").bounding_box()["height"] >= 44  # type: ignore[index]
        assert page.locator(".tray-hint").bounding_box()["height"] >= 16  # type: ignore[index]
        assert page.locator(".side-bar").is_visible() == phone
        assert page.locator(".table-side .players-panel").is_visible() != phone
        if phone:
            # Held sideways, the phone gets the side column and still does not scroll.
            page.set_viewport_size({"width": 812, "height": 375})
            expect(page.locator(".table-side .players-panel")).to_be_visible()
            assert not page.locator(".side-bar").is_visible()
            assert page.evaluate("document.documentElement.scrollHeight") <= 375
            assert _sideways(page) == 0


def test_eight_seats_scroll_inside_the_strip_never_the_page(person: Make) -> None:
    ana = person("Ana")
    ana.create_room("numberswap", {"target_score": 10})
    for seats in range(2, 9):
        ana.click("Add a bot")
        ana.wait_seats(seats)
    _start(ana)
    strip = ana.page.locator(".table-strip")
    expect(strip.locator(".strip-seat")).to_have_count(7)
    assert strip.evaluate("el => el.scrollWidth > el.clientWidth")
    assert _sideways(ana.page) == 0


# -- lobby, home, screens ------------------------------------------------------------------------


def test_the_lobby_start_and_share_controls_are_in_the_phone_screen(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben")
    code = ana.create_room("numberswap")
    height = ana.page.evaluate("innerHeight")

    def in_sight(control: Locator) -> bool:
        box = control.bounding_box()
        return bool(box and box["y"] >= 0 and box["y"] + box["height"] <= height)

    start = ana.page.get_by_role("button", name="Start the game")
    # As the room opens: the code, the link to share and Start, without scrolling.
    copy = ana.page.get_by_role("button", name="Copy link")
    for control in (start, copy, ana.page.locator(".room-code")):
        assert in_sight(control), control
    # Start stays in sight wherever the host scrolls to (adding a bot, say).
    ana.click("Add a bot")
    ana.wait_seats(2)
    for y in (0, 400, 100_000):
        ana.page.evaluate("y => scrollTo(0, y)", y)
        assert in_sight(start), y
    ben.join_from_link(code)
    waiting = ben.page.get_by_text("Waiting for Ana to start the game.")
    box = waiting.bounding_box()
    assert box and box["y"] + box["height"] <= ben.page.evaluate("innerHeight")


def test_share_falls_back_to_copying_the_link(person: Make) -> None:
    ana = person("Ana")
    # No Web Share API here (as on desktop Linux), and a clipboard that records what it got.
    ana.page.add_init_script(
        """delete Navigator.prototype.share;
        window.__copied = [];
        Object.defineProperty(navigator, 'clipboard', {value: {
            writeText: async (text) => { window.__copied.push(text); }}});"""
    )
    code = ana.create_room("numberswap")
    assert ana.page.get_by_role("button", name="Share").count() == 0
    ana.page.get_by_role("button", name="Copy link").click()
    ana.page.get_by_role("button", name="Link copied").wait_for()
    assert ana.page.evaluate("window.__copied") == [f"{ana.url}/r/{code}"]


def test_share_uses_the_web_share_api_when_the_browser_has_it(person: Make) -> None:
    ana = person("Ana")
    ana.page.add_init_script(
        "window.__shared = []; navigator.share = async (data) => { window.__shared.push(data); };"
    )
    code = ana.create_room("numberswap")
    ana.page.get_by_role("button", name="Share", exact=True).click()
    ana.page.wait_for_function("() => window.__shared.length === 1")
    shared = ana.page.evaluate("window.__shared[0]")
    assert shared["url"] == f"{ana.url}/r/{code}" and code in shared["text"]


def test_start_takes_the_host_to_the_top_of_the_table_with_the_banner_focused(
    person: Make,
) -> None:
    ana = person("Ana")
    _with_bot(ana)
    ana.page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert ana.page.evaluate("scrollY") > 0
    ana.click("Start the game")
    ana.wait_screen("table")
    assert ana.page.evaluate("scrollY") == 0
    expect(ana.page.locator(".turn-banner")).to_be_focused()


def test_how_to_play_opens_from_the_lobby_and_the_table(person: Make) -> None:
    ana = person("Ana")
    _with_bot(ana)
    for where in ("lobby", "table"):
        if where == "table":
            _start(ana)
        ana.page.get_by_role("button", name="How to play").click()
        sheet = ana.page.get_by_role("dialog", name=re.compile("How to play"))
        expect(sheet).to_be_visible()
        expect(sheet.locator("h2")).to_be_focused()
        assert sheet.locator(".howto-body").inner_text().strip(), where
        ana.page.keyboard.press("Escape")
        expect(sheet).to_have_count(0)


def test_the_home_page_offers_to_return_to_the_game_while_seated(person: Make) -> None:
    ana = person("Ana")
    code = _with_bot(ana)
    # A token for a room that is gone is not offered (and forgotten).
    ana.page.evaluate("localStorage.setItem('parlor.token.ZZZZZ', 'stale')")
    ana.page.locator(".brand").click()
    ana.wait_screen("home")
    back = ana.page.get_by_role(
        "button", name=re.compile(f"Return to your game: Number Swap, room {code}")
    )
    expect(back).to_be_visible()
    assert ana.page.get_by_role("button", name=re.compile("ZZZZZ")).count() == 0
    assert ana.page.evaluate("localStorage.getItem('parlor.token.ZZZZZ')") is None
    # The code box is in sight too.
    box = ana.page.get_by_label("Room code").bounding_box()
    assert box and box["y"] + box["height"] <= ana.page.evaluate("innerHeight")
    back.click()
    ana.wait_screen("lobby")
    assert ana.seat == 0
    ana.errors = [e for e in ana.errors if "404 (Not Found)" not in e]


# -- the game's end ------------------------------------------------------------------------------


def test_the_results_open_over_the_table_with_names_places_and_scores(person: Make) -> None:
    ana = person("Ana")
    _with_bot(ana)
    _start(ana)
    play_to_the_end("numberswap", [ana])
    results = ana.page.locator("[data-results]")
    expect(results).to_be_visible()
    expect(results.locator("h2")).to_be_focused()
    assert results.evaluate("el => el.scrollTop") == 0
    rows = ana.results()
    assert sorted(row[1] for row in rows) == ["Ana", "Bot 1"]
    assert sorted(row[0] for row in rows)[0] == "1"
    assert all(re.fullmatch(r"-?\d+", row[2]) for row in rows)
    assert "Seat " not in results.inner_text()
    expect(results.get_by_role("button", name="Rematch")).to_be_visible()
    # The table can be looked at, and the results brought back.
    results.get_by_role("button", name="See the table").click()
    expect(results).to_have_count(0)
    ana.page.get_by_role("button", name="Show the results").click()
    results.get_by_role("button", name="New game").click()
    ana.wait_screen("home")


# -- your turn -------------------------------------------------------------------------------


def test_the_title_and_the_icon_say_when_it_is_your_turn(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = ana.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    ana.wait_seats(2)
    icon = ana.page.locator("link[rel=icon]")
    assert icon.get_attribute("data-turn") in (None, "")
    _start(ana, ben)
    # Both turn up two cards at the start: Ana's turn.
    expect(ana.page).to_have_title(re.compile(r"^● Your turn · Room "))
    expect(icon).to_have_attribute("data-turn", "mine")
    assert "circle" in (icon.get_attribute("href") or "")
    _opening_flip(ana)
    # Now she waits for Ben.
    expect(ana.page).to_have_title(f"Room {code} · Parlor")
    expect(icon).to_have_attribute("data-turn", "")
    assert "circle" not in (icon.get_attribute("href") or "")


def test_the_turn_alert_is_off_by_default_remembered_and_buzzes_when_the_turn_comes(
    person: Make,
) -> None:
    ana = person("Ana")
    ana.page.add_init_script("window.__buzz = []; navigator.vibrate = (ms) => __buzz.push(ms);")
    _with_bot(ana)
    _start(ana)
    ana.players()
    toggle = ana.page.get_by_label("Beep and vibrate on my turn")
    expect(toggle).not_to_be_checked()
    toggle.check()
    ana.page.reload()
    ana.wait_screen("table")
    ana.players()
    expect(ana.page.get_by_label("Beep and vibrate on my turn")).to_be_checked()
    assert ana.page.evaluate("__buzz") == [], "not on entering, only when the turn comes"
    for _ in range(40):
        if ana.page.evaluate("__buzz.length"):
            break
        version = ana.version
        if not ana.step("numberswap"):
            ana.wait_version_above(version)
    assert ana.page.evaluate("__buzz.length") >= 1


def test_the_chat_badge_counts_lines_while_the_chat_sheet_is_closed(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = ana.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    ana.wait_seats(2)
    _start(ana, ben)
    badge = ana.page.locator(".side-bar [data-unread]")
    assert badge.count() == 0
    ben.chat("one")
    ben.wait_chat("one")
    ben.chat("two")
    expect(badge).to_have_text("2")
    ana.open_sheet("chat")
    expect(badge).to_have_count(0)
    ana.wait_chat("Ben: two")
    ana.close_sheet()
    ben.chat("three")
    expect(badge).to_have_text("1")
    # Her own lines are not unread.
    ana.open_sheet("chat")
    ana.chat("mine")
    ana.wait_chat("Ana: mine")
    ana.close_sheet()
    assert badge.count() == 0


def test_the_chat_badge_counts_a_line_from_another_player_of_the_same_name(person: Make) -> None:
    """Unread lines were told apart by name: another Ana's lines never counted."""
    ana, other = person("Ana"), person("Ana", phone=False)
    code = ana.create_room("numberswap", {"target_score": 10})
    other.join_by_code(code)
    ana.wait_seats(2)
    _start(ana, other)
    badge = ana.page.locator(".side-bar [data-unread]")
    other.chat("same name, other seat")
    other.wait_chat("same name, other seat")
    expect(badge).to_have_text("1")


def test_a_chat_line_refused_as_too_fast_stays_in_the_box(person: Make) -> None:
    ana = person("Ana")
    ana.create_room("numberswap")
    box = ana.page.get_by_role("textbox", name="Message")
    ana.chat("hello")
    ana.wait_chat("Ana: hello")
    expect(box).to_have_value("")  # taken: the box is empty again
    # A burst of five (this test server refills one line per 1,000 s, tests/browser/served.py):
    # ten in a row are too many, however fast or slow the machine.
    for i in range(10):
        ana.chat(f"line {i}")
    ana.page.locator(".toast[role=alert]", has_text="too fast").wait_for()
    ana.wait_idle()
    expect(box).to_have_value("line 9")


def test_the_focus_stays_on_the_table_after_a_move(person: Make) -> None:
    ana = person("Ana", phone=False)
    _with_bot(ana)
    ana.page.get_by_role("button", name="Start the game").focus()
    ana.page.keyboard.press("Enter")
    ana.wait_screen("table")
    first = ana.page.locator("#app [data-legal=cell]").first
    first.focus()
    ana.page.keyboard.press("Enter")
    ana.page.keyboard.press("Tab")
    version = ana.version
    ana.page.keyboard.press("Space")  # the second card: the move is sent
    ana.wait_version_above(version)
    ana.wait_idle()
    focused = ana.page.evaluate(
        """() => { const el = document.activeElement;
            return {body: el === document.body, table: Boolean(el.closest('.table-area'))}; }"""
    )
    assert focused == {"body": False, "table": True}


# -- what happened ---------------------------------------------------------------------------

# The Number Swap module as served, with a feed line for every event and a count of the
# animations asked for (its own eventText and animate, if it has them, still run).
SPY = """
export function eventText(event, seat, ctx) {
  const own = typeof __ownEventText === "function" ? __ownEventText(event, seat, ctx) : null;
  return own || `${seat === null ? "Someone" : ctx.names(seat)}: ${event.type}`;
}
export function animate(entries, how) {
  document.body.dataset.animations = String(Number(document.body.dataset.animations || 0) + 1);
  if (!how || !how.root || !(how.before instanceof Map)) throw new Error("animate: no root");
  if (typeof __ownAnimate === "function") __ownAnimate(entries, how);
}
"""


def _spy_on_number_swap(route: Route) -> None:
    response = route.fetch()
    body = response.text()
    body = body.replace("export function eventText(", "function __ownEventText(")
    body = body.replace("export function animate(", "function __ownAnimate(")
    route.fulfill(response=response, body=body + SPY)


def test_the_ticker_and_the_log_show_a_line_for_each_move(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    ana.page.route(re.compile(r"/js/views/games/numberswap\.js$"), _spy_on_number_swap)
    code = ana.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    ana.wait_seats(2)
    _start(ana, ben)
    ticker = ana.page.locator(".ticker[data-ticker]")
    # Before the first move, the game's first line: its deal, in plain words (docs/fairplay.md).
    sealed = ticker.inner_text()
    assert sealed == "Cards dealt. The deal is sealed: your browser checks it when the game ends."
    assert ana.facts().get("animations") is None
    version = ana.version
    _opening_flip(ben)
    ana.wait_version_above(version)
    expect(ticker).not_to_have_text(sealed)
    line = ticker.inner_text()
    # The log has it too, as its latest line, and the live region reads it out.
    ana.open_sheet("log")
    expect(ana.page.locator(".game-log li").last).to_have_text(line)
    assert line in ana.page.locator("[aria-live=polite].visually-hidden").inner_text()
    ana.close_sheet()
    assert ana.facts().get("animations") == "1"
    # A redraw without a move (a chat line) animates nothing.
    ben.chat("nice")
    ana.open_sheet("chat")
    ana.wait_chat("Ben: nice")
    assert ana.facts().get("animations") == "1"


# The Number Swap module as served, drawn through the new table() shape: its own middle (its
# whole table if it returns a Node), its own hand inside a spy's box, and the spy's move button
# and hint while it is your turn; with a record of every action the frame said was in flight.
REGIONS = """
export function table(view, ctx) {
  const own = __ownTable(view, ctx);
  if (ctx.pending) (window.__pending ||= []).push(ctx.pending.type);
  const middle = own && own.middle !== undefined ? own.middle : own;
  const hand = document.createElement("div");
  hand.className = "spy-hand";
  hand.style.minHeight = "100px";
  if (own && own.tray) hand.append(own.tray);
  else hand.textContent = "HAND";
  const mine = (view.legal || []).length > 0;
  let moves = null;
  if (mine) {
    moves = document.createElement("button");
    moves.type = "button";
    moves.textContent = "A move";
    moves.disabled = true;
  }
  return { middle, tray: hand, moves, hint: mine ? "A hint for you" : null };
}
"""


def _regions_for_number_swap(route: Route) -> None:
    response = route.fetch()
    body = response.text().replace("export function table(", "function __ownTable(")
    route.fulfill(response=response, body=body + REGIONS)


def test_a_games_regions_go_in_the_tray_and_keep_their_place_across_a_turn(
    person: Make,
) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    ana.page.route(re.compile(r"/js/views/games/numberswap\.js$"), _regions_for_number_swap)
    code = ana.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    ana.wait_seats(2)
    _start(ana, ben)
    tray = ana.page.locator(".tray")
    expect(tray.locator(".tray-hint")).to_have_text("A hint for you")
    expect(tray.locator(".tray-moves button")).to_have_text("A move")
    hand = tray.locator(".tray-hand .spy-hand")
    before = (hand.bounding_box(), tray.bounding_box())
    _opening_flip(ana)
    # Her move went out marked as in flight; now she waits for Ben: no hint, no move button,
    # and neither the tray nor the hand in it has moved.
    assert "flip" in " ".join(ana.page.evaluate("window.__pending || []"))
    expect(tray.locator(".tray-hint")).to_have_text("")
    expect(tray.locator(".tray-moves button")).to_have_count(0)
    assert (hand.bounding_box(), tray.bounding_box()) == before
    assert ana.page.locator(".table-middle > *").count() > 0  # the game's own table


# -- contrast ----------------------------------------------------------------------------------

# Each colour's text and the colour behind it (the first ancestor with an opaque background).
COLOURS = """sel => {
  const rgb = (s) => {
    const m = s.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const el = document.querySelector(sel);
  if (!el) return null;
  let back = null;
  for (let at = el; at && !back; at = at.parentElement) {
    const c = rgb(getComputedStyle(at).backgroundColor);
    if (c && c[3] > 0.99) back = c;
  }
  return {fg: rgb(getComputedStyle(el).color), bg: back || [255, 255, 255, 1]};
}"""


def _luminance(rgb: list[float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (channels 0 to 255)."""

    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: list[float], bg: list[float]) -> float:
    """WCAG 2 contrast ratio, (L1 + 0.05) / (L2 + 0.05) with L1 the lighter."""
    light, dark = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _check(page: Page, selectors: list[str]) -> dict[str, float]:
    low = {}
    for selector in selectors:
        found = page.evaluate(COLOURS, selector)
        assert found, f"nothing matches {selector}"
        ratio = contrast(found["fg"], found["bg"])
        if ratio < 4.5:
            low[selector] = round(ratio, 2)
    return low


def test_the_main_text_colours_have_a_contrast_of_at_least_4_5(person: Make) -> None:
    assert round(contrast([255, 255, 255], [43, 138, 94]), 2) == 4.29  # the old primary green
    ana = person("Ana")
    _with_bot(ana)
    lobby = [
        ".lobby .summary",  # body text
        ".code-caption",  # muted
        ".link-text",
        ".start",  # primary button
        ".badge.host",
    ]
    assert _check(ana.page, lobby) == {}
    _start(ana)
    ana.page.evaluate("document.querySelector('.ticker').textContent = 'x'")  # a colour needs text
    table = [".turn-banner", ".ticker", ".tray-hint", ".strip-seat .seat-name", ".bar-code"]
    assert _check(ana.page, table) == {}
    ana.open_sheet("players")
    assert _check(ana.page, [".player-list .badge.online", ".player-facts"]) == {}

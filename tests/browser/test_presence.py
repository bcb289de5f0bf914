"""The table tells the truth about people, in a real browser (issue 27): a friend whose
connection drops is shown in words with the time until a bot plays for them, every move a bot
makes for them is said as the bot's, they are welcomed back, a player who comes back is told
what happened while they were away, a reload keeps the game log (even after the end), and a
refusal names people, never seat numbers.

Against the usual test server (its grace, 15 s, is long: the countdown is seen before the bot
comes; the host then lets a bot play for the friend rather than the test waiting it out).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Locator, WebSocketRoute, expect

from rules.codec import pack, unpack
from tests.browser.pages import Person
from tests.browser.play import play_to_the_end, screenshot_dir, wait_for_news
from tests.browser.test_takeover import play_until, start_two, starts_a_turn

Make = Callable[..., Person]


def _log(person: Person) -> Locator:
    """The game log's lines (the log is a sheet on a phone: opened)."""
    person.open_sheet("log")
    return person.page.locator("[data-panel=log] .game-log li")


def test_a_friend_who_drops_is_shown_in_words_until_they_are_back(
    person: Make, tmp_path: Path
) -> None:
    shots = screenshot_dir(tmp_path)
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = start_two(ana, ben)
    play_until([ana, ben], lambda: starts_a_turn(ben))
    bens = re.compile(r"^Ben (drew|took|turned|put|threw)")
    his_own = _log(ana).filter(has_text=bens).count()
    ana.close_sheet()
    # Ben's connection is really cut: his tab closes.
    ben.close_tab()
    strip = ana.page.locator(".table-strip .strip-seat", has_text="Ben")
    expect(strip.locator("[data-presence=offline]")).to_contain_text("connection lost")
    expect(strip.locator("[data-presence=offline] [role=timer]")).to_be_visible()
    banner = ana.page.locator(".turn-banner[data-absent=offline]")
    expect(banner).to_contain_text("Ben's connection dropped — a bot plays for Ben in")
    # The clock beside the banner is the bot's, not Ben's turn timer.
    expect(ana.page.locator(".banner-timer")).to_contain_text("to the bot")
    ana.screenshot(shots / "numberswap-dropped-phone.png")
    # Ana, the host, lets a bot play for him rather than wait.
    ana.players()
    ana.page.get_by_role("button", name="Let a bot play for Ben").click()
    ana.page.get_by_role("button", name="Yes, let a bot play for Ben").click()
    ana.close_sheet()
    expect(strip.locator(".seat-name")).to_have_text("Bot (for Ben)")
    lines = _log(ana)
    expect(lines.filter(has_text="A bot plays for Ben until Ben is back.")).to_have_count(1)
    expect(lines.filter(has_text=re.compile(r"^Bot for Ben "))).not_to_have_count(0)
    assert lines.filter(has_text=bens).count() == his_own, "no move the bot made is Ben's"
    ana.close_sheet()
    # Ben comes back: he is told what happened, with names; Ana is told he is back.
    ben.reopen(code)
    ben.wait_screen("table")
    digest = ben.page.locator("[data-digest]")
    expect(digest).to_contain_text("While you were away")
    expect(digest).to_contain_text(re.compile(r"A bot played \d+ moves? for you\."))
    expect(digest.locator("li", has_text=re.compile(r"^Bot for you "))).not_to_have_count(0)
    assert digest.locator("li", has_text=re.compile(r"\bseat \d", re.I)).count() == 0
    ben.screenshot(shots / "numberswap-back-desktop.png")
    expect(_log(ana).filter(has_text="Ben is back.")).not_to_have_count(0)
    ana.close_sheet()
    expect(strip.locator(".seat-name")).to_have_text("Ben")
    # The log Ben's new tab shows was rebuilt from the game's history, not from memory.
    expect(_log(ben).filter(has_text=re.compile(r"^Bot for you "))).not_to_have_count(0)


def test_a_reload_after_the_end_shows_the_games_log(person: Make) -> None:
    ana = person("Ana")
    ana.create_room("floor")
    ana.click("Add a bot")
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    play_to_the_end("floor", [ana])
    ana.page.reload()
    ana.wait_screen("table")
    ana.page.locator("[data-results]").wait_for()
    ana.page.get_by_role("button", name="See the table").click()
    lines = _log(ana)
    expect(lines.filter(has_text="Nothing has happened yet.")).to_have_count(0)
    expect(lines.filter(has_text="Bot 1")).not_to_have_count(0)


def test_a_refusal_names_people_not_seat_numbers(person: Make) -> None:
    """The rules say "It is seat 1's turn"; the page says whose."""
    ana, ben = person("Ana"), person("Ben", phone=False)
    inject: list[WebSocketRoute] = []

    def handler(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        inject.append(ws)
        ws.on_message(lambda message: server.send(message))
        server.on_message(lambda message: ws.send(message))

    ben.page.route_web_socket(re.compile(r"/ws/"), handler)
    start_two(ana, ben)
    refusal = {
        "type": "error",
        "code": "not_your_turn",
        "message": "It is seat 1's turn",
        "command": {"type": "act"},
    }
    inject[-1].send(pack(refusal))
    toast = ben.page.locator(".toast")
    expect(toast).to_contain_text("Your move was not made: It is Ana's turn")
    assert unpack(pack(refusal))["message"] == "It is seat 1's turn"


def test_the_away_banner_gives_the_real_reason_a_bot_plays_for_you(person: Make) -> None:
    """Ben's turn timer (5 s, the shortest) runs out while he is at the table: his page says
    his time ran out, not a list of possible reasons."""
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = ana.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    ana.wait_seats(2)
    ana.page.locator("details.options summary").click()
    ana.page.get_by_label(re.compile("Turn timer")).fill("5")
    ana.page.get_by_label(re.compile("Turn timer")).dispatch_event("change")
    expect(ben.page.get_by_text("Turn timer: 5 s")).to_be_visible()
    ana.click("Start the game")
    ana.wait_screen("table")
    ben.wait_screen("table")
    play_until([ana, ben], lambda: starts_a_turn(ben))
    banner = ben.page.locator(".away-banner")
    expect(banner).to_contain_text(
        "A bot is playing for you for now: your time ran out.", timeout=15_000
    )
    assert "disconnected" not in banner.inner_text() and "host" not in banner.inner_text()


def test_the_replay_from_your_results_starts_at_your_seat_and_rules_say_their_name(
    person: Make,
) -> None:
    ana = person("Ana")
    ana.create_room("floor")
    ana.click("Add a bot")
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    # On a phone the table's "Rules" button is named for what it shows (label in name).
    expect(ana.page.get_by_role("button", name=re.compile(r"^Rules"))).to_be_visible()
    play_to_the_end("floor", [ana])
    link = ana.page.locator("[data-results] [data-replay-link]")
    expect(link).to_have_attribute("href", re.compile(rf"/replay/1\?seat={ana.seat}$"))
    # Back from the replay: no focus ring is drawn around the whole page (a gold line).
    link.click()
    ana.page.locator("[data-step-counter]").wait_for()
    ana.page.go_back()
    ana.wait_screen("table")
    ring = ana.page.evaluate(
        """() => { const el = document.activeElement; const cs = getComputedStyle(el);
                   return [el.tagName, cs.outlineStyle, el.getBoundingClientRect().width]; }"""
    )
    _tag, outline, width = ring
    assert outline == "none" or width < 0.9 * ana.page.viewport_size["width"], ring  # type: ignore[index]


def test_a_note_about_a_bots_moves_does_not_carry_into_the_rematch(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = ana.create_room("floor")
    ben.join_by_code(code)
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    ben.wait_screen("table")
    ana.players()
    ana.page.get_by_role("button", name="Let a bot play for Ben").click()
    ana.page.get_by_role("button", name="Yes, let a bot play for Ben").click()
    ana.close_sheet()
    ben.page.locator(".away-banner").wait_for()
    # Ana plays until the bot has made a move for Ben (Ben's page is a desktop: no sheets).
    made_for_ben = ben.page.locator(
        "[data-panel=log] .game-log li", has_text=re.compile(r"^Bot for you ")
    )
    for _ in range(40):
        if made_for_ben.count():
            break
        versions = [ana.version, ben.version]
        if not ana.step("floor"):
            wait_for_news([ana, ben], versions)
    expect(made_for_ben).not_to_have_count(0)
    ben.page.get_by_role("button", name="I'm back").click()
    note = ben.page.get_by_role("status").filter(
        has_text=re.compile(r"A bot played \d+ moves? for you")
    )
    expect(note).to_be_visible()
    play_to_the_end("floor", [ana, ben])
    ana.page.locator("[data-rematch]").click()
    ben.page.wait_for_function("() => document.body.dataset.over === 'false'")
    expect(note).to_have_count(0)

"""The table goes on when someone drops, in a real browser: a bot covers a friend who closed
their tab and hands the seat back, the host lets a bot play for an absent friend or removes
them (each after a confirmation), the turn countdown, and the heartbeat that notices a silent
network and reconnects.

These run against their own ``parlor serve`` with a one-second grace (``PARLOR_AWAY_GRACE``),
so a disconnected player's turn goes to a bot quickly; the pause test stops that server.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Locator, WebSocketRoute, expect

from tests.browser.pages import Person
from tests.browser.play import wait_for_news
from tests.browser.served import Served, parlor_serve

Make = Callable[..., Person]
#: Your own face-up Number Swap cards: in the tray (the phone-first table) or your grid box.
MY_UP_CARDS = ".tray-hand .ns-card.up, .ns-player.mine .ns-card.up"
GRACE_S = 1
#: How long a disconnected player's turn may take to reach a bot, as the others see it: the
#: grace, then the bot's moves, then the fan-out. Generous, so a slow machine does not fail.
TAKEOVER_MS = (GRACE_S + 6) * 1000
#: The client takes a socket that brought nothing for 5 s for dead (client-web/js/connection.js).
SILENCE_MS = 5_000
COVERED = re.compile(r"A bot played \d+ moves? for you\.")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = parlor_serve(tmp_path_factory.mktemp("quick"), PARLOR_AWAY_GRACE=str(GRACE_S))
    with served.process:
        yield served


@pytest.fixture(scope="module")
def server_url(served: Served) -> str:
    """The ``person`` fixture's server, for this module: the one with the short grace."""
    return served.url


# -- helpers ------------------------------------------------------------------------------------


def start_two(ana: Person, ben: Person) -> str:
    """Ana creates a Number Swap room (default turn timer), Ben joins, Ana starts."""
    code = ana.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    ben.wait_screen("table")
    return code


def starts_a_turn(person: Person) -> bool:
    """It is this person's turn and nothing of it is done yet (not the opening flip)."""
    return person.my_turn() and person.page.locator("#app [data-legal=draw]").count() > 0


def play_until(players: list[Person], done: Callable[[], bool], limit: int = 80) -> None:
    """Everyone clicks their legal moves, one click at a time, until ``done()``."""
    for _ in range(limit):
        if done():
            return
        versions = [p.version for p in players]
        if not any(p.step("numberswap") for p in players):
            wait_for_news(players, versions)
    raise AssertionError("the awaited moment did not come")


def row(person: Person, name: str) -> Locator:
    """The players list entry of ``name`` on ``person``'s page (a sheet on a phone: opened)."""
    players = person.players()
    name_of = person.page.locator(".seat-name", has_text=name)
    return players.locator("li", has=name_of)


# -- tests --------------------------------------------------------------------------------------


def test_a_friend_who_closes_the_tab_on_their_turn_is_covered_by_a_bot_and_gets_the_seat_back(
    person: Make,
) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = start_two(ana, ben)
    play_until([ana, ben], lambda: starts_a_turn(ben))
    ben_seat = ben.seat
    version = ana.version
    ben.close_tab()
    # Within the grace and a margin a bot plays Ben's turn, and Ana sees it happen.
    ana.wait_version_above(version, timeout=TAKEOVER_MS)
    expect(row(ana, "Ben").locator(".badge.away")).to_be_visible(timeout=TAKEOVER_MS)
    ana.page.wait_for_function("() => document.body.dataset.myTurn === 'true'", timeout=TAKEOVER_MS)
    # Across the top of her table, Ben's seat says he is away.
    assert ana.page.locator(".table-strip .strip-seat.away", has_text="Ben").count() == 1
    # Ana plays on; Ben's next turn goes to the bot at once.
    play_until([ana], lambda: not ana.my_turn())
    ana.page.wait_for_function("() => document.body.dataset.myTurn === 'true'", timeout=TAKEOVER_MS)
    # Ben opens the link again: his seat, a word about what the bot did, and no more bot.
    ben.reopen(code)
    ben.wait_screen("table")
    assert ben.seat == ben_seat
    note = ben.page.get_by_role("status").filter(has_text=COVERED)
    expect(note).to_be_visible()
    expect(row(ana, "Ben").locator(".badge.online")).to_be_visible()
    assert ben.page.locator(".away-banner").count() == 0
    ben.page.get_by_role("button", name="Dismiss what happened while you were away").click()
    expect(note).to_have_count(0)
    # His next turn waits for him: he makes the move himself.
    play_until([ana, ben], lambda: starts_a_turn(ben))
    expect(row(ana, "Ben").locator(".badge.turn")).to_be_visible()
    version = ben.version
    assert ben.step("numberswap")
    ben.wait_version_above(version)
    assert ben.page.locator(".toast").count() == 0
    assert row(ana, "Ben").locator(".badge.away").count() == 0


def test_the_host_lets_a_bot_play_for_an_absent_friend_then_removes_them_after_confirming(
    person: Make,
) -> None:
    ana, ben = person("Ana"), person("Ben")
    start_two(ana, ben)
    # Ben is at the table but not playing: the host hands his seat to a bot, by keyboard.
    ana.players()
    let = ana.page.get_by_role("button", name="Let a bot play for Ben")
    let.focus()
    ana.page.keyboard.press("Enter")
    ana.page.get_by_text("Let a bot play for Ben until Ben is back?").wait_for()
    yes = ana.page.get_by_role("button", name="Yes, let a bot play for Ben")
    expect(yes).to_be_focused()
    # Escape takes it back; nothing was sent.
    ana.page.keyboard.press("Escape")
    expect(let).to_be_focused()
    assert row(ana, "Ben").locator(".badge.away").count() == 0
    ana.page.keyboard.press("Enter")
    ana.page.keyboard.press("Enter")
    expect(row(ana, "Ben").locator(".badge.away")).to_be_visible()
    # Ben is told why a bot plays for him; it turns up his two opening cards.
    banner = ben.page.locator(".away-banner")
    expect(banner).to_contain_text("A bot is playing for you")
    expect(banner).to_contain_text("the host let a bot take your turns")
    expect(ben.page.locator(MY_UP_CARDS)).to_have_count(2)
    ben.page.get_by_role("button", name="I'm back").click()
    expect(banner).to_have_count(0)
    covered = ben.page.get_by_role("status").filter(has_text="A bot played 1 move for you.")
    expect(covered).to_be_visible()
    expect(row(ana, "Ben").locator(".badge.online")).to_be_visible()
    # Remove asks too; once confirmed a bot keeps the seat and Ben can only watch.
    ana.page.get_by_role("button", name="Remove Ben").click()
    ana.page.get_by_text("Remove Ben from the game?").wait_for()
    ana.page.get_by_role("button", name="Yes, remove Ben").click()
    ben.page.get_by_text("You are no longer seated in this room.").wait_for()
    expect(row(ana, "Ben").locator(".badge.bot")).to_be_visible()
    assert ana.page.get_by_role("button", name="Remove Ben").count() == 0


def test_the_countdown_shows_on_the_player_to_act_and_moves(person: Make) -> None:
    ana = person("Ana")
    ana.create_room("numberswap")
    # Created without a timer choice: the game's default applies.
    ana.page.locator("details.options summary").click()
    assert ana.page.get_by_label(re.compile("Turn timer")).input_value() == "45"
    ana.click("Add a bot")
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    clock = ana.page.locator(".banner-timer [data-countdown]")
    first = clock.inner_text()
    assert re.fullmatch(r"0:4\d", first), first
    ana.page.wait_for_function(
        "t => document.querySelector('.banner-timer [data-countdown]').textContent !== t",
        arg=first,
        timeout=3_000,
    )
    assert clock.inner_text() < first
    # On Ana's row in the players list, not on the bot's.
    expect(row(ana, "Ana").locator("[data-countdown]")).to_have_count(1)
    expect(row(ana, "Bot 1").locator("[data-countdown]")).to_have_count(0)
    # The host changes the timer during play: off hides the countdown, 30 s restarts it.
    timer = ana.page.get_by_label("Turn timer")
    timer.select_option(label="Off")
    expect(ana.page.locator("[data-countdown]")).to_have_count(0)
    timer.select_option(label="30 s")
    expect(clock).to_have_text(re.compile(r"0:(30|2\d)"))


def test_a_silent_network_is_noticed_by_the_heartbeat_and_the_page_recovers(
    person: Make, served: Served
) -> None:
    ana = person("Ana")
    ana.create_room("numberswap")
    ana.click("Add a bot")
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    status = ana.page.locator("[data-connection]")
    expect(status).to_have_text("Connected")
    # A stopped server keeps its sockets open and says nothing, like a dead network path.
    served.process.pause()
    try:
        expect(status).to_have_text("Connection lost — reconnecting…", timeout=SILENCE_MS + 4_000)
    finally:
        served.process.resume()
    expect(status).to_have_text("Connected", timeout=20_000)
    # The same seat plays on.
    version = ana.version
    play_until([ana], lambda: ana.version > version)


def test_a_move_resent_after_a_bot_played_that_turn_is_refused_in_words(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben")
    links: list[dict[str, object]] = []

    def through(page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()
        link: dict[str, object] = {"cut": False, "server": server_side}

        def up(message: str | bytes) -> None:
            if not link["cut"]:
                server_side.send(message)

        def down(message: str | bytes) -> None:
            if not link["cut"]:
                page_side.send(message)

        def page_closed(code: int | None, reason: str | None) -> None:
            if not link["cut"]:
                server_side.close()

        page_side.on_message(up)
        server_side.on_message(down)
        page_side.on_close(page_closed)
        # Handlers on both closes: neither side's close reaches the other by itself.
        server_side.on_close(lambda code, reason: None)
        links.append(link)

    ana.page.route_web_socket(re.compile(r"/ws/"), through)
    start_two(ana, ben)
    play_until([ana, ben], lambda: starts_a_turn(ana))
    # Ana's network goes quiet: the server sees her leave, her page sees nothing at all.
    cut = links[-1]
    cut["cut"] = True
    cut["server"].close()  # type: ignore[attr-defined]
    ana.page.locator("#app [data-legal=draw]").click()
    # The bot plays her turn after the grace; Ben is next.
    expect(row(ben, "Ana").locator(".badge.away")).to_be_visible(timeout=TAKEOVER_MS)
    ben.page.wait_for_function("() => document.body.dataset.myTurn === 'true'", timeout=TAKEOVER_MS)
    # Her page notices the silence, reconnects and sends the draw again: refused, in words.
    toast = ana.page.locator(".toast[role=alert]")
    expect(toast).to_contain_text("Your move was not made:", timeout=SILENCE_MS + 10_000)
    assert len(links) >= 2
    expect(ana.page.get_by_role("status").filter(has_text=COVERED)).to_be_visible()
    expect(ana.page.locator("[data-connection]")).to_have_text("Connected")
    ana.wait_idle()

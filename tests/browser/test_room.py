"""The room around the game, in a real browser: the home page's checks, the lobby's host
controls, errors in words, reconnecting after a dropped connection, keyboard play, labels."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import WebSocketRoute, expect

from rules.codec import pack, unpack
from tests.browser.pages import Person
from tests.browser.play import wait_for_news

Make = Callable[..., Person]
#: Your own face-up Number Swap cards: in the tray (the phone-first table) or your grid box.
MY_UP_CARDS = ".tray-hand .ns-card.up, .ns-player.mine .ns-card.up"
DASH = "\N{EN DASH}"


def test_home_remembers_the_name_and_checks_what_is_typed(person: Make) -> None:
    ana = person("Ana")
    ana.home()
    ana.page.get_by_role("button", name="Create room").click()
    ana.page.get_by_text("Type your name first").wait_for()
    ana.type_name()
    ana.page.get_by_label("Room code").fill("OOPS")
    ana.page.get_by_role("button", name="Join", exact=True).click()
    ana.page.get_by_text("A room code is five letters and digits").wait_for()
    # Each game shows its summary and seat range; its options come from the schema.
    swap = ana.page.locator(".game-choice", has_text="Number Swap")
    assert swap.get_by_text(f"2{DASH}8 players").count() == 1
    ana.page.locator("details.options summary").click()
    assert ana.page.get_by_label(f"Target Score (10{DASH}1000)").input_value() == "100"
    ana.page.reload()
    ana.wait_screen("home")
    assert ana.page.get_by_label("Your name").input_value() == "Ana"
    ana.open_link("ZZZZZ")
    ana.page.get_by_text("There is no room with this code").wait_for()
    # The browser logs the API's 404 for the missing room; that one is expected.
    ana.errors = [e for e in ana.errors if "404 (Not Found)" not in e]


def test_lobby_host_controls(person: Make) -> None:
    ana, ben, cleo = person("Ana", phone=False), person("Ben"), person("Cleo")
    code = ana.create_room("numberswap")
    ana.page.locator(".qr svg").wait_for()  # the QR code maker is loaded with the room
    assert ana.page.locator(".link-text").inner_text().endswith(f"/r/{code}")
    ben.join_from_link(code)
    ana.wait_seats(2)
    ana.click("Add a bot")
    ana.wait_seats(3)
    # The host picks the bot's level; the guest sees it.
    level = ana.page.get_by_label("Level of Bot 1")
    assert level.input_value() == "normal"
    level.select_option("strong")
    bot = ben.page.locator(".seat", has_text="Bot 1")
    bot.locator(".badge.level", has_text="strong").wait_for()
    assert level.input_value() == "strong"
    ana.page.get_by_role("button", name="Remove Bot 1").click()
    ana.wait_seats(2)
    # Options the host sets reach everyone.
    ana.page.locator("details.options summary").click()
    target = ana.page.get_by_label(f"Target Score (10{DASH}1000)")
    target.fill("50")
    target.dispatch_event("change")
    ben.page.get_by_text("Target Score: 50").wait_for()
    # A locked room lets nobody new in; they may watch.
    ana.page.get_by_label("Lock the room").check()
    ana.page.get_by_text("The room is locked").wait_for()
    cleo.open_link(code)
    cleo.wait_screen("entry")
    cleo.page.get_by_text("The host has locked this room").wait_for()
    assert cleo.page.get_by_role("button", name="Take a seat").count() == 0
    # The host hands over; the new host may remove the old one.
    ana.page.get_by_role("button", name="Make Ben the host").click()
    ben.page.get_by_text("You are the host").wait_for()
    ana.page.get_by_text("Waiting for Ben to start the game.").wait_for()
    ben.page.get_by_role("button", name="Kick Ana").click()
    ana.page.get_by_text("You are no longer seated in this room.").wait_for()
    ben.wait_seats(1)


def test_server_errors_are_shown_in_words(person: Make) -> None:
    ana = person("Ana")
    ana.create_room("numberswap")
    # The chat allows a burst of five, then one a second: twelve in a row are too many.
    for i in range(12):
        ana.chat(f"message {i}")
    alert = ana.page.locator(".toast[role=alert]")
    alert.wait_for()
    assert "chatting too fast" in alert.inner_text()
    ana.page.get_by_role("button", name="Dismiss the message").click()
    alert.wait_for(state="detached")


def test_reconnects_after_a_dropped_connection(person: Make) -> None:
    ana = person("Ana")
    sockets: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    ana.page.route_web_socket(re.compile(r"/ws/"), through)
    ana.create_room("numberswap", {"target_score": 10})
    ana.click("Add a bot")
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    seat = ana.seat
    ana.step("numberswap")  # choose a first card (local only)
    sockets[-1].close(code=4000, reason="network went away")
    status = ana.page.locator("[data-connection]")
    status.and_(ana.page.locator("[data-connection=reconnecting]")).wait_for()
    status.and_(ana.page.locator("[data-connection=open]")).wait_for()
    assert len(sockets) == 2 and ana.seat == seat
    # Still playing the same seat: finish the opening flip.
    while ana.page.locator(MY_UP_CARDS).count() < 2:
        versions = [ana.version]
        if not ana.step("numberswap"):
            wait_for_news([ana], versions)


def test_keyboard_only_opening_flip_keeps_focus(person: Make) -> None:
    ana = person("Ana", phone=False)
    ana.create_room("numberswap", {"target_score": 10})
    ana.click("Add a bot")
    ana.wait_seats(2)
    ana.page.get_by_role("button", name="Start the game").focus()
    ana.page.keyboard.press("Enter")
    ana.wait_screen("table")
    first = ana.page.locator("[data-legal=cell]").first
    first.focus()
    ana.page.keyboard.press("Enter")
    # The page was redrawn; the focus stayed on the chosen card.
    assert ana.page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"
    ana.page.keyboard.press("Tab")
    ana.page.keyboard.press("Space")
    # Wait for the flip itself: the bot's own opening flips also move the version.
    expect(ana.page.locator(MY_UP_CARDS)).to_have_count(2)


def test_every_control_has_a_name(person: Make) -> None:
    ana = person("Ana")
    ana.create_room("numberswap")
    ana.click("Add a bot")
    ana.wait_seats(2)
    for screen in ("lobby", "table"):
        if screen == "table":
            ana.click("Start the game")
            ana.wait_screen("table")
        unnamed = ana.page.evaluate(
            """() => [...document.querySelectorAll('button, input, select, a')]
                .filter(el => !(el.getAttribute('aria-label') || el.textContent.trim()
                    || (el.labels && el.labels.length) || el.getAttribute('placeholder')))
                .map(el => el.outerHTML.slice(0, 80))"""
        )
        assert unnamed == [], f"{screen}: {unnamed}"


def test_a_refused_sync_is_not_chased_with_another(person: Make) -> None:
    """While the store is down a sync is answered ``unavailable``; the page used to answer
    every ``unavailable`` with a sync, so the two chased each other as fast as they could (and
    the server would soon close the connection for flooding)."""
    ana = person("Ana")
    sent: list[str] = []
    routes: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if isinstance(message, bytes):
                sent.append(unpack(message)["type"])
            server.send(message)

        ws.on_message(to_server)
        routes.append(ws)

    ana.page.route_web_socket(re.compile(r"/ws/"), through)
    ana.create_room("numberswap")
    outage = {"type": "error", "code": "unavailable", "message": "The room store is unavailable"}
    routes[-1].send(pack(outage))
    ana.page.locator(".toast[role=alert]").wait_for()
    ana.chat("after the outage")
    ana.wait_chat("after the outage")
    assert "sync" not in sent[sent.index("join") :], sent


def test_an_entry_met_by_an_outage_is_retried_after_the_join_timeout(person: Make) -> None:
    """The first entry is answered ``unavailable`` (as during a store outage), and the
    connection then closed as the server's join timeout closes it: the page reconnects and
    enters again."""
    ana = person("Ana")
    routes: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:
        routes.append(ws)
        if len(routes) > 1:
            ws.connect_to_server()
            return

        def refuse(message: str | bytes) -> None:
            assert isinstance(message, bytes) and unpack(message)["type"] == "join"
            outage = {"type": "error", "code": "unavailable", "message": "The store is down"}
            timeout = {"type": "error", "code": "join_timeout", "message": "Enter in time"}
            ws.send(pack(outage))
            ws.send(pack(timeout))
            ws.close(code=1013, reason="no join in time")

        ws.on_message(refuse)

    ana.page.route_web_socket(re.compile(r"/ws/"), through)
    ana.create_room("numberswap")
    ana.wait_seats(1)
    assert len(routes) == 2 and ana.seat == 0

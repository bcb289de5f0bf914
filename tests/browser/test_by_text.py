"""Playing by text (issue 30), in a real browser: a turn-based room is created as one and says
so; after your move the page offers "Send to Ben" (Messages with the room link when a number is
saved for Ben, else the share sheet, else the copied link), and the numbers never leave the
browser; the home page lists your games with whose turn it is, and the tab title counts yours;
Number Swap's blind flips are seen by both players at a round's end; and a seat moves to another
device by its one-time link or code, the old page saying so.

Ana plays on a phone, Ben on a desktop, each in a browser of their own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from playwright.sync_api import Locator, WebSocket, expect

from rules.codec import unpack
from tests.browser.contrast import CONTRAST_JS
from tests.browser.pages import Person
from tests.browser.play import play_until

Make = Callable[..., Person]
NUMBER = "+1 555 123 4567"


def _to_act(person: Person) -> list[int]:
    """The seats the person's page says are to act."""
    seats: list[int] = json.loads(person.facts().get("toAct") or "[]")
    return seats


def _start(ana: Person, ben: Person, game: str, options: dict[str, Any] | None = None) -> str:
    """Ana creates a turn-based room of ``game``, Ben joins it, Ana starts; returns the code."""
    code = ana.create_room(game, options, by_text=True)
    expect(ana.page.locator(".mode-line")).to_have_text("By text · no turn timer")
    ben.join_by_code(code)
    ana.wait_seats(2)
    ana.click("Start the game")
    ana.wait_screen("table")
    ben.wait_screen("table")
    return code


def _move_until_turn_of(mover: Person, game: str, seat: int) -> None:
    """``mover`` plays (every move of theirs in a row) until it is ``seat``'s turn."""
    # Their turn first (a page just opened may not have drawn the game's table yet).
    expect(mover.page.locator("body")).to_have_attribute("data-my-turn", "true")
    play_until(game, [mover], lambda: _to_act(mover) == [seat])


def _log(person: Person) -> Locator:
    """The game log's lines (a sheet on a phone: opened)."""
    person.open_sheet("log")
    return person.page.locator("[data-panel=log] .game-log li")


def _readable(person: Person, selector: str) -> None:
    """Every text in ``selector`` meets WCAG AA contrast (4.5:1; 3:1 for large text)."""
    texts = person.page.evaluate(CONTRAST_JS, selector)
    assert texts, selector
    poor = [t for t in texts if t["ratio"] < (3 if t["px"] >= 24 else 4.5)]
    assert not poor, poor


def _record_frames(person: Person, sent: list[bytes], received: list[dict[str, Any]]) -> None:
    """Keep every WebSocket frame the person's page sends (raw) and receives (decoded)."""

    def watch(ws: WebSocket) -> None:
        ws.on(
            "framesent",
            lambda data: sent.append(data if isinstance(data, bytes) else data.encode()),
        )
        ws.on(
            "framereceived",
            lambda data: received.append(unpack(data)) if isinstance(data, bytes) else None,
        )

    person.page.on("websocket", watch)


# -- the room and sending the turn on --------------------------------------------------------------


def test_send_to_the_next_player_by_messages_share_or_copied_link(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    ana.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    code = ana.create_room("floor", by_text=True)
    link = f"{ana.url}/r/{code}"
    expect(ana.page.locator(".mode-line")).to_have_text("By text · no turn timer")
    ben.join_by_code(code)
    ana.wait_seats(2)
    # The host chooses a turn timer in hours and days; everyone reads it.
    ana.page.get_by_label("Turn timer").select_option(label="1 day")
    expect(ben.page.locator(".mode-line")).to_have_text("By text · 1 day per turn")
    ana.click("Start the game")
    ben.wait_screen("table")
    # Floor's first player is seat 1, Ana: before her move nobody is offered a Send.
    assert _to_act(ana) == [0]
    expect(ana.page.locator("[data-send]")).to_have_count(0)
    _move_until_turn_of(ana, "floor", 1)
    send = ana.page.get_by_role("button", name="Send to Ben", exact=True)
    expect(send).to_be_visible()
    expect(ben.page.locator("[data-send]")).to_have_count(0)
    _readable(ana, "#app .send-bar, #app .send-bar *")
    # No share sheet in this browser (Chromium on Linux has none): the room link is copied.
    assert ana.page.evaluate("typeof navigator.share") == "undefined"
    send.click()
    expect(ana.page.locator("[data-send]")).to_have_text("Link copied")
    assert ana.page.evaluate("navigator.clipboard.readText()") == link

    # A browser with a share sheet shares the room link (here one that records what it got).
    ana.page.context.add_init_script(
        "window.__shared = []; navigator.share = (data) => { __shared.push(data); "
        "return Promise.resolve(); };"
    )
    sent: list[bytes] = []
    requests: list[str] = []
    _record_frames(ana, sent, [])
    ana.page.on("request", lambda r: requests.append(f"{r.url} {r.post_data or ''}"))
    ana.page.reload()
    ana.wait_screen("table")
    # After the reload the page knows from the game's history that the last move was hers.
    ana.page.get_by_role("button", name="Send to Ben", exact=True).click()
    ana.page.wait_for_function("() => window.__shared.length === 1")
    shared = ana.page.evaluate("window.__shared[0]")
    assert shared["url"] == link
    assert shared["text"] == "Ben, your turn in Floor on Parlor"

    # With Ben's number saved, Send opens Messages with the room link in the text.
    ana.page.get_by_role("button", name="Add Ben's number").click()
    sheet = ana.page.get_by_role("dialog", name="Ben's phone number")
    expect(sheet).to_contain_text("Numbers stay on this device; Parlor never sees them.")
    _readable(ana, "[data-panel=phone] *")
    sheet.get_by_label("Ben's number").fill(NUMBER)
    sheet.get_by_role("button", name="Save").click()
    expect(sheet).to_have_count(0)
    sms = ana.page.get_by_role("link", name="Send to Ben", exact=True)
    href = sms.get_attribute("href") or ""
    assert href.startswith("sms:+15551234567?&body="), href
    assert unquote(href.split("&body=", 1)[1]) == f"Ben, your turn in Floor on Parlor: {link}"
    # Kept in this browser only, by name, across reloads; never sent to the server.
    assert ana.page.evaluate("JSON.parse(localStorage.getItem('parlor.phones'))") == {
        "ben": "+15551234567"
    }
    ana.page.reload()
    ana.wait_screen("table")
    expect(ana.page.get_by_role("link", name="Send to Ben", exact=True)).to_have_attribute(
        "href", href
    )
    assert sent, "the page talked to the server"
    assert not [f for f in sent if b"5551234567" in f or b"555 123" in f]
    assert not [r for r in requests if "5551234567" in r or "555%20123" in r or "555 123" in r]
    # The number can be removed: Send shares again.
    ana.page.get_by_role("button", name="Ben's number").click()
    ana.page.get_by_role("button", name="Remove Ben's number").click()
    expect(ana.page.get_by_role("button", name="Send to Ben", exact=True)).to_be_visible()
    assert ana.page.evaluate("localStorage.getItem('parlor.phones')") is None


# -- your games ------------------------------------------------------------------------------------


def test_your_games_show_whose_turn_and_open_the_game(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = _start(ana, ben, "floor")
    # Ben closes his page; Ana moves later.
    ben.close_tab()
    _move_until_turn_of(ana, "floor", 1)
    # Ana's home page (another tab) has the game as Ben's turn; no badge in her title.
    ana.new_tab()
    ana.home()
    mine = ana.page.locator(f"[data-held-seats] li[data-room='{code}']")
    expect(mine.locator(".held-turn")).to_have_text("Ben's turn")
    expect(mine).to_contain_text("with Ben")
    expect(ana.page).to_have_title("Parlor")
    # Ben opens the home page: his turn, first, with the badge in the title.
    ben.new_tab()
    ben.home()
    his = ben.page.locator("[data-held-seats] li").first
    expect(his).to_have_attribute("data-room", code)
    expect(his.locator(".held-turn")).to_have_text("Your turn")
    expect(his).to_contain_text("Floor")
    expect(his).to_contain_text("with Ana")
    expect(his).to_contain_text(re.compile(r"last move (just now|\d+ min ago)"))
    expect(ben.page).to_have_title("(1) Your turn · Parlor")
    _readable(ben, "[data-held-seats] *")
    ben.page.get_by_role(
        "button", name=re.compile(f"^Return to your game: Floor, room {code}")
    ).click()
    ben.wait_screen("table")
    assert ben.seat == 1
    expect(ben.page).to_have_title("Your turn · Parlor")
    # He plays his move; it is Ana's turn again, and he may send it on.
    _move_until_turn_of(ben, "floor", 0)
    expect(ben.page.get_by_role("button", name="Send to Ana", exact=True)).to_be_visible()
    expect(ben.page).to_have_title(f"Room {code} · Parlor")
    ana.page.reload()
    ana.wait_screen("home")
    expect(mine.locator(".held-turn")).to_have_text("Your turn")
    expect(ana.page).to_have_title("(1) Your turn · Parlor")


# -- Number Swap by text ---------------------------------------------------------------------------


def _events(received: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The events of type ``kind`` in the state messages a page received, in order."""
    return [
        {**event, "by_seat": entry.get("seat")}
        for msg in received
        if msg.get("type") == "state"
        for entry in msg.get("events") or []
        for event in entry.get("events") or []
        if event.get("type") == kind
    ]


def _numeral(value: int) -> str:
    return f"\N{MINUS SIGN}{-value}" if value < 0 else str(value)


def test_number_swap_by_text_shows_the_blind_picks_turned_up_at_the_new_round(
    person: Make,
) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    got: dict[str, list[dict[str, Any]]] = {"Ana": [], "Ben": []}
    for someone in (ana, ben):
        _record_frames(someone, [], got[someone.name])
    # A target no first round reaches: the game goes on to round 2.
    _start(ana, ben, "numberswap", {"target_score": 1000})
    players = [ana, ben]
    new_round = ".ns-last-round"
    play_until(
        "numberswap",
        players,
        lambda: all(p.page.locator(new_round).count() for p in players),
        limit_s=180,
    )
    # Exactly one blind pick in round 1 (the round's ender has no last turn), seen by both.
    picks = _events(got["Ana"], "picked")
    assert len(picks) == 1, picks
    picker = picks[0]["seat"]
    positions = picks[0]["positions"]
    name = ["Ana", "Ben"][picker]
    for someone in players:
        expect(_log(someone).filter(has_text=f"{name} picked 2 cards to turn up")).to_have_count(1)
        someone.close_sheet()
        expect(someone.page.locator(new_round)).to_contain_text("Round 1:")
    # At the new round those two positions were turned up, for everyone, with the cards dealt.
    turned = [e for e in _events(got["Ben"], "flipped_picked") if e["seat"] == picker]
    assert turned and turned[0]["positions"] == positions, turned
    cards = turned[0]["cards"]
    assert _events(got["Ana"], "flipped_picked")[0] == _events(got["Ben"], "flipped_picked")[0]
    owner = players[picker]
    other = players[1 - picker]
    for pos, card in zip(positions, cards, strict=True):
        cell = owner.page.locator(f".ns-player.mine [data-pos='{pos}']")
        expect(cell).to_have_attribute("data-up", "")
        expect(cell).to_have_text(re.compile(f"^{re.escape(_numeral(card))}"))
        mini = other.page.locator(".table-strip .strip-seat", has_text=name).locator(
            ".ns-grid.mini > span"
        )
        expect(mini.nth(pos)).to_have_text(_numeral(card))


def _caught_up(someone: Person, other: Person) -> None:
    """``someone``'s page has every change that ``other``'s page has."""
    someone.wait_version_above(other.version - 1)


def _flip_two(someone: Person) -> None:
    """Round 1's opening flips (the first two face-down cards), waited for until applied."""
    version = someone.version
    cells = someone.page.locator("#app .tray-hand [data-legal=cell]")
    cells.first.click()
    cells.first.click()
    someone.wait_version_above(version)


def test_send_shows_after_a_number_swap_move_that_can_still_be_undone(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    _start(ana, ben, "numberswap", {"target_score": 1000})
    _flip_two(ana)
    _caught_up(ben, ana)
    _flip_two(ben)
    _caught_up(ana, ben)
    # Both have flipped: the turn starts (whose, the cards showing say: R3).
    starter = _to_act(ben)
    assert len(starter) == 1 and _to_act(ana) == starter, (starter, _to_act(ana))
    if starter == [1]:
        # Ben starts: a move that cannot be undone (the draw shows a card), then it is Ana's.
        ben.page.locator("#app [data-legal=draw]").click()
        ben.page.get_by_role("button", name="Discard, turn one up").click()
        ben.page.locator("#app .tray-hand [data-legal=cell]").first.click()
    expect(ana.page.locator("body")).to_have_attribute("data-my-turn", "true")
    # Ana takes the discard onto a face-up card: it reveals nothing, so her undo stays open.
    ana.page.locator("#app [data-legal=take]").click()
    ana.page.locator("#app .tray-hand [data-legal=cell][data-up]").first.click()
    undo = ana.page.get_by_role("button", name="Undo my last move")
    expect(undo).to_be_visible()
    # The game's to_act still holds her (she may undo), but the game waits for Ben: she may
    # send him the turn now, without waiting for her undo to close.
    assert _to_act(ana) == [0, 1]
    expect(ana.page.get_by_role("button", name="Send to Ben", exact=True)).to_be_visible()
    expect(ben.page.locator("[data-send]")).to_have_count(0)
    # Ben plays on (in his own browser): the undo closes, and it is Ana's turn again.
    expect(ben.page.locator("body")).to_have_attribute("data-my-turn", "true")
    ben.page.locator("#app [data-legal=draw]").click()
    ben.page.locator("#app .tray-hand [data-legal=cell]").first.click()
    expect(ana.page.locator("body")).to_have_attribute("data-my-turn", "true")
    expect(undo).to_have_count(0)
    expect(ana.page.locator("[data-send]")).to_have_count(0)
    expect(ben.page.get_by_role("button", name="Send to Ana", exact=True)).to_be_visible()


# -- moving a seat to another device ---------------------------------------------------------------


def test_a_seat_moves_to_another_device_by_its_link_or_its_code(person: Make) -> None:
    ana, ben = person("Ana"), person("Ben", phone=False)
    code = _start(ana, ben, "floor")
    ana.open_sheet("players")
    ana.page.get_by_role("button", name="Play on another device").click()
    shown = ana.page.locator("[data-handoff-code]")
    expect(shown).to_contain_text("It works once, within 15 minutes")
    handoff = shown.get_attribute("data-handoff-code") or ""
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}", handoff), handoff
    link = ana.page.locator("[data-handoff-link]").get_attribute("href")
    assert link == f"{ana.url}/r/{code}#claim={handoff}"
    _readable(ana, "[data-handoff-code], [data-handoff-code] *, .mode-line")
    # Her laptop (a browser of its own) opens the link: the seat is there, the code gone from
    # the address; the phone's page says where the seat went.
    laptop = person("Ana", phone=False)
    laptop.page.goto(link)
    laptop.wait_screen("table")
    assert laptop.seat == 0
    assert laptop.page.url == f"{ana.url}/r/{code}"
    expect(ana.page.get_by_text("You moved this seat to another device.")).to_be_visible()
    # The laptop plays Ana's move; Ben's turn comes.
    _move_until_turn_of(laptop, "floor", 1)
    expect(ben.page.locator("body")).to_have_attribute("data-my-turn", "true")
    # The phone's home page forgets the room (its token holds no seat any more).
    ana.home()
    ana.page.wait_for_function(f"() => localStorage.getItem('parlor.token.{code}') === null")
    expect(ana.page.locator("[data-held-seats]")).to_have_count(0)
    # A used code moves nothing.
    cleo = person("Cleo")
    cleo.page.goto(link)
    expect(cleo.page.get_by_text("That code does not move a seat here")).to_be_visible()
    cleo.errors = [e for e in cleo.errors if "403 (Forbidden)" not in e]
    # The laptop moves the seat on again; the phone types the room code and the code by hand.
    laptop.page.get_by_role("button", name="Play on another device").click()
    again = laptop.page.locator("[data-handoff-code]")
    expect(again).to_be_visible()
    second = again.get_attribute("data-handoff-code") or ""
    assert second != handoff
    ana.page.get_by_text("Have a code from another device?").click()
    ana.page.get_by_label("Room", exact=True).fill(code.lower())
    ana.page.get_by_label("Code from the other device").fill(second.replace("-", " ").lower())
    ana.page.get_by_role("button", name="Move my seat here").click()
    ana.wait_screen("table")
    assert ana.seat == 0
    expect(laptop.page.get_by_text("You moved this seat to another device.")).to_be_visible()

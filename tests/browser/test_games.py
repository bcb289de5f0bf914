"""Whole games in a real browser: two people (a phone and a desktop) and a bot, and a spectator.

Each test creates a room on the home page, lets the second person in by code or by link, plays a
complete game by clicking the controls the page highlights, reloads one page mid-game (the same
seat carries on), and checks what the spectator saw.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.browser.pages import Person
from tests.browser.play import play_to_the_end, results_shots, screenshot_dir, wait_for_news

Make = Callable[..., Person]


def _reload(person: Person) -> Callable[[], None]:
    def reload() -> None:
        seat = person.seat
        person.page.reload()
        person.wait_screen("table")
        person.page.wait_for_function("s => document.body.dataset.you === s", arg=str(seat))

    return reload


def _shots(game: str, tmp_path: Path, phone: Person, desktop: Person) -> dict[str, Path]:
    folder = screenshot_dir(tmp_path)
    return {phone.name: folder / f"{game}-phone.png", desktop.name: folder / f"{game}-desktop.png"}


def _start(host: Person, *others: Person) -> None:
    host.click("Start the game")
    for person in (host, *others):
        person.wait_screen("table")
        # The game log opens with the deal, in plain words.
        sealed = person.page.locator("[data-panel=log] li", has_text="Cards dealt.")
        sealed.first.wait_for(state="attached")


def _check_results(players: list[Person], spectator: Person) -> None:
    for someone in players:
        # Each player's page checked the revealed seeds, its own value and every view it was
        # shown against the record (docs/fairplay.md).
        someone.page.locator("[data-deal-check=ok]").wait_for()
    # A spectator's page contributed nothing: it cannot tell the deal was not steered, and
    # says so rather than "verified".
    watched = spectator.page.locator("[data-deal-check=unchecked]")
    watched.wait_for()
    assert "you watched" in watched.inner_text()
    tables = [p.results() for p in players]
    assert all(t == tables[0] for t in tables), "everyone sees the same standings"
    assert spectator.results() == tables[0]
    assert len(tables[0]) == 3
    assert sorted(row[1] for row in tables[0]) == ["Ana", "Ben", "Bot 1"]


def _take_back_a_move(ana: Person, ben: Person) -> None:
    """Number Swap's undo: Ana takes the discard onto a face-up card, then takes it back."""
    while not (ana.my_turn() and ana.page.locator("[data-legal=take]").count()):
        versions = [ana.version, ben.version]
        if not ben.step("numberswap") and not ana.step("numberswap"):
            wait_for_news([ana, ben], versions)
    top = ana.page.locator(".ns-pile.discard .ns-value").inner_text()
    ana.page.locator("[data-legal=take]").click()
    ana.page.locator("#app [data-legal=cell][data-up]").first.click()
    undo = ana.page.get_by_role("button", name="Undo my last move")
    undo.wait_for()
    assert (
        ana.page.locator(".turn-banner")
        .inner_text()
        .endswith("You may take back your last move until the next player moves.")
    )
    undo.click()
    ana.page.locator("[data-legal=take]").wait_for()
    assert ana.page.locator(".ns-pile.discard .ns-value").inner_text() == top
    assert ana.my_turn()


def test_number_swap_with_a_friend_a_bot_and_a_spectator(person: Make, tmp_path: Path) -> None:
    ana, ben, cleo = person("Ana"), person("Ben", phone=False), person("Cleo")
    code = ana.create_room("numberswap", {"target_score": 10})
    ben.join_by_code(code)
    ana.wait_seats(2)
    assert ana.page.locator(".seat", has_text="Ben").locator(".badge.online").count() == 1
    ana.click("Add a bot")
    ana.wait_seats(3)
    ben.wait_seats(3)
    assert ana.seat_names() == ["Ana", "Ben", "Bot 1"]
    cleo.watch(code)
    assert cleo.page.get_by_text("You are watching.").is_visible()
    ben.chat("hello from Ben")
    ana.wait_chat("Ben: hello from Ben")
    cleo.wait_chat("Ben: hello from Ben")
    _start(ana, ben, cleo)
    assert cleo.page.locator(".spectating").is_visible()
    _take_back_a_move(ana, ben)
    clicks = play_to_the_end(
        "numberswap",
        [ana, ben],
        at_step={6: _reload(ben)},
        shoot=_shots("numberswap", tmp_path, ana, ben),
        shoot_results=results_shots("numberswap", tmp_path, ana, ben),
    )
    assert clicks > 6
    _check_results([ana, ben], cleo)
    assert cleo.page.locator(".ns-summary").is_visible(), "round summary with the scores"
    # The host starts a rematch with the same seats.
    version = ben.version
    ana.page.locator("[data-rematch]").click()
    ben.wait_version_above(version)
    ben.page.wait_for_function("() => document.body.dataset.over === 'false'")
    assert ben.page.locator(".ns-table").is_visible()


def test_warp99_joined_by_link_with_a_reload(person: Make, tmp_path: Path) -> None:
    ana, ben, cleo = person("Ana"), person("Ben", phone=False), person("Cleo", phone=False)
    code = ana.create_room("warp99")
    ben.join_from_link(code)
    ana.click("Add a bot")
    ana.wait_seats(3)
    _start(ana, ben)
    # Someone who opens the link once the game runs can only watch.
    cleo.open_link(code)
    cleo.wait_screen("entry")
    assert cleo.page.get_by_text("The game has already started").is_visible()
    cleo.page.get_by_role("button", name="Just watch").click()
    cleo.wait_screen("table")
    play_to_the_end(
        "warp99",
        [ana, ben],
        at_step={10: _reload(ana)},
        shoot=_shots("warp99", tmp_path, ana, ben),
        shoot_results=results_shots("warp99", tmp_path, ana, ben),
        shoot_after=12,
    )
    _check_results([ana, ben], cleo)
    # Ana saw the commitment before the deal (docs/fairplay.md).
    assert ana.page.locator("[data-deal-check=ok]").get_attribute("data-deal-prior") == "seen"


def test_floor_with_a_friend_and_a_bot(person: Make, tmp_path: Path) -> None:
    ana, ben, cleo = person("Ana"), person("Ben", phone=False), person("Cleo")
    code = ana.create_room("floor")
    ben.join_by_code(code)
    ana.click("Add a bot")
    ana.wait_seats(3)
    cleo.watch(code)
    _start(ana, ben, cleo)
    play_to_the_end(
        "floor",
        [ana, ben],
        at_step={4: _reload(ben)},
        shoot=_shots("floor", tmp_path, ana, ben),
        shoot_results=results_shots("floor", tmp_path, ana, ben),
        shoot_after=3,
    )
    _check_results([ana, ben], cleo)

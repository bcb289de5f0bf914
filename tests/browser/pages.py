"""A person at a browser: what they click on Parlor's pages, and what they wait to see.

Every wait is for page state (the facts the client writes on ``<body data-…>``: screen, version,
my-turn, busy, over) with a timeout; nothing sleeps.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import ConsoleMessage, Error, Locator, Page

#: What a player clicks first when it is their turn, per game: the first control of the first
#: selector that matches. Moves that make progress come first, so every game ends.
PREFERENCES: dict[str, tuple[str, ...]] = {
    # Face-down cards first (the round must end), drawing rather than taking the discard; at a
    # round end, the one move is Next round.
    "numberswap": (
        "[data-legal=next]",
        "[data-legal=cell]:not([data-up])",
        "[data-legal=draw]",
        "[data-legal=take]",
        "[data-legal=cell]",
    ),
    "warp99": (
        "[data-legal=move]",
        "[data-legal=card]",
        "[data-legal=score]",
        "[data-legal=flip]",
        "[data-legal=end]",
    ),
    "floor": ("[data-legal=move]", "[data-legal=card]", "[data-legal=general]"),
}


class Person:
    def __init__(self, name: str, page: Page, url: str) -> None:
        self.name = name
        self.page = page
        self.url = url
        self.errors: list[str] = []
        self._listen(page)

    def _listen(self, page: Page) -> None:
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    # -- facts the page states ---------------------------------------------------------------

    def facts(self) -> dict[str, str]:
        facts: dict[str, str] = self.page.evaluate("() => ({...document.body.dataset})")
        return facts

    @property
    def version(self) -> int:
        return int(self.facts().get("version") or 0)

    @property
    def seat(self) -> int | None:
        you = self.facts().get("you", "")
        return int(you) if you else None

    def my_turn(self) -> bool:
        facts = self.facts()
        return facts.get("myTurn") == "true" and facts.get("busy") != "true"

    def over(self) -> bool:
        return self.facts().get("over") == "true"

    def wait_screen(self, screen: str) -> None:
        self.page.wait_for_function("s => document.body.dataset.screen === s", arg=screen)

    def wait_version_above(self, version: int, timeout: float = 20_000) -> None:
        self.page.wait_for_function(
            "v => Number(document.body.dataset.version || 0) > v", arg=version, timeout=timeout
        )

    def wait_idle(self) -> None:
        self.page.wait_for_function("() => document.body.dataset.busy !== 'true'")

    # -- home and lobby ---------------------------------------------------------------------

    def home(self) -> None:
        self.page.goto("/")
        self.wait_screen("home")
        self.page.wait_for_selector(".game-choice")

    def type_name(self) -> None:
        self.page.get_by_label("Your name").fill(self.name)

    def create_room(
        self, game: str, options: dict[str, Any] | None = None, *, by_text: bool = False
    ) -> str:
        """Create a room of ``game`` (live, or turn-based with ``by_text``) and wait for its lobby;
        returns its code."""
        self.home()
        self.type_name()
        self.page.locator(f"input[name=game][value={game}]").check()
        if by_text:
            self.page.get_by_label("By text (take turns over days)").check()
        for name, value in (options or {}).items():
            self.page.locator("details.options summary").click()
            field = self.page.locator(f"#opt-{name}")
            if isinstance(value, bool):
                field.set_checked(value)
            else:
                field.fill(str(value))
                field.dispatch_event("change")
        self.page.get_by_role("button", name="Create room").click()
        self.wait_screen("lobby")
        code = self.page.locator(".room-code").inner_text().strip()
        assert re.fullmatch(r"[A-Z2-9]{5}", code), code
        return code

    def join_by_code(self, code: str) -> None:
        self.home()
        self.type_name()
        self.page.get_by_label("Room code").fill(code.lower())
        self.page.get_by_role("button", name="Join", exact=True).click()
        self.wait_screen("lobby")

    def open_link(self, code: str) -> None:
        self.page.goto(f"/r/{code}")

    def close_tab(self) -> None:
        """Close the page; the browser (and what it remembers) stays."""
        self.page.close()

    def new_tab(self) -> None:
        """A new tab in the same browser (what it remembers stays), not opened anywhere yet."""
        self.page = self.page.context.new_page()
        self._listen(self.page)

    def reopen(self, code: str) -> None:
        """A new tab in the same browser, at the room's link."""
        self.new_tab()
        self.open_link(code)

    def join_from_link(self, code: str) -> None:
        self.open_link(code)
        self.wait_screen("entry")
        self.page.get_by_label("Your name").fill(self.name)
        self.page.get_by_role("button", name="Take a seat").click()
        self.wait_screen("lobby")

    def watch(self, code: str) -> None:
        self.open_link(code)
        self.wait_screen("entry")
        self.page.get_by_role("button", name="Just watch").click()
        self.page.wait_for_function("() => document.body.dataset.version !== '0'")

    def seat_names(self) -> list[str]:
        names: list[str] = self.page.locator(".seat .seat-name").all_inner_texts()
        return names

    def wait_seats(self, count: int) -> None:
        self.page.wait_for_function(
            "n => document.querySelectorAll('.seat').length === n", arg=count
        )

    # -- the table's side things: a column on a desktop, sheets on a portrait phone ------------

    def wide(self) -> bool:
        """Whether the side things have a column of their own (no sheets)."""
        return not self.page.locator(".side-bar").is_visible()

    def open_sheet(self, name: str) -> None:
        """Open the players/chat/log/invite sheet on a phone (a desktop shows them all)."""
        if self.page.locator(f'.table-layout[data-sheet="{name}"]').count() or self.wide():
            return
        self.page.locator(f'.side-bar [data-key="open-{name}"]').click()
        self.page.locator(f'.table-layout[data-sheet="{name}"]').wait_for()

    def close_sheet(self) -> None:
        sheet = self.page.locator(".table-layout[data-sheet] .table-side .sheet-close:visible")
        if sheet.count():
            sheet.first.click()
            self.page.locator(".table-layout[data-sheet]").wait_for(state="detached")

    def players(self) -> Locator:
        """The players list (with the host's seat actions), opened if it is a sheet."""
        self.open_sheet("players")
        return self.page.locator(".player-list")

    def click(self, name: str) -> None:
        self.page.get_by_role("button", name=name, exact=True).click()

    def chat(self, text: str) -> None:
        self.page.get_by_role("textbox", name="Message").fill(text)
        self.page.get_by_role("button", name="Send").click()

    def wait_chat(self, text: str) -> None:
        self.page.locator(".chat-log", has_text=text).wait_for()

    # -- playing ------------------------------------------------------------------------------

    def step(self, game: str) -> bool:
        """When it is my turn, click the first preferred legal control; False if not my turn."""
        if not self.my_turn():
            return False
        self.close_sheet()  # a sheet over the table would take the click
        for selector in PREFERENCES[game]:
            control = self.page.locator(f"#app {selector}:not([disabled])").first
            if control.count():
                try:
                    control.click(timeout=5_000)
                except Error:
                    # The view changed under the click (a bot moved); look again.
                    return True
                self.wait_idle()
                return True
        raise AssertionError(f"{self.name}: my turn, but no legal control: {self.facts()}")

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path), full_page=True)

    def results(self) -> list[list[str]]:
        self.page.locator("[data-results] table").wait_for()
        rows = self.page.locator("[data-results] tbody tr")
        # Rows of (place, player, score); "(you)" differs from page to page.
        return [
            [cell.removesuffix(" (you)") for cell in row.locator("th, td").all_inner_texts()]
            for row in rows.all()
        ]

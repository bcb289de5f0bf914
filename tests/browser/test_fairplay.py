"""The browser's check of a sealed deal (client-web/js/fairplay.js, docs/fairplay.md) computes
what the server computes, with Web Crypto and with the plain SHA-256 it falls back on where a
page has no ``crypto.subtle`` (plain http on a LAN address)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import re
import secrets
from collections.abc import Callable, Iterator
from typing import Any

from playwright.sync_api import WebSocketRoute, expect
from websockets.sync.client import connect

from rules.codec import pack, unpack
from server.fairplay import records
from tests.browser.pages import Person
from tests.browser.recorded import Host

Make = Callable[..., Person]


def test_the_plain_sha256_agrees_with_web_crypto_and_python_at_every_length(person: Make) -> None:
    ana = person("Ana")
    ana.page.goto("/")
    rnd = random.Random(17)
    inputs = [bytes(rnd.randrange(256) for _ in range(n)) for n in (*range(0, 130), 1000, 4096)]
    got = ana.page.evaluate(
        """async (inputs) => {
          const main = document.querySelector('script[type=module]').src;
          const fp = await import(main.replace(/main\\.js$/, 'fairplay.js'));
          const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
          const out = [];
          for (const list of inputs) {
            const bytes = new Uint8Array(list);
            out.push([hex(fp.sha256Plain(bytes)), await fp.sha256Hex(bytes)]);
          }
          return out;
        }""",
        [list(data) for data in inputs],
    )
    for data, (plain, subtle) in zip(inputs, got, strict=True):
        assert plain == subtle == hashlib.sha256(data).hexdigest(), len(data)


_FAIRPLAY = """async (args) => {
  const main = document.querySelector('script[type=module]').src;
  const fp = await import(main.replace(/main\\.js$/, 'fairplay.js'));
  return await (%s)(fp, args);
}"""


def _in_page(person: Person, body: str, args: Any) -> Any:
    """Run ``body`` — ``async (fp, args) => …`` with client-web/js/fairplay.js as ``fp`` — in
    the page, and return what it resolves to."""
    return person.page.evaluate(_FAIRPLAY % body, args)


_CHECK = """async (fp, [deal, saw]) => await fp.checkDeal(deal, saw)"""


def _hash(value: str) -> str:
    return records.contribution_commitment(value)


def _deal(server_seed: str, commitments: list[str], values: list[str], room: str) -> dict[str, Any]:
    """A revealed deal as the room's ``deal`` shows it once the game is over."""
    return {
        "round": 1,
        "format": 2,
        "sealed": True,
        "commitment": records.commitment(server_seed),
        "commitments": commitments,
        "contributions": values,
        "server_seed": server_seed,
        "seed": records.seed_hex(records.deal_seed(server_seed, values, room, 1)),
    }


def test_the_page_derives_the_commitment_and_the_deal_seed_as_the_server_does(
    person: Make,
) -> None:
    ana = person("Ana")
    ana.page.goto("/")
    server_seed = hashlib.sha256(b"a server seed").hexdigest()
    values = [hashlib.sha256(b"mine").hexdigest(), "", hashlib.sha256(b"ben").hexdigest()]
    got = _in_page(
        ana,
        """async (fp, [seed, values]) => [await fp.commitmentOf(seed),
            await fp.dealSeedOf(seed, values, 'K7QXM', 3),
            await fp.dealSeedOf(seed, values, 'K7QXM', 3, 1),
            await fp.contributionCommitmentOf(values[0])]""",
        [server_seed, values],
    )
    assert got == [
        records.commitment(server_seed),
        records.seed_hex(records.deal_seed(server_seed, values, "K7QXM", 3)),
        records.seed_hex(records.deal_seed_1(server_seed, values)),
        _hash(values[0]),
    ]


def test_the_pages_view_digest_is_the_one_parlor_verify_computes() -> None:
    """Checked in the page below, for every game's views; here the Python side alone: keys
    sorted, unescaped UTF-8, no spaces."""
    assert (
        records.view_digest({"b": [1, "é"], "a": None})
        == hashlib.sha256('{"a":null,"b":[1,"é"]}'.encode()).hexdigest()[:32]
    )


def test_the_page_digests_every_games_views_as_the_server_does(person: Make) -> None:
    from rules.registry import get_game

    ana = person("Ana")
    ana.page.goto("/")
    views = []
    for game_id in ("numberswap", "warp99", "floor"):
        game = get_game(game_id)
        state = game.new_game(3, {}, 99)
        views += [game.view(state, 0), game.view(state, None), game.open_view(state)]
    got = _in_page(ana, "async (fp, views) => Promise.all(views.map(fp.viewDigest))", views)
    assert got == [records.view_digest(view) for view in views]


def test_each_check_of_a_revealed_deal_against_what_the_page_saw(person: Make) -> None:
    ana = person("Ana")
    ana.page.goto("/")
    server_seed = hashlib.sha256(b"a server seed").hexdigest()
    mine, bens = hashlib.sha256(b"mine").hexdigest(), hashlib.sha256(b"ben").hexdigest()
    locked = [_hash(mine), _hash(bens), ""]
    deal = {**_deal(server_seed, locked, [mine, bens, ""], "K7QXM")}
    saw = {
        "room": "K7QXM",
        "seen": deal["commitment"],
        "locked": locked,
        "bots": [False, False, True],
        "seat": 0,
        "mine": mine,
    }

    def check(changed_deal: dict[str, Any], **changed_saw: Any) -> dict[str, Any]:
        result: dict[str, Any] = _in_page(ana, _CHECK, [changed_deal, {**saw, **changed_saw}])
        return result

    assert check(deal) == {"ok": True, "prior": "seen"}
    withheld = {**deal, **_deal(server_seed, locked, [mine, "", ""], "K7QXM")}
    assert check(withheld)["ok"] is True, "a withheld value leaves its slot empty: still fair"
    cases = {
        "the deal seed was not derived": {**deal, "seed": "0" * 16},
        "does not match its locked commitment": {**deal, "contributions": [mine, mine, ""]},
        "your contribution was not used": _deal(server_seed, locked, ["", bens, ""], "K7QXM"),
    }
    for reason, forged in cases.items():
        got = check(forged)
        assert got["ok"] is False and reason in got["reason"], (reason, got)
    other = check(deal, seen="1" * 64)
    assert other["ok"] is False and "not the one shown before the deal" in other["reason"]
    relabelled = check(deal, room="ZZZZZ")
    assert relabelled["ok"] is False and "not derived" in relabelled["reason"]
    watched = check(deal, seat=None, mine=None, locked=None)
    assert watched["ok"] is None and "you watched" in watched["reason"]
    late = check(deal, seen=None, shown=deal["commitment"][:8], mine=None, locked=None)
    assert late["ok"] is None and late["reason"] == "you joined after the deal"
    too_late = check(deal, mine=None)
    assert too_late["ok"] is None and "not locked in" in too_late["reason"]


def _grind(server_seed: str, fixed: list[str], slot: int, tries: int) -> str:
    """What a server that fills a slot after seeing every other value would do: try values for
    that slot and keep the one whose deal it likes best (here: the smallest deal seed)."""
    best = ""
    lowest = 1 << 64
    for n in range(tries):
        value = hashlib.sha256(f"grind {n}".encode()).hexdigest()
        values = [value if i == slot else v for i, v in enumerate(fixed)]
        seed = records.deal_seed(server_seed, values, "K7QXM", 1)
        if seed < lowest:
            best, lowest = value, seed
    return best


def test_a_slot_the_server_grinds_after_the_reveals_is_refused_by_the_page(person: Make) -> None:
    """The attack of issue 26: a bot's slot, or a silent person's, filled by the server after
    it has seen the honest values. With a value and a matching commitment in that slot the
    page refuses "✓": a bot's slot must be empty, and a commitment that was not in the set
    locked before the reveals cannot be used."""
    ana = person("Ana")
    ana.page.goto("/")
    server_seed = hashlib.sha256(b"the server's seed").hexdigest()
    mine = hashlib.sha256(b"ana's browser").hexdigest()
    saw = {"room": "K7QXM", "seen": records.commitment(server_seed), "seat": 0, "mine": mine}
    # Seat 1 a bot, seat 2 a person whose browser never committed (its slot locked empty).
    locked = [_hash(mine), "", ""]
    for slot in (1, 2):
        fixed = [mine, "", ""]
        ground = _grind(server_seed, fixed, slot, 2000)
        values = [ground if i == slot else v for i, v in enumerate(fixed)]
        hashes = [_hash(v) if v else "" for v in values]
        forged = _deal(server_seed, hashes, values, "K7QXM")
        got = _in_page(
            ana, _CHECK, [forged, {**saw, "locked": locked, "bots": [False, True, False]}]
        )
        assert got["ok"] is False, (slot, got)
        assert records.deal_seed(server_seed, values, "K7QXM", 1) < 1 << 58, "it did steer"
    honest = _deal(server_seed, locked, [mine, "", ""], "K7QXM")
    assert _in_page(ana, _CHECK, [honest, {**saw, "locked": locked, "bots": [False, True, False]}])[
        "ok"
    ]


def test_a_commitment_the_server_shows_for_your_seat_is_replaced_by_your_own(
    person: Make,
) -> None:
    """A server that pre-fills (or swaps) a seat's commitment does not get to keep it: the
    page commits to a value of its own, once, for that server commitment."""
    ana = person("Ana")
    forged = "ff" * 32
    sent: list[dict[str, Any]] = []

    def handler(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if isinstance(message, bytes):
                sent.append(unpack(message))
            server.send(message)

        def to_page(message: str | bytes) -> None:
            if isinstance(message, bytes):
                decoded = unpack(message)
                next_deal = decoded.get("room", {}).get("next_deal")
                if decoded["type"] == "state" and next_deal and decoded["you"] is not None:
                    next_deal["commitments"][decoded["you"]] = forged
                    message = pack(decoded)
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    ana.page.route_web_socket(re.compile(r"/ws/"), handler)
    code = ana.create_room("floor")
    # The page keeps its commitment in its storage just before it sends it; one more round
    # trip to the browser then delivers everything the page sent before it.
    ana.page.wait_for_function(
        "c => (localStorage.getItem('parlor.seal.' + c) || '').includes('\"hash\":\"')", arg=code
    )
    ana.page.evaluate("1")
    commits = [m for m in sent if m.get("type") == "commit"]
    assert len(commits) == 1, sent
    assert commits[0]["hash"] != forged
    assert re.fullmatch(r"[0-9a-f]{64}", commits[0]["hash"])


def _tap(
    person: Person, sent: list[dict[str, Any]], got: list[dict[str, Any]], lie: Any = None
) -> None:
    """Record what ``person``'s page sends and receives over its WebSocket; ``lie(message)``
    may change a message on its way to the page (a server that lies, in a test)."""

    def handler(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if isinstance(message, bytes):
                sent.append({**unpack(message), "_after": len(got)})
            server.send(message)

        def to_page(message: str | bytes) -> None:
            if isinstance(message, bytes):
                decoded = unpack(message)
                if lie is not None and lie(decoded):
                    message = pack(decoded)
                got.append(decoded)
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    person.page.route_web_socket(re.compile(r"/ws/"), handler)


def _stage(message: dict[str, Any]) -> str | None:
    if message.get("type") != "state":
        return None
    stage: str | None = message["room"].get("next_deal", {}).get("stage")
    return stage


def _start_floor(ana: Person, ben: Person) -> str:
    """Ana opens a Floor room, Ben joins, both browsers seal, Ana starts: both at the table."""
    code = ana.create_room("floor")
    ben.join_by_code(code)
    ana.wait_seats(2)
    ana.page.locator(".badge.sealed").nth(1).wait_for()
    ana.click("Start the game")
    for someone in (ana, ben):
        someone.wait_screen("table")
    return code


def test_the_pages_commit_then_reveal_after_the_lock_and_verify_every_view(person: Make) -> None:
    from tests.browser.play import play_to_the_end

    ana, ben = person("Ana"), person("Ben", phone=False)
    taps: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    for someone in (ana, ben):
        taps[someone.name] = ([], [])
        _tap(someone, *taps[someone.name])
    _start_floor(ana, ben)
    for name, (sent, got) in taps.items():
        commits = [m for m in sent if m["type"] == "commit"]
        reveals = [m for m in sent if m["type"] == "reveal"]
        assert len(commits) == 1 and len(reveals) == 1, (name, sent)
        (commit,), (reveal,) = commits, reveals
        assert records.contribution_commitment(reveal["value"]) == commit["hash"]
        # The value left the page only after it had been told the set was locked, with its
        # own commitment in it.
        told = [m for m in got[: reveal["_after"]] if _stage(m) == "reveal"]
        assert told, f"{name} revealed before the lock"
        assert commit["hash"] in told[-1]["room"]["next_deal"]["locked"]
    play_to_the_end("floor", [ana, ben])
    for someone in (ana, ben):
        check = someone.page.locator("[data-deal-check=ok]")
        check.wait_for()
        assert check.inner_text() == "Deal verified ✓"
        assert "tables you were shown are the record's" in (check.get_attribute("title") or "")
    played = [m for m in taps["Ana"][1] if m.get("type") == "state" and m.get("view")]
    final = played[-1]["room"]["deal"]
    assert final["contributions"] == [
        next(m["value"] for m in taps[n][0] if m["type"] == "reveal") for n in ("Ana", "Ben")
    ]


def test_a_view_the_record_does_not_give_is_not_verified(person: Make) -> None:
    """A server that shows a seat a table its record does not give (here: one view of Ana's
    changed on its way) gets "Deal not verified ✗" from her page, naming the view."""
    from tests.browser.play import play_to_the_end

    ana, ben = person("Ana"), person("Ben", phone=False)
    playing_views = 0

    def lie(message: dict[str, Any]) -> bool:
        nonlocal playing_views
        if message.get("type") != "state" or message["room"]["phase"] != "playing":
            return False
        playing_views += 1
        if playing_views != 3:
            return False
        message["view"]["draw_count"] = message["view"].get("draw_count", 0) + 1
        return True

    _tap(ana, [], [], lie)
    code = ana.create_room("floor")
    ben.join_by_code(code)
    ana.wait_seats(2)
    ana.click("Start the game")
    for someone in (ana, ben):
        someone.wait_screen("table")
    play_to_the_end("floor", [ana, ben])
    failed = ana.page.locator("[data-deal-check=failed]")
    failed.wait_for()
    assert "is not the one the record's replay gives your seat" in failed.inner_text()
    ben.page.locator("[data-deal-check=ok]").wait_for()


@contextlib.contextmanager
def _ben_by_program(server_url: str, code: str) -> Iterator[tuple[Host, dict[str, Any]]]:
    """Ben, seated in room ``code`` by a program (no browser: it commits and reveals only when
    told to), and the first state it was sent."""
    url = server_url.replace("http://", "ws://") + f"/ws/{code}?format=json"
    with connect(url) as ws:
        ben = Host(ws)
        ws.send(json.dumps({"type": "join", "name": "Ben", "key": secrets.token_urlsafe(16)}))
        yield ben, ben.wait_state(lambda state: True)


def test_the_lobby_says_whose_browser_the_deal_waits_for_and_who_has_sealed(
    person: Make, server_url: str
) -> None:
    """Ben plays from a program that commits only when told to: Ana's page (the host) shows the
    deal waiting for Ben's browser, with the time left, then Ben's seat as sealed, then the
    game."""
    ana = person("Ana")
    code = ana.create_room("floor")
    with _ben_by_program(server_url, code) as (ben, joined):
        ana.wait_seats(2)
        sealed = ana.page.locator(".seat .badge.sealed")
        expect(sealed).to_have_count(1)  # Ana's own browser has sealed; Ben's program has not
        ana.click("Start the game")
        waiting = ana.page.locator("[data-dealing=commit]")
        expect(waiting).to_contain_text("Sealing the deal: waiting for Ben's browser…")
        expect(waiting.locator("[role=timer]")).to_be_visible()
        value = secrets.token_hex(32)
        seen = joined["room"]["next_deal"]["commitment"]
        ben.command(
            {"type": "commit", "commitment": seen, "hash": records.contribution_commitment(value)}
        )
        ben.wait_state(lambda s: s["room"].get("next_deal", {}).get("stage") == "reveal")
        ben.command({"type": "reveal", "value": value})
        ana.wait_screen("table")
        ben.wait_state(lambda s: s["room"]["phase"] == "playing")


def test_a_deal_changed_after_the_reveals_is_refused_seat_by_seat(person: Make) -> None:
    """The review's attacks on the browser's check: a downgrade to parlor-deal/1, extra empty
    slots, one seat's slot filled with another's commitment and value, a sealing started over
    after the page revealed. Each is refused; the honest deal passes."""
    ana = person("Ana")
    ana.page.goto("/")
    server_seed = hashlib.sha256(b"review seed").hexdigest()
    mine, bens = hashlib.sha256(b"mine").hexdigest(), hashlib.sha256(b"ben").hexdigest()
    locked = [_hash(mine), _hash(bens), ""]
    seats = [{"id": 1, "bot": False}, {"id": 2, "bot": False}, {"id": 3, "bot": True}]
    saw = {
        "room": "K7QXM",
        "seen": records.commitment(server_seed),
        "locked": locked,
        "lockedById": {"1": locked[0], "2": locked[1], "3": ""},
        "seats": seats,
        "seat": 0,
        "mine": mine,
    }
    honest = _deal(server_seed, locked, [mine, bens, ""], "K7QXM")
    assert _in_page(ana, _CHECK, [honest, saw])["ok"] is True
    old = {
        **honest,
        "format": 1,
        "seed": records.seed_hex(records.deal_seed_1(server_seed, [mine, "", ""])),
    }
    extra = _deal(server_seed, [*locked, ""], [mine, bens, "", ""], "K7QXM")
    copied = _deal(server_seed, [locked[0], locked[0], ""], [mine, mine, ""], "K7QXM")
    for forged in (old, extra, copied):
        assert _in_page(ana, _CHECK, [forged, saw])["ok"] is False, forged
    over = _in_page(ana, _CHECK, [honest, {**saw, "abandoned": ["f" * 64]}])
    assert over["ok"] is False and "started this deal over" in over["reason"]


_NO_STORAGE = """Object.defineProperty(window, "localStorage", {
  configurable: true,
  get() { throw new DOMException("The operation is insecure.", "SecurityError"); },
});"""

# Storage that takes everything but the view log (as when the log no longer fits).
_NO_ROOM_FOR_VIEWS = """(() => {
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (String(key).startsWith("parlor.views.")) {
      throw new DOMException("full", "QuotaExceededError");
    }
    return setItem.call(this, key, value);
  };
})();"""


def _play_floor(ana: Person, ben: Person) -> None:
    from tests.browser.play import play_to_the_end

    _start_floor(ana, ben)
    play_to_the_end("floor", [ana, ben])


def test_a_page_without_storage_seals_once_and_checks_every_view_it_was_shown(
    person: Make,
) -> None:
    """A browser whose storage is unavailable (blocked, private modes) keeps its value, its
    seals and its view log for the visit: it commits once, reveals once, and its "✓" includes
    the view check."""
    ana, ben = person("Ana"), person("Ben", phone=False)
    ana.page.add_init_script(_NO_STORAGE)
    sent: list[dict[str, Any]] = []
    _tap(ana, sent, [])
    _play_floor(ana, ben)
    check = ana.page.locator("[data-deal-check=ok]")
    check.wait_for()
    assert "tables you were shown are the record's" in (check.get_attribute("title") or "")
    sealing = [m for m in sent if m["type"] in ("commit", "reveal")]
    first = sealing[0]["commitment"]
    # One commit and one reveal for this game's sealing (then perhaps the next game's commit).
    this_game = [m for m in sealing if m["type"] == "reveal" or m["commitment"] == first]
    assert [m["type"] for m in this_game] == ["commit", "reveal"], sealing


def test_a_page_that_kept_no_view_log_does_not_say_verified(person: Make) -> None:
    """Ana's browser kept her seal but had no room for the view log; after a reload it knows
    the deal was sealed with her value but has lost the tables it showed her (it logs only
    those it shows from now on): "not checked", naming why, never "✓"."""
    ana, ben = person("Ana"), person("Ben", phone=False)
    ana.page.add_init_script(_NO_ROOM_FOR_VIEWS)
    _play_floor(ana, ben)
    ana.page.locator("[data-deal-check=ok]").wait_for()  # this visit kept the log in memory
    ana.page.reload()
    unchecked = ana.page.locator("[data-deal-check=unchecked]")
    unchecked.wait_for()
    assert "did not keep every table it showed you" in unchecked.inner_text()
    expect(ana.page.locator("[data-deal-check=ok]")).to_have_count(0)
    ben.page.locator("[data-deal-check=ok]").wait_for()


def test_a_page_reloaded_during_the_game_still_checks_every_view(person: Make) -> None:
    """With storage that works, a reload mid-game keeps the view log whole: "✓", with the
    tables from before and after the reload compared."""
    from tests.browser.play import play_to_the_end

    ana, ben = person("Ana"), person("Ben", phone=False)
    _start_floor(ana, ben)
    for _ in range(4):
        (ana if ana.my_turn() else ben).step("floor")
    ana.page.reload()
    ana.wait_screen("table")
    play_to_the_end("floor", [ana, ben])
    check = ana.page.locator("[data-deal-check=ok]")
    check.wait_for()
    title = check.get_attribute("title") or ""
    shown = int(re.search(r"the (\d+) tables you were shown", title).group(1))  # type: ignore[union-attr]
    assert shown >= 5, title


def test_download_my_game_verifies_after_a_locked_seat_left_the_lobby(
    person: Make, server_url: str, tmp_path: Any
) -> None:
    """Ben's browser (a program here) commits, the set is locked with three seats, and Ben
    leaves the lobby before the deal: Ana and Cleo play on two seats. Ana's "Download my game"
    file passes `parlor verify`: the locked set is compared seat by seat, by seat id (by
    index, Cleo's slot looked like Ben's and the file failed)."""
    from server.fairplay.verify import verify
    from tests.browser.play import play_to_the_end

    ana, cleo = person("Ana", phone=False), person("Cleo")
    code = ana.create_room("floor")
    with _ben_by_program(server_url, code) as (ben, joined):
        value = secrets.token_hex(32)
        seen = joined["room"]["next_deal"]["commitment"]
        ben.command(
            {"type": "commit", "commitment": seen, "hash": records.contribution_commitment(value)}
        )
        cleo.join_by_code(code)
        ana.wait_seats(3)
        expect(ana.page.locator(".seat .badge.sealed")).to_have_count(3)
        ana.click("Start the game")
        ben.wait_state(lambda s: s["room"].get("next_deal", {}).get("stage") == "reveal")
        ben.command({"type": "leave"})
    for someone in (ana, cleo):
        someone.wait_screen("table")
    play_to_the_end("floor", [ana, cleo])
    ana.page.locator("[data-deal-check=ok]").wait_for()
    with ana.page.expect_download() as download:
        ana.page.locator("[data-my-game]").click()
    saved = tmp_path / "mine.json"
    download.value.save_as(saved)
    bundle = json.loads(saved.read_text())
    assert len(bundle["seen"]["commitments"]) == 3 and len(bundle["record"]["seats"]) == 2
    verdict = verify(bundle)
    assert verdict.ok, verdict.problems
    assert verdict.views == len(bundle["seen"]["views"]) > 0


def test_a_reveal_acknowledged_then_lost_is_sent_again(person: Make) -> None:
    """As after a store failover: the server acknowledges Ana's reveal, then sends a state (at
    or past the acknowledged version) without her value. Her page sends it again, and the
    deal uses it. (Here the first reveal never reaches the server and the acknowledgement is
    made up on its way; Ben's reveal makes the next version.)"""
    ana, ben = person("Ana"), person("Ben", phone=False)
    got: list[dict[str, Any]] = []
    reveals: list[dict[str, Any]] = []

    def handler(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            decoded = unpack(message) if isinstance(message, bytes) else {}
            if decoded.get("type") == "reveal":
                reveals.append(decoded)
                if len(reveals) == 1:
                    lock = next(m for m in got if _stage(m) == "reveal")
                    ack = {"type": "ack", "seq": decoded["seq"], "version": lock["version"] + 1}
                    ws.send(pack({**ack, "duplicate": False}))
                    return
            server.send(message)

        def to_page(message: str | bytes) -> None:
            if isinstance(message, bytes):
                got.append(unpack(message))
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    ana.page.route_web_socket(re.compile(r"/ws/"), handler)
    _play_floor(ana, ben)
    ana.page.locator("[data-deal-check=ok]").wait_for()
    ben.page.locator("[data-deal-check=ok]").wait_for()
    assert len(reveals) == 2 and reveals[0]["value"] == reveals[1]["value"]
    deal = next(m for m in reversed(got) if m.get("type") == "state" and "deal" in m["room"])
    assert reveals[0]["value"] in deal["room"]["deal"]["contributions"]

"""The browser's check of a sealed deal (client-web/js/fairplay.js, docs/fairplay.md) computes
what the server computes, with Web Crypto and with the plain SHA-256 it falls back on where a
page has no ``crypto.subtle`` (plain http on a LAN address)."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import WebSocketRoute

from rules.codec import pack, unpack
from server import records
from tests.browser.pages import Person

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


def test_the_page_derives_the_commitment_and_the_deal_seed_as_the_server_does(
    person: Make,
) -> None:
    ana = person("Ana")
    ana.page.goto("/")
    server_seed = hashlib.sha256(b"a server seed").hexdigest()
    contributions = ["9c41d2e07b3f58a6c1d0e2f4a7b9c3d5", "", "ab" * 32]
    got = ana.page.evaluate(
        """async ([seed, contributions]) => {
          const main = document.querySelector('script[type=module]').src;
          const fp = await import(main.replace(/main\\.js$/, 'fairplay.js'));
          const deal = {sealed: true, server_seed: seed, contributions,
                        commitment: await fp.commitmentOf(seed),
                        seed: await fp.dealSeedOf(seed, contributions)};
          const mine = {seen: deal.commitment, seat: 0, mine: contributions[0]};
          const ok = await fp.checkDeal(deal, mine);
          const forged = await fp.checkDeal({...deal, seed: '0'.repeat(16)});
          const other = await fp.checkDeal(deal, {seen: '1'.repeat(64)});
          const late = await fp.checkDeal(deal, {shown: deal.commitment.slice(0, 8)});
          const lateOther = await fp.checkDeal(deal, {shown: 'deadbeef'});
          const atTheEnd = await fp.checkDeal(deal);
          return [deal.commitment, deal.seed, ok, forged, other, late, lateOther, atTheEnd];
        }""",
        [server_seed, contributions],
    )
    commitment, seed, ok, forged, other, late, late_other, at_the_end = got
    assert commitment == records.commitment(server_seed)
    assert seed == records.seed_hex(records.deal_seed(server_seed, contributions))
    assert ok == {"ok": True, "prior": "seen"}
    assert forged == {"ok": False, "reason": "the deal seed was not derived from the seeds"}
    assert other["ok"] is False and "not the one shown before the deal" in other["reason"]
    # A page that came in after the deal checks against the seal it was shown during the game.
    assert late == {"ok": True, "prior": "shown"}
    assert late_other == {
        "ok": False,
        "reason": "the commitment is not the one shown during the game",
    }
    assert at_the_end == {"ok": True, "prior": None}, "says it had nothing to compare against"


def test_a_contribution_the_server_shows_for_your_seat_is_replaced_by_your_own(
    person: Make,
) -> None:
    """A server that pre-fills (or swaps) a seat's contribution does not get to keep it: the
    page sends one of its own, once, for that commitment (docs/fairplay.md, what it proves)."""
    ana = person("Ana")
    forged = "ff" * 16
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
                    next_deal["contributions"][decoded["you"]] = forged
                    message = pack(decoded)
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    ana.page.route_web_socket(re.compile(r"/ws/"), handler)
    ana.create_room("floor")
    # The page sends its contribution as it takes in its first state, before it draws the
    # lobby; one more round trip to the browser delivers everything the page sent before it.
    ana.page.evaluate("1")
    contributions = [m for m in sent if m.get("type") == "contribute"]
    assert len(contributions) == 1, sent
    assert contributions[0]["value"] != forged
    assert re.fullmatch(r"[0-9a-f]{32}", contributions[0]["value"])

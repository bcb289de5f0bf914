"""Floor's move builder, run in the browser against the rules: from a view's compact legal list,
picking cards the way the page lets a player pick them reaches exactly the actions the rules
spell out (``legal_actions``) — nothing illegal, nothing missing."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from rules.registry import all_games
from tests.browser.pages import Person

Make = Callable[..., Person]

#: Every subset of cards the page lets a player pick (in card order, so each subset once), and
#: every play it then offers; plus the moves that need no card.
REACHABLE = """async (views) => {
  const floor = await import("/js/views/games/floor.js");
  return views.map((view) => {
    const found = new Set(floor.plainMoves(view).map((m) => JSON.stringify(m.action)));
    const visit = (picked) => {
      const here = floor.pickFrom(view, picked);
      for (const play of here.plays) found.add(JSON.stringify(play.action));
      const last = Math.max(-1, ...picked);
      for (const id of here.open) if (id > last) visit([...picked, id]);
    };
    visit([]);
    return [...found];
  });
}"""


def _canonical(action: Any) -> str:
    return json.dumps(action, sort_keys=True)


def _positions(wanted: int) -> list[tuple[dict[str, Any], set[str]]]:
    """Views from random Floor games, favouring those with Operations and multi-card plays."""
    game = all_games()["floor"]
    rnd = random.Random(7)
    found: list[tuple[dict[str, Any], set[str]]] = []
    for seed in range(200):
        state = game.new_game(3, {}, seed)
        while game.result(state) is None and len(found) < wanted:
            seat = min(game.to_act(state))
            view = game.view(state, seat)
            actions = game.legal_actions(state, seat)
            kinds = {entry["type"] for entry in view["legal"]}
            rich = kinds & {"operation", "discard_operations", "power", "burn"}
            if rich or rnd.random() < 0.1:
                found.append((view, {_canonical(game.dump_action(a)) for a in actions}))
            state, _ = game.apply(state, seat, rnd.choice(actions))
        if len(found) >= wanted:
            break
    return found


def test_picking_cards_reaches_exactly_the_legal_actions(person: Make) -> None:
    positions = _positions(60)
    assert any(e["type"] == "operation" for view, _ in positions for e in view["legal"])
    ana = person("Ana", phone=False)
    ana.home()
    reached = ana.page.evaluate(REACHABLE, [view for view, _ in positions])
    for (view, expected), got in zip(positions, reached, strict=True):
        built = {_canonical(json.loads(action)) for action in got}
        assert built == expected, (
            f"legal {view['legal']}\nmissing {sorted(expected - built)[:5]}\n"
            f"extra {sorted(built - expected)[:5]}"
        )

"""Number Swap's compact view (docs/rules/numberswap.md, "The view on the wire"): exactly the
form documented, and it decodes back to the facts of the table."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.codec import is_wire_clean, pack, unpack
from rules.numberswap.state import Phase, State
from tests.rules.numberswap.helpers import GAME, cell_facts, grid, grid_facts, position

DOWN = [9] * 12


def test_a_grid_is_twelve_cells_a_card_nil_or_false():
    # Column 0 cleared, a face-up 0 and a face-up -2, the rest face down.
    g = grid([None, None, None, 0, 9, -2, 9, 9, 9, 9, 9, 9], up=[3, 5])
    view = GAME.view(position([g, grid(DOWN, up=[11])]), None)
    cleared, down = False, None
    assert view["grids"] == [
        [cleared, cleared, cleared, 0, down, -2, down, down, down, down, down, down],
        [down] * 11 + [9],
    ]
    # A cleared slot is ``false`` on the wire, never the card 0 (which Python would equal).
    assert json.dumps(view["grids"][0][:4]) == "[false, false, false, 0]"
    assert unpack(pack(view))["grids"][0][:4] == [False, False, False, 0]
    assert [type(c) for c in unpack(pack(view))["grids"][0][:4]] == [bool, bool, bool, int]


def test_the_view_has_exactly_the_documented_keys():
    view = GAME.view(GAME.new_game(3, None, 1), 0)
    assert set(view) == {
        # Common to every game (rules/contract.py).
        *("game", "seat", "to_act", "legal", "over", "result"),
        *("phase", "round", "target", "current", "grids", "chosen", "totals"),
        *("discard_top", "discard_size", "draw_size", "drawn", "ender", "undo_by"),
        *("ready", "history", "last_round"),
    }


def _check_decodes(state: State, view: dict[str, object]) -> None:
    """Everything the view says, decoded, is the state's table; nothing face down shows."""
    assert len(view["grids"]) == state.seats  # type: ignore[arg-type]
    for s, g in enumerate(state.grids):
        cells = grid_facts(view, s)
        for p, cell in enumerate(cells):
            if g.cards[p] is None:
                assert cell == {"card": None, "up": False, "cleared": True}
            elif g.up[p]:
                assert cell == {"card": g.cards[p], "up": True, "cleared": False}
            else:
                assert cell == {"card": None, "up": False, "cleared": False}
        # What the client works out: the face-down count and the sum of the face-up cards.
        face_down = sum(1 for c in cells if not c["up"] and not c["cleared"])
        showing = sum(c["card"] for c in cells if c["up"])
        assert face_down == g.face_down_count()
        assert showing == sum(c for p, c in enumerate(g.cards) if c is not None and g.up[p])
    assert view["chosen"] == list(state.chosen)
    assert view["totals"] == list(state.totals)
    last = state.last_round
    if state.phase in (Phase.ROUND_END, Phase.OVER) and last is not None:
        shown = view["last_round"]
        assert isinstance(shown, dict)
        assert [[cell_facts(c)["card"] for c in cells] for cells in shown["grids"]] == [
            list(g.cards) for g in last.grids
        ]
        # Every card is revealed by then: no cell is face down.
        assert all(c is not None for cells in shown["grids"] for c in cells)
        assert shown["scores"] == list(last.scores)
        assert shown["raw_scores"] == list(last.raw_scores)
        assert (shown["round"], shown["ender"], shown["doubled"]) == (
            last.round,
            last.ender,
            last.doubled,
        )
    else:
        assert view["last_round"] is None


@pytest.mark.parametrize("seats", [2, 5, 8])
def test_every_view_of_a_random_game_decodes_back_to_the_table(seats):
    rnd = random.Random(seats)
    state = GAME.new_game(seats, {"target_score": 250}, seats)
    phases = set()
    while GAME.result(state) is None:
        for viewer in (*range(seats), None):
            view = unpack(pack(GAME.view(state, viewer)))
            _check_decodes(state, view)
        phases.add(state.phase)
        seat = rnd.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, rnd.choice(GAME.legal_actions(state, seat)))
    _check_decodes(state, unpack(pack(GAME.view(state, None))))
    assert phases == {Phase.CHOOSE, Phase.TURN, Phase.ROUND_END}


def test_the_last_round_is_on_the_table_only_at_the_round_end_and_the_game_end():
    rnd = random.Random(3)
    state = GAME.new_game(2, {"target_score": 250}, 3)
    seen = {}
    while GAME.result(state) is None:
        seen.setdefault(state.phase, set()).add(GAME.view(state, 0)["last_round"] is not None)
        seat = rnd.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, rnd.choice(GAME.legal_actions(state, seat)))
    assert seen[Phase.ROUND_END] == {True}
    assert seen[Phase.TURN] == seen[Phase.CHOOSE] == {False}
    assert GAME.view(state, 0)["last_round"] is not None


# -- the open view (docs/rules/numberswap.md, "The open view") ---------------------------------


def open_cells(view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """Seat ``seat``'s grid in an open view, cell by cell: :func:`cell_facts` of ``grids``, with
    each face-down cell's card filled in from ``down_cards`` (in position order)."""
    hidden = iter(view["down_cards"][seat])
    cells = grid_facts(view, seat)
    for cell in cells:
        if not cell["up"] and not cell["cleared"]:
            cell["card"] = next(hidden)
    assert next(hidden, "none left") == "none left", "one down card per face-down cell"
    return cells


def test_the_open_view_shows_every_face_down_card_in_position_order():
    g = grid([None, None, None, 0, 7, -2, 12, 3, 5, 1, 9, 4], up=[3, 5])
    view = GAME.open_view(position([g, grid(DOWN, up=[11])]))
    assert view["down_cards"] == [[7, 12, 3, 5, 1, 9, 4], [9] * 11]
    assert [c["card"] for c in open_cells(view, 0)] == [
        None,
        None,
        None,
        0,
        7,
        -2,
        12,
        3,
        5,
        1,
        9,
        4,
    ]


def test_the_open_view_still_tells_face_down_cells_apart():
    g = grid([None, None, None, 0, 7, -2, 12, 3, 5, 1, 9, 4], up=[3, 5])
    state = position([g, grid(DOWN, up=[11])])
    view = GAME.open_view(state)
    # ``grids`` is the spectator's: a face-down cell is still ``null``, with its card beside it.
    assert view["grids"] == GAME.view(state, None)["grids"]
    assert [(c["up"], c["cleared"]) for c in open_cells(view, 0)] == [
        *[(False, True)] * 3,
        (True, False),
        (False, False),
        (True, False),
        *[(False, False)] * 6,
    ]
    # A face-down 0 is a card, never ``false`` (a cleared slot).
    zero = GAME.open_view(position([grid([0] * 12), grid(DOWN)]))
    assert [type(c) for c in unpack(pack(zero))["down_cards"][0]] == [int] * 12


def test_the_open_view_has_the_spectator_keys_plus_down_cards_and_open():
    state = GAME.new_game(3, None, 1)
    view = GAME.open_view(state)
    assert set(view) == {*GAME.view(state, None), "down_cards", "open"}
    assert (view["open"], view["seat"], view["legal"]) == (True, None, [])
    assert view["to_act"] == [0, 1, 2]


def test_the_open_view_is_wire_clean():
    view = GAME.open_view(GAME.new_game(8, None, 2))
    assert is_wire_clean(view)
    assert unpack(pack(view)) == view


@settings(max_examples=5, deadline=None)
@given(seats=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_every_open_view_of_a_random_game_shows_every_cell_as_in_the_state(seats, seed):
    rnd = random.Random(seed)
    state = GAME.new_game(seats, {"target_score": 60}, seed)
    while True:
        view = unpack(pack(GAME.open_view(state)))
        for s, g in enumerate(state.grids):
            cells = open_cells(view, s)
            assert [c["card"] for c in cells] == list(g.cards)
            assert [c["up"] or c["cleared"] for c in cells] == list(g.up)
        if GAME.result(state) is not None:
            return
        seat = rnd.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, rnd.choice(GAME.legal_actions(state, seat)))

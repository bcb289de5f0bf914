"""Builders for hand-made Number Swap positions."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Any

from rules import get_game
from rules.numberswap.cards import DECK_COUNTS
from rules.numberswap.game import NumberSwap
from rules.numberswap.state import Grid, Phase, State
from tests.rules.conformance import Harness

GAME: NumberSwap = get_game("numberswap")  # type: ignore[assignment]


def grid(cards: Sequence[int | None], up: Sequence[int] = ()) -> Grid:
    """A grid from 12 values; ``up`` lists the face-up positions (cleared slots are None)."""
    assert len(cards) == 12
    return Grid(cards=tuple(cards), up=tuple(p in up or cards[p] is None for p in range(12)))


def position(
    grids: Sequence[Grid],
    *,
    current: int | None = 0,
    phase: Phase = Phase.TURN,
    draw: Sequence[int] = (5, 5, 5, 5, 5),
    discard: Sequence[int] = (7,),
    **changes: Any,
) -> State:
    """A turn-phase state with the given grids (piles need not add up to 150 cards)."""
    base = GAME.new_game(len(grids), None, 0)
    return replace(
        base,
        grids=tuple(grids),
        phase=phase,
        current=current,
        draw=tuple(draw),
        discard=tuple(discard),
        chosen=(True,) * len(grids),
        **changes,
    )


def cell_facts(cell: Any) -> dict[str, Any]:
    """What one wire grid cell (docs/rules/numberswap.md, "The view on the wire") says: the
    card if face up, whether it is face up, whether its column was cleared. ``False`` is
    tested first: to Python it equals the card 0."""
    if cell is False:
        return {"card": None, "up": False, "cleared": True}
    if cell is None:
        return {"card": None, "up": False, "cleared": False}
    assert type(cell) is int, f"a grid cell is a card, nil or false, not {cell!r}"
    return {"card": cell, "up": True, "cleared": False}


def grid_facts(view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """Seat ``seat``'s grid in ``view``, cell by cell, as :func:`cell_facts`."""
    return [cell_facts(c) for c in view["grids"][seat]]


def cards(state: State) -> Counter[Hashable]:
    counted: Counter[Hashable] = Counter()
    for g in state.grids:
        counted.update(c for c in g.cards if c is not None)
    counted.update(state.draw)
    counted.update(state.discard)
    if state.drawn is not None:
        counted[state.drawn] += 1
    # Columns cleared before the game ended are on the discard pile; in a finished game the
    # revealed grids keep their cards. Either way every one of the 150 is somewhere above.
    return counted


def deck(state: State) -> Counter[Hashable]:
    return Counter(DECK_COUNTS)


def permute_hidden(state: State, seat: int | None, rnd: random.Random) -> State:
    """Shuffle every card nobody may see (draw pile and all face-down cards)."""
    slots: list[tuple[int, int]] = [
        (s, p)
        for s, g in enumerate(state.grids)
        for p, c in enumerate(g.cards)
        if c is not None and not g.up[p]
    ]
    hidden = [state.grids[s].cards[p] for s, p in slots] + list(state.draw)
    rnd.shuffle(hidden)
    grids = [list(g.cards) for g in state.grids]
    for (s, p), value in zip(slots, hidden, strict=False):
        grids[s][p] = value
    draw = tuple(hidden[len(slots) :])
    new_grids = tuple(
        Grid(cards=tuple(cs), up=g.up) for cs, g in zip(grids, state.grids, strict=True)
    )
    return replace(state, grids=new_grids, draw=draw)  # type: ignore[arg-type]


HARNESS = Harness(
    game=GAME,
    cards=cards,
    deck=deck,
    permute_hidden=permute_hidden,
    open_keys=frozenset({"down_cards"}),
)

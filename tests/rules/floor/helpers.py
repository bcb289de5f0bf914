"""Shared pieces of the Floor tests: the conformance harness and hand-built positions.

Positions are built by hand so that each test pins exactly one rule.

Cards are named by what they are (``num(STAR, 3)``, ``add()``, ``take2(CIRCLE)``). Every card
not placed explicitly goes to the draw pile (or, when the draw pile is given, under the top of
the discard pile), so a built position holds all 112 cards, unless ``rest="out"`` leaves them
out of the game: positions about empty piles need a table with nothing left to draw.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, Literal

import pytest

from rules.contract import Event
from rules.errors import RulesError
from rules.floor import GAME
from rules.floor.cards import (
    DECK,
    Op,
    Shape,
    freeze_id,
    number_id,
    op_id,
    power_id,
    swap_id,
    take_id,
)
from rules.floor.state import Phase, State, hidden_from, redeal
from rules.rng import Rng
from tests.rules.conformance import Harness

CIRCLE, TRIANGLE, SQUARE, STAR = Shape.CIRCLE, Shape.TRIANGLE, Shape.SQUARE, Shape.STAR


def num(shape: Shape, value: int, copy: int = 0) -> int:
    return number_id(shape, value, copy)


def add(copy: int = 0) -> int:
    return op_id(Op.ADD, copy)


def sub(copy: int = 0) -> int:
    return op_id(Op.SUBTRACT, copy)


def mul(copy: int = 0) -> int:
    return op_id(Op.MULTIPLY, copy)


def freeze(shape: Shape) -> int:
    return freeze_id(shape)


def take1(shape: Shape) -> int:
    return take_id(shape, 1)


def take2(shape: Shape) -> int:
    return take_id(shape, 2)


def swap(copy: int = 0) -> int:
    return swap_id(copy)


def power(copy: int = 0) -> int:
    return power_id(copy)


def position(
    hands: Sequence[Sequence[int]],
    *,
    shape: Shape | None = None,
    number: int | None = None,
    turn: int = 0,
    direction: int = 1,
    phase: Phase = Phase.PLAY,
    stack: int = 0,
    by: int | None = None,
    discard: Sequence[int] = (),
    draw: Sequence[int] | None = None,
    opening: bool = False,
    passes: int = 0,
    seed: int = 0,
    rest: Literal["auto", "out"] = "auto",
) -> State:
    placed = [c for hand in hands for c in hand] + list(discard) + list(draw or ())
    assert len(set(placed)) == len(placed), "a card is placed twice"
    unplaced = () if rest == "out" else tuple(c for c in DECK if c not in set(placed))
    if draw is None:
        draw_pile, discard_pile = unplaced, tuple(discard)
    else:
        draw_pile, discard_pile = tuple(draw), (*unplaced, *discard)
    return State(
        seats=len(hands),
        rng=Rng.from_seed(seed),
        phase=phase,
        hands=tuple(tuple(sorted(h)) for h in hands),
        draw=draw_pile,
        discard=discard_pile,
        floor_shape=shape,
        floor_number=number,
        turn=turn,
        direction=direction,
        stack=stack,
        by=by,
        opening=opening,
        passes=passes,
        outcome=None,
    )


def act(state: State, seat: int, action: dict[str, Any]) -> tuple[State, list[Event]]:
    """Apply an action as the server would receive it (a plain dict)."""
    return GAME.apply(state, seat, action)


def refused(
    state: State, seat: int, action: dict[str, Any], error: type[RulesError], *words: str
) -> str:
    """Assert that the action is refused with ``error``, its message naming every word."""
    with pytest.raises(error) as caught:
        GAME.apply(state, seat, action)
    assert type(caught.value) is error, f"{type(caught.value).__name__}: {caught.value}"
    message = caught.value.message
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
    return message


def legal(state: State, seat: int) -> list[dict[str, Any]]:
    return [GAME.dump_action(a) for a in GAME.legal_actions(state, seat)]


def _accepts(state: State, seat: int, action: dict[str, Any]) -> bool:
    try:
        GAME.apply(state, seat, action)
    except RulesError:
        return False
    return True


def check_accepted_iff_listed(
    state: State, seat: int, candidates: Iterable[dict[str, Any]]
) -> None:
    """Assert that the rules accept each candidate action exactly when it is a legal action."""
    listed = {repr(sorted(a.items())) for a in legal(state, seat)}
    for action in candidates:
        assert _accepts(state, seat, action) == (repr(sorted(action.items())) in listed), action


# -- the conformance harness ---------------------------------------------------------------


def cards(state: State) -> Counter[Hashable]:
    counted: Counter[Hashable] = Counter()
    for hand in state.hands:
        counted.update(hand)
    counted.update(state.draw)
    counted.update(state.discard)
    return counted


def permute_hidden(state: State, seat: int | None, rnd: random.Random) -> State:
    """Shuffle what ``seat`` cannot see: other hands, the draw pile, the discard under its top."""
    hidden = hidden_from(state, seat)
    rnd.shuffle(hidden)
    return redeal(state, seat, hidden)


def _deck(state: Any) -> Counter[Hashable]:
    return Counter(DECK)


HARNESS = Harness(
    game=GAME,
    cards=cards,
    deck=_deck,
    permute_hidden=permute_hidden,
    open_keys=frozenset({"hands"}),
)

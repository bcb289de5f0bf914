"""Floor's plug into the conformance harness, and helpers to build positions by hand."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from rules.floor import GAME
from rules.floor.cards import deck_counter
from rules.floor.state import State
from tests.rules.conformance import Harness


def cards(state: State) -> Counter[Hashable]:
    counted: Counter[Hashable] = Counter()
    for hand in state.hands:
        counted.update(hand)
    counted.update(state.draw)
    counted.update(state.discard)
    return counted


def permute_hidden(state: State, seat: int | None, rnd: random.Random) -> State:
    """Shuffle what ``seat`` cannot see: other hands, the draw pile, the discard under its top."""
    hidden: list[int] = []
    for s, hand in enumerate(state.hands):
        if s != seat:
            hidden.extend(hand)
    hidden.extend(state.draw)
    hidden.extend(state.discard[:-1])
    rnd.shuffle(hidden)
    rest = iter(hidden)
    hands = tuple(
        hand if s == seat else tuple(sorted(next(rest) for _ in hand))
        for s, hand in enumerate(state.hands)
    )
    draw = tuple(next(rest) for _ in state.draw)
    under = tuple(next(rest) for _ in state.discard[:-1])
    return replace(state, hands=hands, draw=draw, discard=(*under, *state.discard[-1:]))


def _deck(state: Any) -> Counter[Hashable]:
    return Counter(deck_counter())


HARNESS = Harness(game=GAME, cards=cards, deck=_deck, permute_hidden=permute_hidden)

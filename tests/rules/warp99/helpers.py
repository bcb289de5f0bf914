"""Shared pieces of the Warp 99 tests: the conformance harness and hand-built positions."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Any

from rules.warp99 import GAME
from rules.warp99.cards import ALL_CARDS, card
from rules.warp99.state import State, Step
from tests.rules.conformance import Harness


def all_cards(state: State) -> Counter[Hashable]:
    counter: Counter[Hashable] = Counter()
    for group in (*state.decks, *state.hands, *state.rows, *state.piles):
        counter.update(group)
    counter.update(state.reserve)
    counter.update(state.scored)
    return counter


def full_deck(state: State) -> Counter[Hashable]:
    return Counter(ALL_CARDS)


def permute_hidden(state: State, seat: int | None, rnd: random.Random) -> State:
    """Shuffle every card ``seat`` cannot see among the places that hide them."""
    hands = list(state.hands)
    hidden_hands = [s for s in range(state.seats) if s != seat]
    places: list[tuple[int, ...]] = [
        *state.decks,
        *(hands[s] for s in hidden_hands),
        state.reserve,
        state.scored,
        state.piles[0][:-1],
        state.piles[1][:-1],
    ]
    pool = [c for place in places for c in place]
    rnd.shuffle(pool)
    out: list[tuple[int, ...]] = []
    for place in places:
        out.append(tuple(pool[: len(place)]))
        del pool[: len(place)]
    n = state.seats
    decks, rest = out[:n], out[n:]
    for s, hand in zip(hidden_hands, rest, strict=False):
        hands[s] = tuple(sorted(hand))
    reserve, scored, under0, under1 = rest[len(hidden_hands) :]
    return replace(
        state,
        decks=tuple(decks),
        hands=tuple(hands),
        reserve=reserve,
        scored=scored,
        piles=((*under0, state.piles[0][-1]), (*under1, state.piles[1][-1])),
    )


HARNESS = Harness(
    game=GAME,
    cards=all_cards,
    deck=full_deck,
    permute_hidden=permute_hidden,
    open_keys=frozenset({"hands"}),
)


def cards(*names: str) -> tuple[int, ...]:
    """Card ids from short names: ``cards("red 4", "light_blue 0")``."""
    out = []
    for name in names:
        colour, value = name.rsplit(" ", 1)
        out.append(card(colour, int(value)))
    return tuple(out)


def position(
    *,
    hand: Sequence[str] = (),
    row: Sequence[str] = (),
    tops: tuple[str, str] = ("gray 9", "gray 10"),
    sides: tuple[int, int, int] = (1, 1, 1),
    step: Step = Step.A,
    deck: Sequence[str] | None = None,
    reserve: Sequence[str] | None = None,
    seats: int = 2,
    **changes: Any,
) -> State:
    """A hand-built position, seat 0 to act, every card accounted for exactly once.

    Named cards go where asked. Unnamed places are filled from the cards left over, in id
    order: seat 0's deck (9 cards), the reserve (20), then each other seat's hand (6) and deck
    (9); whatever remains is the scored pile. Pass ``deck=[]`` or ``reserve=[]`` to empty them.
    """
    named = {
        "hand": cards(*hand),
        "row": cards(*row),
        "tops": cards(*tops),
        "deck": cards(*deck) if deck is not None else None,
        "reserve": cards(*reserve) if reserve is not None else None,
    }
    used = [c for group in named.values() if group for c in group]
    assert len(set(used)) == len(used), "a card named twice"
    free = [c for c in ALL_CARDS if c not in set(used)]

    def take(n: int) -> tuple[int, ...]:
        got = tuple(free[:n])
        del free[:n]
        return got

    own_deck = named["deck"] if named["deck"] is not None else take(9)
    reserve_cards = named["reserve"] if named["reserve"] is not None else take(20)
    hands: list[tuple[int, ...]] = [tuple(sorted(named["hand"]))]
    decks: list[tuple[int, ...]] = [own_deck]
    for _ in range(1, seats):
        hands.append(tuple(sorted(take(6))))
        decks.append(take(9))
    state = State(
        seats=seats,
        rng=GAME.new_game(seats, None, 0).rng,
        turn=0,
        step=step,
        scores=tuple(range(seats)),
        decks=tuple(decks),
        hands=tuple(hands),
        rows=(named["row"], *(((),) * (seats - 1))),
        piles=((named["tops"][0],), (named["tops"][1],)),
        reserve=reserve_cards,
        scored=tuple(free),
        sides=sides,
        flip_used=False,
        played_to_pile=False,
        winner=None,
    )
    state = replace(state, **changes)
    assert all_cards(state) == full_deck(state)
    return state


def act(state: State, action: dict[str, Any], seat: int = 0) -> tuple[State, list[dict[str, Any]]]:
    """Apply a wire-form action, as the server would."""
    return GAME.apply(state, seat, action)


def legal(state: State, seat: int = 0) -> list[dict[str, Any]]:
    return [GAME.dump_action(a) for a in GAME.legal_actions(state, seat)]


def event_types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]

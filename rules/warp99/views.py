"""What each seat sees of a Warp 99 table.

Public: every row, score, hand size and deck size, and whether that deck was dealt as a full 15
(R11: it then scores when it runs out; every new deck's size is announced anyway); both pile tops
and sizes; how many cards the reserve and the scored pile hold; the rule cards' face-up sides;
whose turn and which step; whether the stuck-flip has been used. Private: a seat's own hand.
Never shown to a seat or spectator: the identity or order of any card in a deck, the reserve,
another hand, under a pile top or in the scored pile. The open view (``open_body``, for replays
of finished games) adds every hand.
"""

from __future__ import annotations

from rules.contract import View
from rules.warp99.rulecards import RULE_CARDS
from rules.warp99.state import TARGET, State


def seat_view(state: State, seat: int | None) -> View:
    return hand_view(public_view(state), state, seat)


def hand_view(public: View, state: State, seat: int | None) -> View:
    """``public`` (shared, not copied deeply) plus what only ``seat`` may see."""
    view = dict(public)
    view["hand"] = None if seat is None else list(state.hands[seat])
    return view


def open_body(state: State) -> View:
    """The open view's body (docs/rules/warp99.md, "The open view"): the spectator's, plus every
    seat's hand (``hands``: per seat, its card ids, sorted). The decks, the reserve and the cards
    under the pile tops or in the scored pile stay counted only: no seat holds them."""
    view = hand_view(public_view(state), state, None)
    view["hands"] = [list(hand) for hand in state.hands]
    return view


def public_view(state: State) -> View:
    """Everything every seat and spectator sees alike, in the compact wire form
    (docs/rules/warp99.md, "The view on the wire"): a card is its id, and each per-player fact
    is one list with an entry per seat."""
    return {
        "target": TARGET,
        "turn": state.turn,
        "step": state.step.value,
        "flip_used": state.flip_used,
        "played_to_pile": state.played_to_pile,
        # The face-up rule of each rule card, by key (which side that is, the key says).
        "rules": [RULE_CARDS[i][side - 1].value for i, side in enumerate(state.sides)],
        "piles": [{"top": p[-1], "size": len(p)} for p in state.piles],
        "reserve_size": len(state.reserve),
        "scored_size": len(state.scored),
        "rows": [list(row) for row in state.rows],
        "scores": list(state.scores),
        "hand_sizes": [len(hand) for hand in state.hands],
        "deck_sizes": [len(deck) for deck in state.decks],
        # R11: whether each deck scores 15 when it runs out (it was dealt as a full 15).
        "deck_full": [
            bool(state.decks[s]) and s not in state.short_decks for s in range(state.seats)
        ],
        "winner": state.winner,
    }

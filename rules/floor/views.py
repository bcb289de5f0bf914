"""What one seat (or a spectator) sees of a Floor table.

Public: hand sizes, the floor, the top card, the direction, whatever is pending and who must
answer it, and the sizes of the piles. Private: the cards in a hand (only its owner sees them)
and the order of the piles (nobody does). A card is its id (``rules/floor/cards.py``), as in
actions and events: the wire form of docs/rules/floor.md, "What a player sees". The open view
(``open_body``, for replays of finished games) adds every hand.
"""

from __future__ import annotations

from typing import Any

from rules.floor.options import grabbable
from rules.floor.state import Phase, State


def _pending(state: State) -> dict[str, Any] | None:
    if state.phase is Phase.FREEZE:
        return {"kind": "freeze", "seat": state.turn, "by": state.by}
    if state.phase is Phase.TAKE:
        return {"kind": "take", "seat": state.turn, "by": state.by, "stack": state.stack}
    if state.phase is Phase.CHARGED:
        return {"kind": "charged_swap", "seat": state.turn, "by": state.by}
    return None


def public_view(state: State) -> dict[str, Any]:
    """Everything every seat sees alike."""
    shape = state.floor_shape
    return {
        "phase": state.phase.value,
        "turn": None if state.phase is Phase.OVER else state.turn,
        "direction": state.direction,
        "hand": None,
        "hand_sizes": [len(hand) for hand in state.hands],
        "floor": {
            "shape": None if shape is None else shape.value,
            "number": state.floor_number,
        },
        "top": state.discard[-1] if state.discard else None,
        "pending": _pending(state),
        "opener_grabbable": state.opening and grabbable(state.discard[-1]),
        "draw_size": len(state.draw),
        "discard_size": len(state.discard),
        "passes": state.passes,
    }


def with_hand(public: dict[str, Any], state: State, seat: int | None) -> dict[str, Any]:
    """``seat``'s view from the shared part: a shallow copy plus its own hand."""
    view = dict(public)
    if seat is not None:
        view["hand"] = list(state.hands[seat])
    return view


def seat_view(state: State, seat: int | None) -> dict[str, Any]:
    return with_hand(public_view(state), state, seat)


def open_body(state: State) -> dict[str, Any]:
    """The open view's body (docs/rules/floor.md, "The open view"): the spectator's, plus every
    seat's hand (``hands``: per seat, its card ids, sorted). The piles stay counted only: no seat
    holds them, and nobody sees their order."""
    view = public_view(state)
    view["hands"] = [list(hand) for hand in state.hands]
    return view

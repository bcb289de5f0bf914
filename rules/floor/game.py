"""Floor on the rules contract: setup, whose move it is, and the wiring of the other modules.

The rules themselves are in :mod:`rules.floor.moves` (what an action does and why it may be
refused) and :mod:`rules.floor.options` (what a seat may do); ``docs/rules/floor.md`` explains
them, and ``tests/rules/floor`` pins each one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.contract import DEFAULT_BOT_LEVEL, Event, Game, GameOptions, Result, View
from rules.floor import moves
from rules.floor.actions import Action, AnyAction
from rules.floor.cards import CARDS, DECK, Kind
from rules.floor.options import expand, options, to_wire
from rules.floor.policy import choose
from rules.floor.state import Phase, State
from rules.floor.table import MOVE_BOUND
from rules.floor.views import open_body, public_view, seat_view, with_hand
from rules.rng import Rng

HAND_SIZE = 7


class FloorOptions(GameOptions):
    """Floor has no options yet."""


def deal(seats: int, seed: int) -> State:
    """Shuffle, deal 7 each, turn up the opener; seat 0 starts, play goes up the seats."""
    # R2: hands of 7, and one card turned up as the opener.
    deck, rng = Rng.from_seed(seed).shuffle(DECK)
    hands = tuple(
        tuple(sorted(deck[-HAND_SIZE * (s + 1) : len(deck) - HAND_SIZE * s])) for s in range(seats)
    )
    rest = deck[: len(deck) - HAND_SIZE * seats]
    opener = CARDS[rest[-1]]
    # R3: a Number opener sets the whole floor; a Freeze or Take only the shape (it hits
    # nobody); an Operation, Power or Swap leaves the floor open.
    shape = opener.shape if opener.kind in (Kind.NUMBER, Kind.FREEZE, Kind.TAKE) else None
    number = opener.value if opener.kind is Kind.NUMBER else None
    return State(
        seats=seats,
        rng=rng,
        phase=Phase.PLAY,
        hands=hands,
        draw=rest[:-1],
        discard=rest[-1:],
        floor_shape=shape,
        floor_number=number,
        turn=0,
        direction=1,
        stack=0,
        by=None,
        opening=True,
        passes=0,
        outcome=None,
    )


class Floor(Game[State, AnyAction]):
    id = "floor"
    name = "Floor"
    summary = (
        "Shed your hand onto the floor: match its shape, hit its number with sums and "
        "Operations, and hit back with Freeze, Take, Swap and Power."
    )
    min_seats = 2
    max_seats = 8
    options_model = FloorOptions
    state_type = State
    action_type = Action
    move_bound = MOVE_BOUND

    def initial_state(self, seats: int, options: Any, seed: int) -> State:
        return deal(seats, seed)

    def seat_count(self, state: State) -> int:
        return state.seats

    def to_act(self, state: State) -> frozenset[int]:
        if state.phase is Phase.OVER:
            return frozenset()
        return frozenset((state.turn,))

    def waiting_reason(self, state: State, seat: int) -> str:
        who = f"seat {state.turn + 1}"
        if state.phase is Phase.FREEZE:
            return f"It is not your turn: {who} must answer a Freeze"
        if state.phase is Phase.TAKE:
            return f"It is not your turn: {who} must stack a Take or draw {state.stack}"
        if state.phase is Phase.CHARGED:
            return f"It is not your turn: {who} may reverse a charged Swap back"
        return f"It is not your turn: it is {who}'s turn"

    def legal_actions(self, state: State, seat: int) -> list[AnyAction]:
        return expand(options(state, seat))

    def legal_view(self, state: State, seat: int) -> list[dict[str, Any]]:
        return to_wire(options(state, seat), state.floor_number)

    def apply_action(self, state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
        return moves.apply_action(state, seat, action)

    def seat_view(self, state: State, seat: int | None) -> View:
        return seat_view(state, seat)

    def seat_views(self, state: State, seats: Sequence[int | None]) -> list[View]:
        # Only the hand differs between seats: build the public part once.
        public = public_view(state)
        return [with_hand(public, state, seat) for seat in seats]

    def open_body(self, state: State) -> View:
        return open_body(state)

    def bot_action(
        self, state: State, seat: int, rng: Rng, level: str = DEFAULT_BOT_LEVEL
    ) -> AnyAction:
        return choose(state, seat, rng, level)

    def result(self, state: State) -> Result | None:
        return state.outcome

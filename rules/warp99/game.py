"""Warp 99 on the rules contract: setup, whose move it is, apply, views and the result.

The rules themselves live in ``turn.py`` (the three steps) and ``table.py`` (the card supply and
scoring); ``docs/rules/warp99.md`` explains them and ``tests/rules/warp99`` pins each one.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from rules.contract import DEFAULT_BOT_LEVEL, Event, Game, Result, View, places_from_scores
from rules.rng import Rng
from rules.warp99 import turn, views
from rules.warp99.actions import Action, AnyAction
from rules.warp99.cards import ALL_CARDS
from rules.warp99.policy import choose
from rules.warp99.rulecards import START_SIDES
from rules.warp99.state import (
    DECK_SIZE,
    HAND_SIZE,
    MOVE_BOUND,
    TARGET,
    State,
    Step,
    Warp99Options,
    is_over,
)
from rules.warp99.table import GameWon, Table


def deal(seats: int, random_start_sides: bool, seed: int) -> State:
    """The printed setup: decks of 15, hands of 6 from them, two pile cards off the reserve."""
    # R2: the setup as printed, and the random start sides of the variant.
    rng = Rng.from_seed(seed)
    cards, rng = rng.shuffle(ALL_CARDS)
    decks = [cards[s * DECK_SIZE : (s + 1) * DECK_SIZE] for s in range(seats)]
    reserve = cards[seats * DECK_SIZE :]
    hands = tuple(tuple(sorted(deck[-HAND_SIZE:])) for deck in decks)
    decks = [deck[:-HAND_SIZE] for deck in decks]
    piles = ((reserve[-1],), (reserve[-2],))
    reserve = reserve[:-2]
    sides = START_SIDES
    if random_start_sides:
        flips, rng = rng.below(8)
        sides = (1 + (flips & 1), 1 + (flips >> 1 & 1), 1 + (flips >> 2 & 1))
    return State(
        seats=seats,
        rng=rng,
        turn=0,
        step=Step.A,
        # R3: seat 1 (the first player) starts on 0, each later seat one point more.
        scores=tuple(range(seats)),
        decks=tuple(decks),
        hands=hands,
        rows=((),) * seats,
        piles=piles,
        reserve=reserve,
        scored=(),
        sides=sides,
        flip_used=False,
        played_to_pile=False,
        winner=None,
    )


class Warp99(Game[State, AnyAction]):
    id = "warp99"
    name = "Warp 99"
    summary = (
        "Race to 99: build a rising row of colours, chain cards onto two shared piles under "
        "three rule cards, and burn through your deck for 15 points a time."
    )
    min_seats = 2
    max_seats = 6
    options_model = Warp99Options
    state_type = State
    action_type = Action
    move_bound = MOVE_BOUND

    def initial_state(self, seats: int, options: Any, seed: int) -> State:
        return deal(seats, options.random_start_sides, seed)

    def seat_count(self, state: State) -> int:
        return state.seats

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if is_over(state) else frozenset((state.turn,))

    def waiting_reason(self, state: State, seat: int) -> str:
        return f"It is seat {state.turn + 1}'s turn"

    def legal_actions(self, state: State, seat: int) -> list[AnyAction]:
        return turn.legal_actions(state, seat)

    def legal_view(self, state: State, seat: int) -> list[dict[str, Any]]:
        return turn.legal_dicts(state, seat)

    def apply_action(self, state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
        table = Table(state)
        # R9: a win stops everything at that moment, even halfway through a draw.
        with suppress(GameWon):
            turn.perform(state, table, seat, action)
        table.moves += 1
        after = table.freeze()
        if after.winner is None and is_over(after):
            # Platform ruling (move bound): the game ends where it stands (see result).
            result = self.result(after)
            assert result is not None
            table.events.append(
                {"type": "game_over", "winners": list(result.winners), "move_bound": MOVE_BOUND}
            )
        return after, table.events

    def seat_view(self, state: State, seat: int | None) -> View:
        return views.seat_view(state, seat)

    def seat_views(self, state: State, seats: Sequence[int | None]) -> list[View]:
        # Only the hand differs between seats: build the public part once.
        public = views.public_view(state)
        return [views.hand_view(public, state, s) for s in seats]

    def open_body(self, state: State) -> View:
        return views.open_body(state)

    def bot_action(
        self, state: State, seat: int, rng: Rng, level: str = DEFAULT_BOT_LEVEL
    ) -> AnyAction:
        # Levels: strong, normal (strong with a few slips), easy; an unknown one raises.
        return choose(state, seat, rng, level)

    def result(self, state: State) -> Result | None:
        if not is_over(state):
            return None
        places = places_from_scores(state.scores, lower_is_better=False)
        if state.winner is not None:
            reason = f"Seat {state.winner + 1} reached {TARGET} points"
            return Result((state.winner,), places, state.scores, reason)
        # Platform ruling (move bound): nobody reached the target; the scores rank the players
        # as in the final standings, the highest (or every tied highest) winning.
        best = max(state.scores)
        winners = tuple(s for s, score in enumerate(state.scores) if score == best)
        reason = f"The move bound of {MOVE_BOUND:,} moves was reached: highest score wins"
        return Result(winners, places, state.scores, reason, move_bound=MOVE_BOUND)

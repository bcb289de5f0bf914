"""Today's warp99 bot, frozen as the bot ladder's named baseline ``v1`` (bench/ladder.py).

It was: A simple Warp 99 bot: long rows, bonus plays first, empty the hand, flip only to unstick.
Do not improve it: new bots are measured against it.
"""

from __future__ import annotations

from rules.evolve import replace
from rules.rng import Rng
from rules.warp99.actions import AddToRow, AnyAction, EndStep, FlipRule, PlayToPile, ScoreRow
from rules.warp99.cards import VALUE
from rules.warp99.rulecards import rules_matched
from rules.warp99.state import State, Step, is_over
from rules.warp99.turn import can_flip, pile_options, row_options

#: A row this long is cashed in rather than risked (6 cards = 36 points).
CASH_IN = 6


def choose(state: State, seat: int, rng: Rng) -> AnyAction:
    # ``rng`` is part of every policy's signature; this bot needs no chance.
    if is_over(state) or seat != state.turn:
        raise ValueError("seat may not act")
    if state.step is Step.A:
        return _action_a(state, seat)
    if state.step is Step.B:
        return _action_b(state, seat)
    return EndStep()


def _action_a(state: State, seat: int) -> AnyAction:
    row = state.rows[seat]
    fits = row_options(state, seat)
    if row and (not fits or len(row) >= CASH_IN):
        return ScoreRow()
    if not state.hands[seat]:
        return EndStep()
    # The lowest card that fits leaves the most room to grow the row.
    return AddToRow(card=min(fits, key=lambda c: VALUE[c]))


def _action_b(state: State, seat: int) -> AnyAction:
    options = pile_options(state, seat)
    if options:

        def gain(option: tuple[int, int]) -> int:
            card, pile = option
            return len(rules_matched(state.sides, state.piles[pile][-1], card))

        card, pile = max(options, key=gain)
        return PlayToPile(card=card, pile=pile)
    if can_flip(state, seat, options):
        # Turn over the rule card that frees the most plays.
        def freed(rule: int) -> int:
            sides = list(state.sides)
            sides[rule] = 3 - sides[rule]
            flipped = replace(state, sides=(sides[0], sides[1], sides[2]))
            return len(pile_options(flipped, seat))

        return FlipRule(rule=max(range(3), key=freed))
    return EndStep()

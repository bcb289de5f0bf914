"""The Warp 99 bots, from one seat's view (``bot_search.py`` explains what they see).

- ``strong``: scores the row when that wins on the spot (or lets the deck's 15 win this turn),
  searches Action B's play orders for the line that empties the hand or plays the most cards,
  picks the row card that keeps the rest of the hand playable, and flips the rule card that
  frees the best B when stuck.
- ``normal``: the same, with frequent human slips: about two row cards in five are its
  second-best, and about three B plays in ten are the best line's runner-up (never when the best
  move wins), so strong clearly outplays it at a full table.
- ``easy``: plays legal, sensible-looking moves without planning: a low row card that fits,
  then any card that fits a pile, often stopping early; scores only when forced or at six cards,
  flips a random rule card when stuck.
"""

from __future__ import annotations

from rules.contract import BOT_LEVELS
from rules.rng import Rng
from rules.warp99.actions import AddToRow, AnyAction, EndStep, FlipRule, PlayToPile, ScoreRow
from rules.warp99.bot_search import (
    WIN,
    best_flip,
    context,
    row_choices,
    search_b,
    stuck,
)
from rules.warp99.cards import VALUE
from rules.warp99.state import State, Step, is_over
from rules.warp99.turn import can_flip, pile_options, row_options

#: ``normal``'s slips, per thousand decisions: second-best row card, second-best first B play.
SLIP_A = 400
SLIP_B = 300
#: ``easy``: chance per thousand of stopping B after each play, of a random row card.
EASY_STOP = 150
EASY_RANDOM_ROW = 300
EASY_CASH_IN = 6


def choose(state: State, seat: int, rng: Rng, level: str = "strong") -> AnyAction:
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}: one of {', '.join(BOT_LEVELS)}")
    if is_over(state) or seat != state.turn:
        raise ValueError("seat may not act")
    if state.step is Step.C:
        return EndStep()
    roll, rng = rng.below(1000)
    if level == "easy":
        return _easy(state, seat, roll, rng)
    slip = level == "normal"
    if state.step is Step.A:
        return _action_a(state, seat, slip and roll < SLIP_A)
    return _action_b(state, seat, slip and roll < SLIP_B)


def _action_a(state: State, seat: int, slip: bool) -> AnyAction:
    if not state.hands[seat]:
        return ScoreRow() if state.rows[seat] else EndStep()
    choices = row_choices(state, seat)
    if not choices:
        return ScoreRow()
    pick = choices[0]
    if slip and len(choices) > 1 and pick.value < WIN and choices[1].value < WIN:
        pick = choices[1]
    if pick.score_first or pick.card is None:
        return ScoreRow()
    return AddToRow(card=pick.card)


def _action_b(state: State, seat: int, slip: bool) -> AnyAction:
    hand = state.hands[seat]
    tops = (state.piles[0][-1], state.piles[1][-1])
    ctx = context(state, seat, 0, len(state.rows[seat]))
    if can_flip(state, seat) and stuck(hand, tops, state.sides):
        value, rule = best_flip(hand, tops, state.sides, ctx)
        return FlipRule(rule=rule) if value > 0 else EndStep()
    plan = search_b(hand, tops, state.sides, ctx)
    if plan.first is None:
        return EndStep()
    if slip and plan.value < WIN:
        # Second best: the best line starting with a different card.
        others = [
            (
                search_b(
                    tuple(c for c in hand if c != card), _after(tops, card, pile), state.sides, ctx
                ).value,
                card,
                pile,
            )
            for card, pile in pile_options(state, seat)
            if (card, pile) != plan.first
        ]
        if others:
            _, card, pile = max(others)
            return PlayToPile(card=card, pile=pile)
    card, pile = plan.first
    return PlayToPile(card=card, pile=pile)


def _after(tops: tuple[int, int], card: int, pile: int) -> tuple[int, int]:
    return (card, tops[1]) if pile == 0 else (tops[0], card)


def _easy(state: State, seat: int, roll: int, rng: Rng) -> AnyAction:
    if state.step is Step.A:
        row = state.rows[seat]
        fits = row_options(state, seat)
        if row and (not fits or len(row) >= EASY_CASH_IN):
            return ScoreRow()
        if not state.hands[seat]:
            return EndStep()
        fits.sort(key=lambda c: VALUE[c])
        if roll < EASY_RANDOM_ROW:
            index, _ = rng.below(len(fits))
            return AddToRow(card=fits[index])
        return AddToRow(card=fits[0])
    options = pile_options(state, seat)
    if options:
        if state.played_to_pile and roll < EASY_STOP:
            return EndStep()
        index, _ = rng.below(len(options))
        card, pile = options[index]
        return PlayToPile(card=card, pile=pile)
    if can_flip(state, seat, options):
        rule, _ = rng.below(3)
        return FlipRule(rule=rule)
    return EndStep()

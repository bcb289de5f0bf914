"""The Warp 99 bot's planning: Action B's play orders and Action A's row card, from one seat's view.

Everything here reads only what the acting seat may see: its own hand, every row and score, the
pile tops, the rule sides, deck sizes and whether each deck was dealt full (R11), and the step
flags. Never another hand, a deck's contents or the game's rng.

Units: roughly points. Every card that leaves the hand (row or pile) is drawn back from the own
deck in C, and 15 draws from a full deck pay 15 points, so a card played is worth about 1 point.
A bonus card is an unknown card of potential (it may be played too, or may block emptying the
hand). Emptying the hand earns another Action A and B (R7). A line that reaches 99 this turn is
worth :data:`WIN`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from rules.warp99.cards import COLOUR, VALUE
from rules.warp99.rulecards import rules_matched
from rules.warp99.state import DECK_POINTS, HAND_SIZE, TARGET, State
from rules.warp99.turn import fits_row

#: A line that wins the game this turn.
WIN = 10_000.0
#: What an unknown bonus card left in hand is worth (it may be played before the turn ends).
UNKNOWN = 0.6
#: Emptying the hand: another row card and another Action B, beyond the cards already counted.
EMPTY_BASE = 5.0
#: Long-run points per row placement: what a placement spent on a row is worth elsewhere.
RATE = 4.0
#: The search expands at most this many positions per call; beyond, a position is a leaf.
NODE_BUDGET = 3_000
#: The same for all the plans of one Action A together.
A_BUDGET = 6_000


@cache
def _matches(sides: tuple[int, int, int], top: int, card: int) -> int:
    return len(rules_matched(sides, top, card))


def _extra_placements() -> tuple[tuple[float, ...], ...]:
    """``E[v][k]``: expected further cards a row ending in value ``v`` with ``k`` colours takes,
    if each turn brings six random cards and the lowest that fits is placed."""
    table = [[0.0] * 11 for _ in range(12)]
    for k in range(10, 0, -1):
        for v in range(10, -1, -1):
            total = 0.0
            # Each of 6 cards independently: value w > v in one of the 10 - k free colours.
            p_one = (10 - k) / 110
            miss_below = 1.0  # P(no card fits with a value below w)
            for w in range(v + 1, 11):
                # P(lowest fitting value is w) = P(none below w) - P(none up to w).
                none_up_to = (1 - p_one * (w - v)) ** HAND_SIZE
                p_w = miss_below - none_up_to
                miss_below = none_up_to
                total += p_w * (1 + (table[w][k + 1] if k < 10 else 0.0))
            table[v][k] = total
    return tuple(tuple(row[v] for v in range(11)) for row in table)


#: ``EXTRA[k][v]``.
_E = _extra_placements()
EXTRA: tuple[tuple[float, ...], ...] = tuple(tuple(_E[v][k] for v in range(11)) for k in range(11))


def row_worth(row: tuple[int, ...]) -> float:
    """What a row is worth from here: its expected final square, less the placements it uses."""
    if not row:
        return 0.0
    n = len(row)
    e = EXTRA[n][VALUE[row[-1]]] if n < 10 else 0.0
    return (n + e) ** 2 - RATE * e


@dataclass(frozen=True, slots=True)
class Context:
    """What a line of B play is measured against."""

    #: Cards left in the own deck (a bonus card needs one; R8's new deck is ignored).
    deck: int
    #: Emptying the deck this turn wins (it is full and 15 more points reach 99).
    deck_wins: bool
    #: Emptying the hand wins: the row, scored in the repeated Action A, reaches 99.
    empty_wins: bool
    #: Row length after this A (a repeated A may add to it).
    row_len: int
    #: The own deck was dealt short (or is owed): draws from it score nothing (R11), so a
    #: bonus card gains nothing by itself. Counting it would let the bot replay the known
    #: stall of a nearly dry supply (bonus, last card, the covered pile card back as a
    #: one-card deck, bonus again ...) until the move bound.
    short: bool = False


def context(state: State, seat: int, pending: int, row_len: int) -> Context:
    """``pending``: points scored earlier this turn that the state does not show yet."""
    score = state.scores[seat] + pending
    deck = len(state.decks[seat])
    full = deck > 0 and seat not in state.short_decks
    return Context(
        deck=deck,
        deck_wins=full and score + DECK_POINTS >= TARGET,
        empty_wins=row_len > 0 and score + row_len * row_len >= TARGET,
        row_len=row_len,
        short=not full,
    )


@dataclass(slots=True)
class Plan:
    value: float
    #: The first play of the best line, ``(card, pile)``; None: stop (end B).
    first: tuple[int, int] | None
    #: How many cards the best line plays, and whether it empties the hand.
    plays: int
    empties: bool


class Budget:
    """Positions a decision may still expand (shared by the searches of one decision)."""

    __slots__ = ("left",)

    def __init__(self, left: int = NODE_BUDGET) -> None:
        self.left = left


def search_b(
    hand: tuple[int, ...],
    tops: tuple[int, int],
    sides: tuple[int, int, int],
    ctx: Context,
    budget: Budget | None = None,
) -> Plan:
    """The best order of plays in Action B: empty the hand if any order can, else play the most
    cards with the most bonus potential. Memoised on (cards left, pile tops, bonus cards drawn);
    bounded by ``budget`` (a position beyond it counts as a stop)."""
    if budget is None:
        budget = Budget()
    n = len(hand)
    # Positions name the pile tops by index: hand cards 0..n-1, the current tops n and n+1.
    cards = (*hand, tops[0], tops[1])
    # match[t][i]: how many face-up rules hand card i follows on top t.
    match = [[_matches(sides, top, c) for c in hand] for top in cards]
    memo: dict[int, tuple[float, int, int, int, bool]] = {}
    deck = ctx.deck
    full_mask = (1 << n) - 1
    unknown_worth = 0.0 if ctx.short else UNKNOWN

    def leaf(left: int, unknown: int) -> float:
        # C draws back up to six: the turn's draws come to 6 - the known cards still held.
        if ctx.deck_wins and max(unknown, HAND_SIZE - left) >= deck:
            return WIN
        return unknown_worth * unknown

    def empty_value(unknown: int) -> float:
        if ctx.empty_wins or (ctx.deck_wins and unknown + HAND_SIZE >= deck):
            return WIN
        return EMPTY_BASE + 2 * ctx.row_len + 1

    def go(mask: int, t0: int, t1: int, unknown: int) -> tuple[float, int, int, int, bool]:
        swap = t0 > t1
        key = ((mask * 32 + unknown) * 32 + (t1 if swap else t0)) * 32 + (t0 if swap else t1)
        hit = memo.get(key)
        if hit is not None:
            if not swap or hit[1] < 0:
                return hit
            # Stored for the swapped tops: swap the pile of the first play back.
            return (hit[0], hit[1], 1 - hit[2], hit[3], hit[4])
        left = bin(mask).count("1")
        best: tuple[float, int, int, int, bool] = (leaf(left, unknown), -1, -1, 0, False)
        budget.left -= 1
        if budget.left >= 0:
            row0, row1 = match[t0], match[t1]
            for i in range(n):
                if not mask >> i & 1:
                    continue
                rest = mask & ~(1 << i)
                for pile, m in ((0, row0[i]), (1, row1[i])):
                    if not m:
                        continue
                    if left - 1 + unknown == 0:
                        value, plays, empties = 1 + empty_value(unknown), 1, True
                    else:
                        # R12: no bonus card for the last card in hand (handled above).
                        bonus = m >= 2 and unknown < deck
                        sub = (
                            go(rest, i, t1, unknown + bonus)
                            if pile == 0
                            else go(rest, t0, i, unknown + bonus)
                        )
                        value, plays, empties = 1 + sub[0], 1 + sub[3], sub[4]
                        if bonus and ctx.short:
                            # Played and drawn again: the hand is as long as before.
                            value -= 1.001
                        else:
                            # A tie goes to the play with more rules matched (bonus potential).
                            value += 0.001 * m
                    if value > best[0]:
                        best = (value, i, pile, plays, empties)
                if best[4] and best[3] == left:
                    # This line empties the hand: nothing beats it but a win, found the same way.
                    break
        stored = best
        if swap and best[1] >= 0:
            stored = (best[0], best[1], 1 - best[2], best[3], best[4])
        memo[key] = stored
        return best

    value, index, pile, plays, empties = go(full_mask, n, n + 1, 0)
    return Plan(value, None if index < 0 else (hand[index], pile), plays, empties)


def flipped(sides: tuple[int, int, int], rule: int) -> tuple[int, int, int]:
    out = list(sides)
    out[rule] = 3 - out[rule]
    return (out[0], out[1], out[2])


def stuck(hand: tuple[int, ...], tops: tuple[int, int], sides: tuple[int, int, int]) -> bool:
    return not any(_matches(sides, top, c) for c in hand for top in tops)


def best_flip(
    hand: tuple[int, ...],
    tops: tuple[int, int],
    sides: tuple[int, int, int],
    ctx: Context,
    budget: Budget | None = None,
) -> tuple[float, int]:
    """The rule card to turn over when stuck, and what B is then worth."""
    best = (-1.0, 0)
    for rule in range(3):
        value = search_b(hand, tops, flipped(sides, rule), ctx, budget).value
        if value > best[0]:
            best = (value, rule)
    return best


@dataclass(frozen=True, slots=True)
class RowChoice:
    value: float
    score_first: bool
    card: int | None


def row_choices(state: State, seat: int) -> list[RowChoice]:
    """Every Action A plan (score first or not, then which card), best first."""
    hand, row = state.hands[seat], state.rows[seat]
    score = state.scores[seat]
    tops = (state.piles[0][-1], state.piles[1][-1])
    sides = state.sides
    can_flip = not state.flip_used
    out: list[RowChoice] = []
    n = len(row)
    budget = Budget(A_BUDGET)
    options: list[bool] = [False, True] if row else [False]
    for score_first in options:
        if score_first and score + n * n >= TARGET:
            # R9: scoring the row wins on the spot.
            return [RowChoice(WIN * 2, True, None)]
        base_row: tuple[int, ...] = () if score_first else row
        pending = n * n if score_first else 0
        fits = [c for c in hand if fits_row(base_row, c)]
        if not fits and not score_first:
            continue
        for card in fits:
            new_row = (*base_row, card)
            rest = tuple(c for c in hand if c != card)
            ctx = context(state, seat, pending, len(new_row))
            if rest and can_flip and stuck(rest, tops, sides):
                b_value = best_flip(rest, tops, sides, ctx, budget)[0]
            else:
                b_value = search_b(rest, tops, sides, ctx, budget).value
            value = pending + row_worth(new_row) - row_worth(row) + b_value
            # Same value: the lower card, then the rarer colour in hand, for determinism.
            value -= 0.0001 * VALUE[card] + 0.00001 * COLOUR[card]
            out.append(RowChoice(value, score_first, card))
    out.sort(key=lambda choice: -choice.value)
    return out

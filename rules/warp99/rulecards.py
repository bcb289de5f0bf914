"""The three double-sided rule cards, and which face-up rules a card satisfies on a pile.

Rule card 0 is Same Colour / Same Number, card 1 Plus 1 / Minus 1, card 2 Total 10 /
Times or Divided by 2; side 1 (the gold side) is the first of each pair. The rulebook lists the
sides but not which rule is printed on the back of which; pairing them in the order printed is
our reading (see ``docs/rules/warp99.md``).
"""

from __future__ import annotations

from enum import StrEnum

from rules.warp99.cards import CARD_COUNT, COLOUR, VALUE


class Rule(StrEnum):
    SAME_COLOUR = "same_colour"
    SAME_NUMBER = "same_number"
    PLUS_ONE = "plus_one"
    MINUS_ONE = "minus_one"
    TOTAL_TEN = "total_ten"
    DOUBLE_OR_HALF = "double_or_half"


RULE_NAMES: dict[Rule, str] = {
    Rule.SAME_COLOUR: "Same Colour",
    Rule.SAME_NUMBER: "Same Number",
    Rule.PLUS_ONE: "Plus 1",
    Rule.MINUS_ONE: "Minus 1",
    Rule.TOTAL_TEN: "Total 10",
    Rule.DOUBLE_OR_HALF: "Times or Divided by 2",
}

#: ``RULE_CARDS[i][side - 1]`` is the rule on that side of rule card ``i``.
RULE_CARDS: tuple[tuple[Rule, Rule], ...] = (
    (Rule.SAME_COLOUR, Rule.SAME_NUMBER),
    (Rule.PLUS_ONE, Rule.MINUS_ONE),
    (Rule.TOTAL_TEN, Rule.DOUBLE_OR_HALF),
)
# R2: the rule cards start on side 1 (Same Colour, Plus 1, Total 10).
START_SIDES: tuple[int, int, int] = (1, 1, 1)


def satisfies(rule: Rule, top: int, card: int) -> bool:
    """Whether playing ``card`` on a pile showing ``top`` follows ``rule``."""
    # R10: what each rule means, to the edge cases.
    t, c = VALUE[top], VALUE[card]
    if rule is Rule.SAME_COLOUR:
        return COLOUR[card] == COLOUR[top]
    if rule is Rule.SAME_NUMBER:
        return c == t
    # No wrap-around: nothing is one above a 10 or one below a 0.
    if rule is Rule.PLUS_ONE:
        return c == t + 1
    if rule is Rule.MINUS_ONE:
        return c == t - 1
    if rule is Rule.TOTAL_TEN:
        return c + t == 10
    # Doubling or halving into a whole number; 0 on 0 is both.
    return c == 2 * t or 2 * c == t


# Legal-move listing asks this for every hand card on both piles after every action, so the
# answers are tabulated once: _TABLE[rule][top] is the set of cards that follow the rule.
_TABLE: dict[Rule, tuple[frozenset[int], ...]] = {
    rule: tuple(
        frozenset(c for c in range(CARD_COUNT) if satisfies(rule, top, c))
        for top in range(CARD_COUNT)
    )
    for rule in Rule
}


def face_up(sides: tuple[int, ...]) -> tuple[Rule, ...]:
    """The rules showing, one per rule card."""
    return tuple(RULE_CARDS[i][side - 1] for i, side in enumerate(sides))


def rules_matched(sides: tuple[int, ...], top: int, card: int) -> tuple[Rule, ...]:
    """The face-up rules that ``card`` follows on ``top`` (two or more earn a bonus card)."""
    # R5: only the face-up side of each rule card counts.
    return tuple(
        rule for i, side in enumerate(sides) if card in _TABLE[rule := RULE_CARDS[i][side - 1]][top]
    )


def playable(sides: tuple[int, ...], top: int, card: int) -> bool:
    return any(card in _TABLE[RULE_CARDS[i][side - 1]][top] for i, side in enumerate(sides))

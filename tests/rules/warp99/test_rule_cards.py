"""The six rules on the three double-sided rule cards, with every edge case."""

from __future__ import annotations

import pytest

from rules.errors import IllegalAction
from rules.warp99.cards import card
from rules.warp99.rulecards import Rule, face_up, rules_matched, satisfies
from rules.warp99.state import Step
from tests.rules.warp99.helpers import act, cards, legal, position


def values_allowed(rule: Rule, top: int) -> set[int]:
    """Values of gray cards that follow ``rule`` on a red card of value ``top``."""
    return {v for v in range(11) if satisfies(rule, card("red", top), card("gray", v))}


def test_the_rule_cards_show_same_colour_plus_one_total_ten_on_side_1() -> None:
    """R2: side 1 shows Same Colour, Plus 1 and Total 10."""
    assert face_up((1, 1, 1)) == (Rule.SAME_COLOUR, Rule.PLUS_ONE, Rule.TOTAL_TEN)


def test_the_rule_cards_show_same_number_minus_one_double_or_half_on_side_2() -> None:
    assert face_up((2, 2, 2)) == (Rule.SAME_NUMBER, Rule.MINUS_ONE, Rule.DOUBLE_OR_HALF)
    assert face_up((1, 2, 1)) == (Rule.SAME_COLOUR, Rule.MINUS_ONE, Rule.TOTAL_TEN)


def test_same_colour_means_the_colour_of_the_top_card() -> None:
    """R10: Same Colour is the colour of the top card."""
    assert satisfies(Rule.SAME_COLOUR, card("purple", 9), card("purple", 2))
    assert not satisfies(Rule.SAME_COLOUR, card("purple", 9), card("pink", 9))


def test_same_number_means_the_value_of_the_top_card() -> None:
    """R10: Same Number is the value of the top card."""
    assert satisfies(Rule.SAME_NUMBER, card("purple", 9), card("yellow", 9))
    assert not satisfies(Rule.SAME_NUMBER, card("purple", 9), card("purple", 8))


def test_plus_one_means_exactly_one_higher() -> None:
    """R10: Plus 1 is exactly one higher."""
    assert values_allowed(Rule.PLUS_ONE, 7) == {8}
    assert values_allowed(Rule.PLUS_ONE, 0) == {1}


def test_plus_one_is_impossible_on_ten() -> None:
    """R10: Plus 1 is impossible on a 10."""
    assert values_allowed(Rule.PLUS_ONE, 10) == set()


def test_minus_one_means_exactly_one_lower() -> None:
    """R10: Minus 1 is exactly one lower."""
    assert values_allowed(Rule.MINUS_ONE, 9) == {8}
    assert values_allowed(Rule.MINUS_ONE, 1) == {0}


def test_minus_one_is_impossible_on_zero() -> None:
    """R10: Minus 1 is impossible on a 0."""
    assert values_allowed(Rule.MINUS_ONE, 0) == set()


def test_total_ten_means_card_plus_top_is_ten() -> None:
    """R10: Total 10 is card + top = 10."""
    assert values_allowed(Rule.TOTAL_TEN, 2) == {8}
    assert values_allowed(Rule.TOTAL_TEN, 5) == {5}


def test_total_ten_with_zero_and_ten() -> None:
    """R10: 0 and 10 make Total 10."""
    assert values_allowed(Rule.TOTAL_TEN, 10) == {0}
    assert values_allowed(Rule.TOTAL_TEN, 0) == {10}


def test_times_or_divided_by_two_doubles_or_halves_the_top() -> None:
    """R10: card = 2 x top, or 2 x card = top."""
    assert values_allowed(Rule.DOUBLE_OR_HALF, 5) == {10}
    assert values_allowed(Rule.DOUBLE_OR_HALF, 1) == {2}
    assert values_allowed(Rule.DOUBLE_OR_HALF, 6) == {3}
    assert values_allowed(Rule.DOUBLE_OR_HALF, 4) == {2, 8}


def test_halving_an_odd_number_is_impossible() -> None:
    """R10: an odd top can only be doubled."""
    assert values_allowed(Rule.DOUBLE_OR_HALF, 7) == set()  # 3.5 is not a card; 14 is too high
    assert values_allowed(Rule.DOUBLE_OR_HALF, 3) == {6}  # doubling still works


def test_zero_on_zero_doubles_and_halves() -> None:
    """R10: 0 on 0 qualifies."""
    assert values_allowed(Rule.DOUBLE_OR_HALF, 0) == {0}


@pytest.mark.parametrize("top", range(11))
def test_nothing_wraps_around_between_ten_and_zero(top: int) -> None:
    """R10: no wrap-around between 10 and 0."""
    assert all(abs(v - top) == 1 for v in values_allowed(Rule.PLUS_ONE, top))
    assert all(abs(v - top) == 1 for v in values_allowed(Rule.MINUS_ONE, top))


def test_only_face_up_rules_count() -> None:
    """R5: only face-up rules count."""
    # Red 4 on red 6: Same Colour and Total 10 on side 1; with Total 10 turned over only one.
    top, played = cards("red 6", "red 4")
    assert rules_matched((1, 1, 1), top, played) == (Rule.SAME_COLOUR, Rule.TOTAL_TEN)
    assert rules_matched((1, 1, 2), top, played) == (Rule.SAME_COLOUR,)
    assert rules_matched((2, 2, 2), top, played) == ()


def test_a_card_must_follow_a_face_up_rule_on_the_chosen_pile() -> None:
    """R5: a card must follow a face-up rule on its pile."""
    # Yellow 3 follows Total 10 on the green 7 but nothing on the blue 0 (Plus 1 would need a 1).
    state = position(hand=["yellow 3", "tan 10"], tops=("green 7", "blue 0"), step=Step.B)
    assert {"type": "play_to_pile", "card": card("yellow", 3), "pile": 0} in legal(state)
    assert {"type": "play_to_pile", "card": card("yellow", 3), "pile": 1} not in legal(state)
    with pytest.raises(IllegalAction):
        act(state, {"type": "play_to_pile", "card": card("yellow", 3), "pile": 1})


def test_face_down_rules_do_not_allow_a_card() -> None:
    """R5: a face-down rule allows nothing."""
    # Blue 6 on green 7 is Minus 1, which is on the back of Plus 1.
    state = position(hand=["blue 6"], tops=("green 7", "green 8"), step=Step.B)
    with pytest.raises(IllegalAction):
        act(state, {"type": "play_to_pile", "card": card("blue", 6), "pile": 0})
    flipped = position(hand=["blue 6"], tops=("green 7", "green 8"), step=Step.B, sides=(1, 2, 1))
    after, _ = act(flipped, {"type": "play_to_pile", "card": card("blue", 6), "pile": 0})
    assert after.piles[0][-1] == card("blue", 6)

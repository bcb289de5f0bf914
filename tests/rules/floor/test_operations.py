"""Ruling 7: an Operation is played with the Number resolving it; the result wraps at 10."""

from itertools import combinations

import pytest

from rules.errors import IllegalAction
from rules.floor.cards import SHAPES, Op, operate
from rules.floor.state import Phase
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    act,
    add,
    check_accepted_iff_listed,
    freeze,
    legal,
    mul,
    num,
    position,
    refused,
    sub,
)


@pytest.mark.parametrize(
    ("op_card", "floor", "operand", "result"),
    [
        (add(), 7, 8, 5),  # 15 -> 5
        (add(), 2, 3, 5),
        (sub(), 3, 8, 5),  # -5 -> 5: Subtract wraps, never negative
        (sub(), 0, 9, 1),  # -9 -> 1
        (sub(), 9, 4, 5),
        (mul(), 7, 8, 6),  # 56 -> 6
        (mul(), 5, 0, 0),
    ],
)
def test_ruling_7_result_is_the_ones_digit_for_all_three_operations(
    op_card: int, floor: int, operand: int, result: int
) -> None:
    """R7: the result is (Floor op operand) mod 10."""
    hand = [op_card, num(TRIANGLE, operand), num(CIRCLE, 1)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=floor)
    after, events = act(
        state, 0, {"type": "operation", "card": op_card, "operand": num(TRIANGLE, operand)}
    )
    assert after.floor_number == result
    assert after.floor_shape is TRIANGLE, "the resolving Number's shape becomes the floor's"
    assert after.discard[-2:] == (op_card, num(TRIANGLE, operand))
    assert events[0]["floor"] == {"shape": "triangle", "number": result}


def test_ruling_7_operate_wraps_every_combination_into_0_to_9() -> None:
    """R7: always 0 to 9."""
    for floor in range(10):
        for n in range(10):
            assert operate(Op.ADD, floor, n) == (floor + n) % 10
            assert operate(Op.SUBTRACT, floor, n) == (floor - n + 10) % 10
            assert operate(Op.MULTIPLY, floor, n) == (floor * n) % 10


def test_ruling_7_the_operand_may_be_any_shape() -> None:
    """R7: the operand may be any shape."""
    state = position(
        [[add(), num(SQUARE, 1), num(STAR, 2)], [num(STAR, 1)]], shape=CIRCLE, number=4
    )
    after, _ = act(state, 0, {"type": "operation", "card": add(), "operand": num(SQUARE, 1)})
    assert (after.floor_shape, after.floor_number) == (SQUARE, 5)


def test_ruling_7_numbers_riding_along_must_sum_to_the_result() -> None:
    """R7: one or two riders that sum to the result leave with it."""
    # 4 + 3 = 7: riders 2 + 5 make 7 and leave with it.
    hand = [add(), num(CIRCLE, 3), num(STAR, 2), num(SQUARE, 5), num(TRIANGLE, 9)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=4)
    action = {
        "type": "operation",
        "card": add(),
        "operand": num(CIRCLE, 3),
        "riders": [num(STAR, 2), num(SQUARE, 5)],
        "shape": "square",
    }
    after, _ = act(state, 0, action)
    assert (after.floor_shape, after.floor_number) == (SQUARE, 7)
    assert after.hands[0] == (num(TRIANGLE, 9),)
    # One rider equal to the result also rides.
    after, _ = act(
        position(
            [[add(), num(CIRCLE, 3), num(TRIANGLE, 7), num(STAR, 0)], [num(STAR, 1)]],
            shape=CIRCLE,
            number=4,
        ),
        0,
        {
            "type": "operation",
            "card": add(),
            "operand": num(CIRCLE, 3),
            "riders": [num(TRIANGLE, 7)],
            "shape": "triangle",
        },
    )
    assert (after.floor_shape, after.floor_number) == (TRIANGLE, 7)


def test_not_allowed_riders_not_summing_to_the_operation_result() -> None:
    """R7: riders must sum to the result exactly."""
    hand = [add(), num(CIRCLE, 3), num(STAR, 2), num(SQUARE, 6)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=4)
    refused(
        state,
        0,
        {
            "type": "operation",
            "card": add(),
            "operand": num(CIRCLE, 3),
            "riders": [num(STAR, 2), num(SQUARE, 6)],
            "shape": "star",
        },
        IllegalAction,
        "add up to its result (7)",
    )


def test_ruling_7_at_most_two_riders() -> None:
    """R7: at most two riders."""
    hand = [add(), num(CIRCLE, 3), num(STAR, 2), num(SQUARE, 4), num(TRIANGLE, 1), num(STAR, 9)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=4)
    riders = [num(STAR, 2), num(SQUARE, 4), num(TRIANGLE, 1)]
    refused(
        state,
        0,
        {
            "type": "operation",
            "card": add(),
            "operand": num(CIRCLE, 3),
            "riders": riders,
            "shape": "star",
        },
        IllegalAction,
        "At most two",
    )


def test_ruling_7_the_player_names_the_shape_among_operand_and_riders() -> None:
    """R7: the player names the new Floor Shape among the played Numbers."""
    hand = [mul(), num(CIRCLE, 3), num(STAR, 2), num(SQUARE, 9)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=4)  # 4 * 3 = 12 -> 2
    base = {"type": "operation", "card": mul(), "operand": num(CIRCLE, 3), "riders": [num(STAR, 2)]}
    refused(state, 0, base, IllegalAction, "Name the new Floor Shape")
    refused(state, 0, {**base, "shape": "square"}, IllegalAction, "not square")
    after, _ = act(state, 0, {**base, "shape": "star"})
    assert (after.floor_shape, after.floor_number) == (STAR, 2)


def test_ruling_7_an_operation_needs_an_established_floor_number() -> None:
    """R7: an Operation needs an established Floor Number."""
    state = position([[add(), num(CIRCLE, 3), num(STAR, 2)], [num(STAR, 1)]], shape=CIRCLE)
    refused(
        state,
        0,
        {"type": "operation", "card": add(), "operand": num(CIRCLE, 3)},
        IllegalAction,
        "needs a Floor Number",
    )
    assert not [a for a in legal(state, 0) if a["type"] == "operation"]


def test_not_allowed_play_an_operation_without_resolving_it_with_a_number() -> None:
    """R7: an Operation is played with the Number resolving it."""
    state = position([[add(), num(CIRCLE, 3)], [num(STAR, 1)]], shape=CIRCLE, number=4)
    refused(state, 0, {"type": "operation", "card": add()}, IllegalAction, "resolved at once")
    refused(
        state,
        0,
        {"type": "operation", "card": add(), "operand": freeze(CIRCLE)},
        IllegalAction,
        "cannot resolve an Operation",
    )


def test_not_allowed_chain_multiple_operations_in_one_turn() -> None:
    """R7: one Operation per turn."""
    hand = [add(), sub(), num(CIRCLE, 3), num(STAR, 2)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=4)
    refused(
        state,
        0,
        {"type": "operation", "card": add(), "operand": sub()},
        IllegalAction,
        "one Operation per turn",
    )
    refused(
        state,
        0,
        {"type": "operation", "card": add(), "operand": num(CIRCLE, 3), "riders": [sub()]},
        IllegalAction,
        "one Operation per turn",
    )
    # After one Operation the turn is over: the same seat cannot follow with the second one.
    after, _ = act(state, 0, {"type": "operation", "card": add(), "operand": num(CIRCLE, 3)})
    assert after.turn == 1


def test_not_allowed_play_operations_as_your_last_card() -> None:
    """R7: an Operation is never the last card; only Operations: draw."""
    state = position([[add(), sub(), mul(1)], [num(STAR, 1)]], shape=CIRCLE, number=4)
    refused(
        state, 0, {"type": "operation", "card": add()}, IllegalAction, "never be your last card"
    )
    assert legal(state, 0) == [{"type": "draw"}], "a hand of only Operations must draw"


def test_ruling_7_operation_with_its_number_may_empty_the_hand() -> None:
    """R7: it is the Number, not the Operation, that leaves last."""
    # Our reading: the Operation goes down first and its Number last, so it is not the last card.
    state = position([[add(), num(STAR, 3)], [num(STAR, 1)]], shape=CIRCLE, number=4)
    after, _ = act(state, 0, {"type": "operation", "card": add(), "operand": num(STAR, 3)})
    assert after.phase is Phase.OVER and after.outcome is not None
    assert after.outcome.winners == (0,)
    assert after.discard[-1] == num(STAR, 3)


def test_operation_opponent_cannot_interfere_it_resolves_in_the_same_move() -> None:
    """R7: played together with its resolution, in one move."""
    # There is no moment between playing an Operation and resolving it: one action does both,
    # and the next seat acts only on the resolved floor.
    state = position(
        [[mul(), num(STAR, 4), num(CIRCLE, 1)], [num(STAR, 1)]], shape=CIRCLE, number=3
    )
    after, events = act(state, 0, {"type": "operation", "card": mul(), "operand": num(STAR, 4)})
    assert (after.phase, after.turn, after.floor_number, after.floor_shape) == (
        Phase.PLAY,
        1,
        2,
        STAR,
    )
    assert [e["type"] for e in events] == ["played_operation", "turn"]


def test_an_operation_event_says_the_floor_number_it_was_played_on() -> None:
    """A client says "3 times 4 = 12 → 2" from the event alone: the Floor Number before the
    Operation is public, and a Multiply's result does not tell it (3 times 4 and 8 times 4 both end
    in 2)."""
    state = position(
        [[mul(), num(STAR, 4), num(CIRCLE, 1)], [num(STAR, 1)]], shape=CIRCLE, number=3
    )
    _, events = act(state, 0, {"type": "operation", "card": mul(), "operand": num(STAR, 4)})
    played = events[0]
    assert (played["from"], played["floor"]["number"]) == (3, 2)


def test_ruling_7_every_operation_spelling_is_accepted_iff_listed() -> None:
    """R7: every Operation move is accepted exactly when it is listed."""
    # Exhaustive over one rich hand: operand, 0..3 riders, every shape.
    numbers = [
        num(CIRCLE, 3),
        num(STAR, 8),
        num(SQUARE, 9),
        num(TRIANGLE, 2),
        num(STAR, 3),
        num(SQUARE, 4),
        num(CIRCLE, 0),
        num(TRIANGLE, 9),
    ]
    for floor in (4, 7, 9):
        state = position([[add(), mul(), *numbers], [num(STAR, 1)]], shape=CIRCLE, number=floor)
        check_accepted_iff_listed(
            state,
            0,
            (
                {
                    "type": "operation",
                    "card": op,
                    "operand": operand,
                    "riders": sorted(riders),
                    "shape": shape.value,
                }
                for op in (add(), mul())
                for operand in numbers
                for k in range(4)
                for riders in combinations([n for n in numbers if n != operand], k)
                for shape in SHAPES
            ),
        )

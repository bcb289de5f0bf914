"""Rulings 4 to 6: a turn is a play or a draw; single Numbers by shape; sums of two or three."""

from itertools import combinations

from rules.errors import IllegalAction
from rules.floor.cards import SHAPES
from rules.floor.state import Phase
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    act,
    check_accepted_iff_listed,
    legal,
    num,
    position,
    refused,
)


def test_ruling_4_drawing_is_always_allowed_and_ends_the_turn() -> None:
    """R4: drawing is always allowed and ends the turn."""
    # Seat 0 could play its circle 5, and may draw anyway.
    state = position([[num(CIRCLE, 5)], [num(STAR, 1)], [num(STAR, 2)]], shape=CIRCLE, number=3)
    assert {"type": "draw"} in legal(state, 0)
    top = state.draw[-1]
    after, events = act(state, 0, {"type": "draw"})
    assert after.hands[0] == tuple(sorted((num(CIRCLE, 5), top)))
    assert after.turn == 1
    assert {"type": "drew", "seat": 0, "count": 1, "bottom": False} in events


def test_ruling_4_one_play_per_turn_then_the_next_seat() -> None:
    """R4: one play, then the next seat."""
    state = position(
        [[num(CIRCLE, 5), num(CIRCLE, 6)], [num(STAR, 1)], [num(STAR, 2)]], shape=CIRCLE, number=3
    )
    after, _ = act(state, 0, {"type": "number", "cards": [num(CIRCLE, 5)]})
    assert after.turn == 1
    assert after.hands[0] == (num(CIRCLE, 6),)


def test_ruling_5_single_number_must_match_the_floor_shape() -> None:
    """R5: a single Number must match the Floor Shape."""
    state = position([[num(STAR, 3), num(CIRCLE, 3)], [num(STAR, 1)]], shape=CIRCLE, number=3)
    refused(
        state, 0, {"type": "number", "cards": [num(STAR, 3)]}, IllegalAction, "Floor Shape (circle)"
    )
    assert {"type": "number", "cards": [num(STAR, 3)], "shape": "star"} not in legal(state, 0)


def test_ruling_5_single_number_sets_the_floor_number_whatever_its_value() -> None:
    """R5: it sets the Floor Number, whatever its value."""
    state = position([[num(CIRCLE, 9), num(STAR, 1)], [num(STAR, 1, 1)]], shape=CIRCLE, number=2)
    after, events = act(state, 0, {"type": "number", "cards": [num(CIRCLE, 9)]})
    assert (after.floor_shape, after.floor_number) == (CIRCLE, 9)
    assert after.discard[-1] == num(CIRCLE, 9)
    assert events[0]["floor"] == {"shape": "circle", "number": 9}


def test_ruling_6_two_numbers_summing_to_the_floor_number_any_shapes() -> None:
    """R6: two Numbers of any shapes summing to the Floor Number; it stays."""
    hand = [num(STAR, 3), num(TRIANGLE, 4), num(SQUARE, 0)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=7)
    after, _ = act(
        state, 0, {"type": "number", "cards": [num(STAR, 3), num(TRIANGLE, 4)], "shape": "triangle"}
    )
    assert (after.floor_shape, after.floor_number) == (TRIANGLE, 7), "the number stays"
    assert after.discard[-1] == num(TRIANGLE, 4), "a card of the named shape lies on top"
    assert after.hands[0] == (num(SQUARE, 0),)


def test_ruling_6_three_numbers_summing_to_the_floor_number() -> None:
    """R6: or three."""
    hand = [num(STAR, 3), num(TRIANGLE, 4), num(SQUARE, 0), num(CIRCLE, 8)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=7)
    cards = [num(STAR, 3), num(TRIANGLE, 4), num(SQUARE, 0)]
    after, _ = act(state, 0, {"type": "number", "cards": cards, "shape": "square"})
    assert (after.floor_shape, after.floor_number) == (SQUARE, 7)
    assert after.hands[0] == (num(CIRCLE, 8),)


def test_ruling_6_three_equal_values_make_a_triple() -> None:
    """R6: three equal values make a triple too."""
    state = position(
        [[num(STAR, 1), num(CIRCLE, 1), num(SQUARE, 1), num(STAR, 9)], [num(STAR, 5)]],
        shape=CIRCLE,
        number=3,
    )
    assert {
        "type": "number",
        "cards": sorted([num(STAR, 1), num(CIRCLE, 1), num(SQUARE, 1)]),
        "shape": "square",
    } in legal(state, 0)


def test_not_allowed_play_multiple_numbers_unless_their_sum_matches() -> None:
    """R6: several Numbers only when they sum to the Floor Number."""
    hand = [num(STAR, 3), num(TRIANGLE, 5), num(CIRCLE, 1)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=7)
    refused(
        state,
        0,
        {"type": "number", "cards": [num(STAR, 3), num(TRIANGLE, 5)], "shape": "star"},
        IllegalAction,
        "add up to the Floor Number (7)",
        "add up to 8",
    )
    # Two equal cards matching the floor shape are still not a double unless they sum.
    state = position([[num(CIRCLE, 2), num(CIRCLE, 2, 1)], [num(STAR, 1)]], shape=CIRCLE, number=2)
    refused(
        state, 0, {"type": "number", "cards": [num(CIRCLE, 2), num(CIRCLE, 2, 1)]}, IllegalAction
    )
    assert all(len(a.get("cards", ())) < 2 for a in legal(state, 0))


def test_ruling_6_the_sum_is_exact_not_modulo_ten() -> None:
    """R6: the sum is exact, not modulo 10."""
    state = position([[num(STAR, 5), num(TRIANGLE, 5)], [num(STAR, 1)]], shape=CIRCLE, number=0)
    refused(
        state,
        0,
        {"type": "number", "cards": [num(STAR, 5), num(TRIANGLE, 5)], "shape": "star"},
        IllegalAction,
    )


def test_ruling_6_needs_an_established_floor_number() -> None:
    """R6: only on an established Floor Number."""
    state = position([[num(STAR, 0), num(TRIANGLE, 0)], [num(STAR, 1)]], shape=CIRCLE)
    refused(
        state,
        0,
        {"type": "number", "cards": [num(STAR, 0), num(TRIANGLE, 0)], "shape": "star"},
        IllegalAction,
        "only once the Floor Number is set",
    )


def test_ruling_6_the_player_names_the_new_shape_among_the_played_shapes() -> None:
    """R6: the player names the new Floor Shape among the played ones."""
    hand = [num(STAR, 3), num(TRIANGLE, 4), num(CIRCLE, 1)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=7)
    pair = [num(STAR, 3), num(TRIANGLE, 4)]
    refused(state, 0, {"type": "number", "cards": pair}, IllegalAction, "Name the new Floor Shape")
    refused(
        state, 0, {"type": "number", "cards": pair, "shape": "circle"}, IllegalAction, "not circle"
    )
    shapes = {a["shape"] for a in legal(state, 0) if a.get("cards") == sorted(pair)}
    assert shapes == {"star", "triangle"}


def test_ruling_6_at_most_three_numbers() -> None:
    """R6: at most three."""
    hand = [num(STAR, 1), num(TRIANGLE, 1), num(CIRCLE, 1), num(SQUARE, 1), num(STAR, 9)]
    state = position([hand, [num(STAR, 2)]], shape=CIRCLE, number=4)
    refused(
        state, 0, {"type": "number", "cards": hand[:4], "shape": "star"}, IllegalAction, "three"
    )


def test_a_number_play_may_empty_the_hand_and_win() -> None:
    """R13: a Number play that empties the hand wins."""
    state = position([[num(STAR, 3), num(TRIANGLE, 4)], [num(STAR, 1)]], shape=CIRCLE, number=7)
    after, _ = act(
        state, 0, {"type": "number", "cards": [num(STAR, 3), num(TRIANGLE, 4)], "shape": "star"}
    )
    assert after.phase is Phase.OVER
    assert after.outcome is not None and after.outcome.winners == (0,)


def test_rulings_5_and_6_every_number_set_is_accepted_iff_listed() -> None:
    """R5, R6: every number play is accepted exactly when it is listed."""
    numbers = [
        num(STAR, 1),
        num(CIRCLE, 1),
        num(SQUARE, 1),
        num(TRIANGLE, 2),
        num(CIRCLE, 2),
        num(STAR, 0),
        num(SQUARE, 3),
        num(CIRCLE, 6),
    ]
    for floor in (0, 2, 3, 6):
        state = position([[*numbers], [num(STAR, 5)]], shape=CIRCLE, number=floor)
        check_accepted_iff_listed(
            state,
            0,
            (
                {"type": "number", "cards": list(cards), "shape": shape.value}
                for k in range(1, 5)
                for cards in combinations(sorted(numbers), k)
                for shape in SHAPES
            ),
        )

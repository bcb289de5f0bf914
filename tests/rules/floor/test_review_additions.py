"""Suggested additions from the review: each pins a rule that a small mutation broke unnoticed."""

from dataclasses import replace
from itertools import combinations
from typing import Any

from rules.errors import RulesError
from rules.floor import GAME
from rules.floor.cards import SHAPES
from rules.floor.state import Phase, State, fingerprint
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    act,
    add,
    freeze,
    legal,
    mul,
    num,
    position,
    power,
    sub,
    swap,
)


def _accepts(state: State, seat: int, action: dict[str, Any]) -> bool:
    try:
        GAME.apply(state, seat, action)
    except RulesError:
        return False
    return True


def test_ruling_7_every_operation_spelling_is_accepted_iff_listed() -> None:
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
        listed = {repr(sorted(a.items())) for a in legal(state, 0) if a["type"] == "operation"}
        for op in (add(), mul()):
            for operand in numbers:
                rest = [n for n in numbers if n != operand]
                for k in range(4):
                    for riders in combinations(rest, k):
                        for shape in SHAPES:
                            action = {
                                "type": "operation",
                                "card": op,
                                "operand": operand,
                                "riders": sorted(riders),
                                "shape": shape.value,
                            }
                            key = repr(sorted(action.items()))
                            assert _accepts(state, 0, action) == (key in listed), action


def test_rulings_5_and_6_every_number_set_is_accepted_iff_listed() -> None:
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
        listed = {repr(sorted(a.items())) for a in legal(state, 0) if a["type"] == "number"}
        for k in range(1, 5):
            for cards in combinations(sorted(numbers), k):
                for shape in SHAPES:
                    action = {"type": "number", "cards": list(cards), "shape": shape.value}
                    assert _accepts(state, 0, action) == (repr(sorted(action.items())) in listed)


def test_ruling_6_three_equal_values_make_a_triple() -> None:
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


def test_ruling_8_a_freeze_breaking_discard_may_not_empty_the_hand_not_even_offered() -> None:
    state = position(
        [[num(STAR, 9)], [add(), sub(), mul()], [num(STAR, 8)]],
        shape=CIRCLE,
        number=4,
        phase=Phase.FREEZE,
        turn=1,
        by=0,
    )
    assert legal(state, 1) == [{"type": "draw"}]


def test_ruling_8_frozen_draw_takes_exactly_one_card_and_breaking_keeps_the_turn() -> None:
    big = [add(), add(1), sub(), mul(), *[num(STAR, v) for v in range(6)]]
    state = position(
        [[num(STAR, 9, 1)], big, [num(SQUARE, 8)]],
        shape=CIRCLE,
        number=4,
        phase=Phase.FREEZE,
        turn=1,
        by=0,
    )
    after, _ = act(state, 1, {"type": "draw"})
    assert len(after.hands[1]) == len(big) + 1 and after.turn == 2
    after, _ = act(state, 1, {"type": "discard_operations", "cards": [add(), add(1)]})
    assert (after.phase, after.turn) == (Phase.PLAY, 1)


def test_ruling_13_a_freeze_as_the_last_card_in_open_play_wins() -> None:
    state = position([[freeze(CIRCLE)], [num(STAR, 1)], [num(STAR, 2)]], shape=CIRCLE, number=3)
    after, _ = act(state, 0, {"type": "freeze", "card": freeze(CIRCLE)})
    assert after.phase is Phase.OVER and after.outcome.winners == (0,)


def test_ruling_10_a_lone_swap_can_be_burnt_when_only_the_top_card_is_left() -> None:
    state = position(
        [[swap()], [num(STAR, 1)]],
        shape=CIRCLE,
        number=9,
        draw=[],
        discard=[num(CIRCLE, 9)],
        rest="out",
    )
    assert legal(state, 0) == [{"type": "burn", "card": swap()}]


def test_ruling_11_power_on_an_open_floor_sets_the_shape_only() -> None:
    state = position([[power(), num(CIRCLE, 1)], [num(STAR, 1)]], discard=[power(1)], opening=True)
    after, _ = act(state, 0, {"type": "power", "card": power(), "shape": "star"})
    assert (after.floor_shape, after.floor_number) == (STAR, None)


def test_repetition_fingerprint_sees_every_part_of_the_position() -> None:
    base = position(
        [[num(CIRCLE, 0), num(STAR, 3)], [num(STAR, 1)]],
        shape=SQUARE,
        number=8,
        draw=[],
        discard=[num(SQUARE, 8), num(SQUARE, 2)],
        rest="out",
        passes=1,
    )
    fp = fingerprint(base)
    for changed in (
        replace(base, discard=base.discard[::-1]),
        replace(base, passes=0),
        replace(base, turn=1),
        replace(base, direction=-1),
        replace(base, floor_number=7),
        replace(base, floor_shape=STAR),
    ):
        assert fingerprint(changed) != fp


def test_repetition_counts_only_positions_with_an_empty_draw_pile() -> None:
    state = position(
        [[num(CIRCLE, 0)], [num(STAR, 1), num(SQUARE, 6)]],
        shape=SQUARE,
        number=8,
        turn=1,
        draw=[num(TRIANGLE, 5)],
        discard=[num(SQUARE, 8)],
        rest="out",
    )
    after, _ = act(state, 1, {"type": "number", "cards": [num(SQUARE, 6)]})
    assert after.seen == ()


def test_repetition_fingerprint_sees_the_opener_flag_the_hands_and_what_is_pending() -> None:
    base = position(
        [[num(CIRCLE, 0), num(STAR, 3)], [num(STAR, 1)]],
        shape=SQUARE,
        number=8,
        draw=[],
        discard=[num(SQUARE, 8), num(SQUARE, 2)],
        rest="out",
    )
    fp = fingerprint(base)
    for changed in (
        replace(base, opening=True),
        replace(base, hands=(base.hands[1], base.hands[0])),
        replace(base, phase=Phase.FREEZE, by=1),
        replace(base, phase=Phase.TAKE, stack=2, by=1),
        replace(base, phase=Phase.TAKE, stack=3, by=1),
        replace(base, floor_number=None),
        replace(base, floor_shape=None),
    ):
        assert fingerprint(changed) != fp, changed
    assert fingerprint(replace(base, seen=(1, 2), forced_from=1)) == fp, "history is not position"

"""Ruling 9: Takes match the shape, stack with any Take, and are drawn all at once."""

from rules.errors import IllegalAction
from rules.floor.state import Phase
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    act,
    add,
    freeze,
    legal,
    num,
    position,
    power,
    refused,
    swap,
    take1,
    take2,
)


def test_ruling_9_take_must_match_the_floor_shape() -> None:
    """R9: a Take must match the Floor Shape."""
    state = position([[take2(STAR), num(STAR, 1)], [num(STAR, 2)]], shape=CIRCLE, number=3)
    refused(state, 0, {"type": "take", "card": take2(STAR)}, IllegalAction, "Floor Shape (circle)")
    state = position([[take2(CIRCLE), num(STAR, 1)], [num(STAR, 2)]], shape=CIRCLE, number=3)
    after, _ = act(state, 0, {"type": "take", "card": take2(CIRCLE)})
    assert (after.phase, after.turn, after.stack) == (Phase.TAKE, 1, 2)


def test_a_take_stack_passed_across_four_seats() -> None:
    """R9: the stack grows and passes on; the Floor Shape is the last Take's."""
    hands = [
        [take1(CIRCLE), num(STAR, 1)],
        [take2(SQUARE), num(STAR, 2)],
        [take1(STAR), num(STAR, 3)],
        [take2(TRIANGLE), num(STAR, 4)],
    ]
    state = position(hands, shape=CIRCLE, number=3)
    for seat, card, stack in (
        (0, take1(CIRCLE), 1),
        (1, take2(SQUARE), 3),
        (2, take1(STAR), 4),
        (3, take2(TRIANGLE), 6),
    ):
        state, events = act(state, seat, {"type": "take", "card": card})
        assert (state.phase, state.stack, state.by) == (Phase.TAKE, stack, seat)
        assert state.turn == (seat + 1) % 4
        assert state.floor_shape is not None and card in (
            take1(state.floor_shape),
            take2(state.floor_shape),
        ), "the Floor Shape becomes the last Take's shape"
    # Back at seat 0, which holds no Take: it draws all six and loses its turn.
    assert legal(state, 0) == [{"type": "draw"}]
    state, events = act(state, 0, {"type": "draw"})
    assert len(state.hands[0]) == 1 + 6
    assert (state.phase, state.stack, state.turn) == (Phase.PLAY, 0, 1)
    assert {"type": "drew", "seat": 0, "count": 6, "bottom": False} in events
    assert state.floor_shape is TRIANGLE


def test_ruling_9_stacking_takes_any_shape() -> None:
    """R9: a Take of any shape stacks."""
    state = position(
        [[num(STAR, 1)], [take1(SQUARE), num(STAR, 2)]],
        shape=CIRCLE,
        number=3,
        phase=Phase.TAKE,
        stack=2,
        turn=1,
        by=0,
    )
    after, _ = act(state, 1, {"type": "take", "card": take1(SQUARE)})
    assert (after.turn, after.stack, after.floor_shape) == (0, 3, SQUARE)


def test_not_allowed_cancel_a_take_stack_with_swap_power_or_operations() -> None:
    """R9: nothing else cancels a stack."""
    hand = [swap(), power(), add(), num(CIRCLE, 3), freeze(CIRCLE), num(CIRCLE, 1)]
    state = position(
        [[num(STAR, 1)], hand, [num(STAR, 2)]],
        shape=CIRCLE,
        number=3,
        phase=Phase.TAKE,
        stack=2,
        turn=1,
        by=0,
    )
    for action in (
        {"type": "swap", "card": swap()},
        {"type": "power", "card": power(), "shape": "star"},
        {"type": "operation", "card": add(), "operand": num(CIRCLE, 3)},
        {"type": "freeze", "card": freeze(CIRCLE)},
        {"type": "number", "cards": [num(CIRCLE, 1)]},
    ):
        refused(state, 1, action, IllegalAction, "nothing cancels it", "draw 2")
    assert legal(state, 1) == [{"type": "draw"}]


def test_ruling_9_drawing_the_stack_loses_the_turn() -> None:
    """R9: or draw the whole stack and lose the turn."""
    state = position(
        [[num(STAR, 1)], [num(STAR, 2), num(CIRCLE, 5)], [num(STAR, 3)]],
        shape=CIRCLE,
        number=3,
        phase=Phase.TAKE,
        stack=3,
        turn=1,
        by=0,
    )
    after, _ = act(state, 1, {"type": "draw"})
    assert len(after.hands[1]) == 5
    assert after.turn == 2 and after.phase is Phase.PLAY


def test_ruling_9_a_take_as_the_last_card_wins_at_once() -> None:
    """R9, R13: a Take as the last card wins at once."""
    state = position([[take2(CIRCLE)], [num(STAR, 2)]], shape=CIRCLE, number=3)
    after, _ = act(state, 0, {"type": "take", "card": take2(CIRCLE)})
    assert after.phase is Phase.OVER and after.stack == 0
    assert after.outcome is not None and after.outcome.winners == (0,)

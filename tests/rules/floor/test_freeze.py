"""Ruling 8: a Freeze must match the shape; the frozen seat answers in one of four ways."""

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
    mul,
    num,
    position,
    power,
    refused,
    sub,
    swap,
    take1,
)


def _frozen(responder_hand: list[int], seats: int = 3) -> tuple[object, int]:
    """Seat 0 has just frozen seat 1 on a circle floor."""
    hands = [[num(STAR, 9)], responder_hand] + [[num(STAR, 8)] for _ in range(seats - 2)]
    state = position(hands, shape=CIRCLE, number=4, phase=Phase.FREEZE, turn=1, by=0)
    return state, 1


def test_ruling_8_freeze_must_match_the_floor_shape() -> None:
    """R8: a Freeze must match the Floor Shape and freezes the next seat."""
    state = position(
        [[freeze(STAR), num(STAR, 1)], [num(STAR, 2)], [num(STAR, 3)]], shape=CIRCLE, number=4
    )
    refused(state, 0, {"type": "freeze", "card": freeze(STAR)}, IllegalAction, "Floor Shape")
    state = position(
        [[freeze(CIRCLE), num(STAR, 1)], [num(STAR, 2)], [num(STAR, 3)]], shape=CIRCLE, number=4
    )
    after, events = act(state, 0, {"type": "freeze", "card": freeze(CIRCLE)})
    assert after.phase is Phase.FREEZE and after.turn == 1 and after.by == 0
    assert {"type": "frozen", "seat": 1, "by": 0} in events


def test_ruling_8_freeze_is_playable_on_an_open_floor_shape_and_sets_it() -> None:
    """R8: any Freeze on an open shape."""
    state = position([[freeze(STAR), num(STAR, 1)], [num(STAR, 2)]])
    after, _ = act(state, 0, {"type": "freeze", "card": freeze(STAR)})
    assert after.floor_shape is STAR and after.phase is Phase.FREEZE


def test_ruling_8_the_frozen_seat_offers_exactly_the_four_answers() -> None:
    """R8: the frozen seat has exactly the four answers."""
    hand = [freeze(SQUARE), add(), sub(), mul(), add(1), num(CIRCLE, 1)]
    state, seat = _frozen(hand)
    actions = legal(state, seat)
    assert {a["type"] for a in actions} == {"freeze", "discard_operations", "draw"}
    discards = [a["cards"] for a in actions if a["type"] == "discard_operations"]
    assert sorted([add(), add(1)]) in discards, "two of the same kind"
    assert sorted([add(), sub(), mul()]) in discards, "three different"
    assert sorted([add(), sub()]) not in discards
    for action in (
        {"type": "number", "cards": [num(CIRCLE, 1)]},
        {"type": "operation", "card": add(), "operand": num(CIRCLE, 1)},
    ):
        refused(state, seat, action, IllegalAction, "You are frozen")


def test_ruling_8_freeze_back_with_any_shape_passes_to_the_freezer() -> None:
    """R8: a Freeze of any shape passes the freeze back to the freezer."""
    state, seat = _frozen([freeze(SQUARE), num(CIRCLE, 1)])
    after, _ = act(state, seat, {"type": "freeze", "card": freeze(SQUARE)})
    assert after.phase is Phase.FREEZE
    assert (after.turn, after.by) == (0, 1), "back to the seat that froze, not onward"
    assert after.floor_shape is SQUARE


def test_a_freeze_passed_back_and_forth() -> None:
    """R8: back and forth, until someone draws."""
    hands = [
        [freeze(CIRCLE), freeze(TRIANGLE), num(STAR, 1)],
        [freeze(SQUARE), num(STAR, 2)],
        [num(STAR, 3)],
    ]
    state = position(hands, shape=CIRCLE, number=4)
    state, _ = act(state, 0, {"type": "freeze", "card": freeze(CIRCLE)})
    assert (state.turn, state.by) == (1, 0)
    state, _ = act(state, 1, {"type": "freeze", "card": freeze(SQUARE)})
    assert (state.turn, state.by) == (0, 1)
    state, _ = act(state, 0, {"type": "freeze", "card": freeze(TRIANGLE)})
    assert (state.turn, state.by) == (1, 0)
    # Seat 1 has no answer left but to draw; play goes on after seat 1, to seat 2.
    assert [a["type"] for a in legal(state, 1)] == ["draw"]
    state, _ = act(state, 1, {"type": "draw"})
    assert state.phase is Phase.PLAY and state.turn == 2
    assert len(state.hands[1]) == 2


def test_ruling_8_discard_three_different_operations_then_a_normal_turn() -> None:
    """R8: three different Operations break it; a normal turn follows."""
    state, seat = _frozen([add(), sub(), mul(), num(CIRCLE, 1)])
    after, events = act(state, seat, {"type": "discard_operations", "cards": [add(), sub(), mul()]})
    assert events[0] == {
        "type": "broke_freeze",
        "seat": seat,
        "cards": sorted([add(), sub(), mul()]),
    }
    assert after.phase is Phase.PLAY and after.turn == seat, "the responder then takes a turn"
    assert after.hands[seat] == (num(CIRCLE, 1),)
    after, _ = act(after, seat, {"type": "number", "cards": [num(CIRCLE, 1)]})
    assert after.phase is Phase.OVER


def test_ruling_8_discard_two_operations_of_the_same_kind() -> None:
    """R8: or two of the same kind."""
    state, seat = _frozen([mul(), mul(1), num(CIRCLE, 1)])
    after, _ = act(state, seat, {"type": "discard_operations", "cards": [mul(), mul(1)]})
    assert after.phase is Phase.PLAY and after.turn == seat
    assert after.discard[-2:] == (mul(), mul(1))


def test_ruling_8_other_operation_discards_do_not_break_a_freeze() -> None:
    """R8: no other discard breaks a freeze."""
    state, seat = _frozen([add(), sub(), add(1), mul(), num(CIRCLE, 1)])
    for cards in ([add(), sub()], [add(), add(1), sub()], [add(), sub(), add(1)]):
        refused(
            state,
            seat,
            {"type": "discard_operations", "cards": cards},
            IllegalAction,
            "two Operations of the same kind or three different ones",
        )
    refused(
        state,
        seat,
        {"type": "discard_operations", "cards": [add(), num(CIRCLE, 1)]},
        IllegalAction,
        "not an Operation",
    )


def test_ruling_8_a_discard_may_not_empty_the_hand() -> None:
    """R8: a discard may not empty the hand."""
    state, seat = _frozen([add(), sub(), mul()])
    refused(
        state,
        seat,
        {"type": "discard_operations", "cards": [add(), sub(), mul()]},
        IllegalAction,
        "empty your hand",
    )
    state, seat = _frozen([add(), add(1)])
    refused(
        state,
        seat,
        {"type": "discard_operations", "cards": [add(), add(1)]},
        IllegalAction,
        "empty your hand",
    )
    assert legal(state, seat) == [{"type": "draw"}]


def test_ruling_8_a_freeze_breaking_discard_may_not_empty_the_hand_not_even_offered() -> None:
    """R8: nor is it offered."""
    state = position(
        [[num(STAR, 9)], [add(), sub(), mul()], [num(STAR, 8)]],
        shape=CIRCLE,
        number=4,
        phase=Phase.FREEZE,
        turn=1,
        by=0,
    )
    assert legal(state, 1) == [{"type": "draw"}]


def test_ruling_8_draw_one_and_lose_the_turn() -> None:
    """R8: or draw 1 and lose the turn."""
    state, seat = _frozen([num(CIRCLE, 1), num(CIRCLE, 2)])
    after, events = act(state, seat, {"type": "draw"})
    assert len(after.hands[seat]) == 3
    assert after.phase is Phase.PLAY and after.turn == 2 and after.by is None
    assert events[0] == {"type": "stayed_frozen", "seat": seat}


def test_ruling_8_frozen_draw_takes_exactly_one_card_and_breaking_keeps_the_turn() -> None:
    """R8: drawing takes exactly one; breaking keeps the turn."""
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


def test_ruling_8_swap_power_and_take_do_not_answer_a_freeze() -> None:
    """R8: a Swap, Power or Take does not answer a Freeze."""
    state, seat = _frozen([swap(), power(), take1(CIRCLE), num(CIRCLE, 1)])
    for action in (
        {"type": "swap", "card": swap()},
        {"type": "power", "card": power(), "shape": "star"},
        {"type": "take", "card": take1(CIRCLE)},
    ):
        refused(state, seat, action, IllegalAction, "You are frozen")


def test_ruling_8_freezing_back_with_the_last_card_wins() -> None:
    """R8, R13: freezing back with the last card wins."""
    state, seat = _frozen([freeze(TRIANGLE)])
    after, _ = act(state, seat, {"type": "freeze", "card": freeze(TRIANGLE)})
    assert after.phase is Phase.OVER and after.outcome is not None
    assert after.outcome.winners == (seat,)

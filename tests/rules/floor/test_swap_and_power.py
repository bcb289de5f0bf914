"""Rulings 10 to 12: Swap reverses (charged at a 2-card hand, burnt when last); Power sets shape."""

from rules.errors import IllegalAction, WrongPhase
from rules.floor.state import Phase
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    act,
    legal,
    num,
    position,
    power,
    refused,
    swap,
    take1,
)

THREE = [num(STAR, 1), num(STAR, 2), num(STAR, 3)]


def test_ruling_10_swap_reverses_the_turn_order() -> None:
    """R10: a Swap reverses the order of play."""
    hands = [[swap(), num(CIRCLE, 1)], THREE, [num(SQUARE, 4)]]
    state = position(hands, shape=CIRCLE, number=3)
    after, events = act(state, 0, {"type": "swap", "card": swap()})
    assert events[0] == {"type": "played_swap", "seat": 0, "card": swap(), "direction": -1}
    assert after.direction == -1
    assert after.turn == 2, "seat 1 would have been next; now seat 2 is"
    # And play keeps going the new way.
    after, _ = act(after, 2, {"type": "draw"})
    assert after.turn == 1


def test_ruling_10_with_two_seats_the_swapper_moves_again() -> None:
    """R10: with two seats, the swapper moves again."""
    state = position([[swap(), num(CIRCLE, 1)], THREE], shape=CIRCLE, number=3)
    after, _ = act(state, 0, {"type": "swap", "card": swap()})
    assert after.turn == 0 and after.phase is Phase.PLAY
    after, _ = act(after, 0, {"type": "number", "cards": [num(CIRCLE, 1)]})
    assert after.phase is Phase.OVER


def test_ruling_10_swap_is_charged_when_the_would_be_next_seat_holds_two_cards() -> None:
    """R10: charged when the seat that would move next holds exactly 2."""
    hands = [[swap(), num(CIRCLE, 1)], [num(STAR, 1), num(STAR, 2)], [num(SQUARE, 4)]]
    state = position(hands, shape=CIRCLE, number=3)
    after, events = act(state, 0, {"type": "swap", "card": swap()})
    assert (after.phase, after.turn, after.by) == (Phase.CHARGED, 1, 0)
    assert {"type": "charged_swap", "seat": 1, "by": 0} in events
    assert legal(after, 1) == [{"type": "reverse_back"}, {"type": "let_stand"}]
    refused(after, 1, {"type": "draw"}, WrongPhase, "charged Swap")


def test_ruling_10_not_charged_unless_exactly_two_cards() -> None:
    """R10: only exactly 2."""
    for held in ([num(STAR, 1)], THREE):
        state = position([[swap(), num(CIRCLE, 1)], held, [num(SQUARE, 4)]], shape=CIRCLE)
        after, _ = act(state, 0, {"type": "swap", "card": swap()})
        assert after.phase is Phase.PLAY and after.turn == 2


def test_a_charged_swap_reversed_back() -> None:
    """R10: reversing back is free, and the reverser moves next."""
    hands = [[swap(), num(CIRCLE, 1)], [num(STAR, 1), num(STAR, 2)], [num(SQUARE, 4)]]
    state = position(hands, shape=CIRCLE, number=3)
    state, _ = act(state, 0, {"type": "swap", "card": swap()})
    after, events = act(state, 1, {"type": "reverse_back"})
    assert events[0] == {"type": "reversed_back", "seat": 1, "direction": 1}
    assert after.direction == 1, "the old direction again"
    assert (after.phase, after.turn) == (Phase.PLAY, 1), "the reverser moves next"
    assert len(after.hands[1]) == 2, "reversing back is free"
    after, _ = act(after, 1, {"type": "draw"})
    assert after.turn == 2


def test_ruling_10_charged_swap_left_standing() -> None:
    """R10: or the Swap is left to stand."""
    hands = [[swap(), num(CIRCLE, 1)], [num(STAR, 1), num(STAR, 2)], [num(SQUARE, 4)]]
    state, _ = act(position(hands, shape=CIRCLE, number=3), 0, {"type": "swap", "card": swap()})
    after, _ = act(state, 1, {"type": "let_stand"})
    assert (after.direction, after.turn, after.phase) == (-1, 2, Phase.PLAY)


def test_ruling_10_charged_swap_with_two_seats() -> None:
    """R10: a charged Swap with two seats."""
    state = position([[swap(), num(CIRCLE, 1)], [num(STAR, 1), num(STAR, 2)]], shape=CIRCLE)
    state, _ = act(state, 0, {"type": "swap", "card": swap()})
    assert (state.phase, state.turn) == (Phase.CHARGED, 1)
    back, _ = act(state, 1, {"type": "reverse_back"})
    assert back.turn == 1
    stand, _ = act(state, 1, {"type": "let_stand"})
    assert stand.turn == 0, "left standing, the swapper moves again"


def test_ruling_10_reverse_back_only_when_a_charged_swap_is_pending() -> None:
    """R10: reversing back answers a charged Swap only."""
    state = position([[num(CIRCLE, 1)], THREE], shape=CIRCLE)
    refused(state, 0, {"type": "reverse_back"}, WrongPhase, "no charged Swap")
    refused(state, 0, {"type": "let_stand"}, WrongPhase, "no charged Swap")


def test_ruling_10_swap_cannot_answer_a_freeze_or_a_take() -> None:
    """R10: a Swap does not answer a Freeze or a Take."""
    for phase, stack in ((Phase.FREEZE, 0), (Phase.TAKE, 1)):
        state = position(
            [[num(STAR, 9)], [swap(), num(CIRCLE, 1)]],
            shape=CIRCLE,
            phase=phase,
            stack=stack,
            turn=1,
            by=0,
        )
        refused(state, 1, {"type": "swap", "card": swap()}, IllegalAction)
        assert all(a["type"] != "swap" for a in legal(state, 1))


def test_not_allowed_use_swap_as_your_final_card_to_win() -> None:
    """R10: a Swap can never be the last card."""
    state = position([[swap()], THREE], shape=CIRCLE, number=3)
    refused(state, 0, {"type": "swap", "card": swap()}, IllegalAction, "never be your last card")
    assert {"type": "swap", "card": swap()} not in legal(state, 0)


def test_ruling_10_a_lone_swap_is_burnt_for_the_bottom_card() -> None:
    """R10: a lone Swap is burnt for the bottom card of the draw pile."""
    bottom, top = num(TRIANGLE, 7), num(SQUARE, 8)
    state = position([[swap()], THREE], shape=CIRCLE, number=3, draw=[bottom, num(STAR, 5), top])
    assert {"type": "burn", "card": swap()} in legal(state, 0)
    after, events = act(state, 0, {"type": "burn", "card": swap()})
    assert after.hands[0] == (bottom,)
    assert after.draw[-1] == top, "the top of the draw pile is untouched"
    assert after.discard[-1] == swap()
    assert after.turn == 1
    assert events[0] == {"type": "burnt_swap", "seat": 0, "card": swap()}


def test_ruling_10_only_a_lone_swap_can_be_burnt() -> None:
    """R10: only a lone Swap."""
    state = position([[swap(), num(CIRCLE, 1)], THREE], shape=CIRCLE, number=3)
    refused(state, 0, {"type": "burn", "card": swap()}, IllegalAction, "last card")


def test_ruling_10_a_lone_swap_can_be_burnt_when_only_the_top_card_is_left() -> None:
    """R10: even with only the top discard left to reshuffle."""
    state = position(
        [[swap()], [num(STAR, 1)]],
        shape=CIRCLE,
        number=9,
        draw=[],
        discard=[num(CIRCLE, 9)],
        rest="out",
    )
    assert legal(state, 0) == [{"type": "burn", "card": swap()}]


def test_a_lone_swap_cannot_be_burnt_while_frozen_or_under_a_take() -> None:
    # Our decision: burning stands in for a turn's draw; a Freeze or a Take is answered only as
    # rulings 8 and 9 say (drawing 1 or the stack), so the Swap stays in hand.
    for phase, stack in ((Phase.FREEZE, 0), (Phase.TAKE, 2)):
        state = position(
            [[num(STAR, 9)], [swap()]], shape=CIRCLE, phase=phase, stack=stack, turn=1, by=0
        )
        assert legal(state, 1) == [{"type": "draw"}]
        refused(state, 1, {"type": "burn", "card": swap()}, IllegalAction)


def test_ruling_11_power_sets_the_shape_and_keeps_the_number() -> None:
    """R11: a Power sets any shape and keeps the Floor Number."""
    state = position([[power(), num(CIRCLE, 1)], THREE], shape=CIRCLE, number=3)
    after, _ = act(state, 0, {"type": "power", "card": power(), "shape": "triangle"})
    assert (after.floor_shape, after.floor_number) == (TRIANGLE, 3)
    shapes = {a["shape"] for a in legal(state, 0) if a["type"] == "power"}
    assert shapes == {"circle", "triangle", "square", "star"}
    refused(state, 0, {"type": "power", "card": power()}, IllegalAction, "Name the shape")


def test_ruling_11_power_on_an_open_floor_sets_the_shape_only() -> None:
    """R11: on an open floor, only the shape."""
    state = position([[power(), num(CIRCLE, 1)], [num(STAR, 1)]], discard=[power(1)], opening=True)
    after, _ = act(state, 0, {"type": "power", "card": power(), "shape": "star"})
    assert (after.floor_shape, after.floor_number) == (STAR, None)


def test_power_as_the_winning_card() -> None:
    """R11: a Power may be the winning last card."""
    state = position([[power()], THREE], shape=CIRCLE, number=3)
    after, events = act(state, 0, {"type": "power", "card": power(), "shape": "star"})
    assert after.phase is Phase.OVER and after.outcome is not None
    assert after.outcome.winners == (0,)
    assert events[-1]["type"] == "game_over"


def test_ruling_11_power_does_not_answer_a_freeze_or_a_take() -> None:
    """R11: a Power does not answer a Freeze or a Take."""
    for phase, stack in ((Phase.FREEZE, 0), (Phase.TAKE, 2)):
        state = position(
            [[num(STAR, 9)], [power(), num(CIRCLE, 1)]],
            shape=CIRCLE,
            phase=phase,
            stack=stack,
            turn=1,
            by=0,
        )
        refused(state, 1, {"type": "power", "card": power(), "shape": "star"}, IllegalAction)


def test_ruling_12_swap_power_need_no_shape_but_only_your_own_open_turn() -> None:
    """R12: Swap and Power follow no shape, in open play."""
    state = position([[swap(), power(), take1(SQUARE)], THREE], shape=CIRCLE, number=3)
    types = {a["type"] for a in legal(state, 0)}
    assert {"swap", "power"} <= types and "take" not in types

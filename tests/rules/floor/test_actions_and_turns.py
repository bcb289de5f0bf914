"""The edge of the rules: malformed actions, acting out of turn, naming cards you do not hold."""

from typing import Any

import pytest

from rules.errors import IllegalAction, InvalidAction, NotYourTurn, WrongPhase
from rules.floor import GAME
from rules.floor.actions import (
    BurnSwap,
    DiscardOperations,
    Draw,
    Grab,
    LetStand,
    Pass,
    PlayFreeze,
    PlayNumbers,
    PlayOperation,
    PlayPower,
    PlaySwap,
    PlayTake,
    ReverseBack,
    trusted,
)
from rules.floor.cards import Shape
from rules.floor.state import Phase
from tests.rules.floor.helpers import (
    CIRCLE,
    STAR,
    act,
    add,
    freeze,
    num,
    position,
    refused,
    take1,
)


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "draw",
        [],
        {},
        {"type": "dance"},
        {"type": "number"},
        {"type": "number", "cards": "3"},
        {"type": "number", "cards": [112]},
        {"type": "number", "cards": [-1]},
        {"type": "number", "cards": [True]},
        {"type": "number", "cards": ["3"]},
        {"type": "number", "cards": [3, 3]},
        {"type": "number", "cards": [3], "shape": "hexagon"},
        {"type": "number", "cards": [3], "extra": 1},
        {"type": "operation", "card": 80, "operand": 80},
        {"type": "operation", "card": 80, "operand": 3, "riders": [3]},
        {"type": "freeze"},
        {"type": "power", "card": 108, "shape": 2},
        {"type": "draw", "count": 2},
        {"type": "number", "cards": list(range(9))},
    ],
)
def test_malformed_actions_are_invalid_action(raw: Any) -> None:
    state = GAME.new_game(3, None, seed=1)
    with pytest.raises(InvalidAction):
        GAME.apply(state, 0, raw)


def test_not_your_turn_names_whose_turn_it_is() -> None:
    state = position([[num(CIRCLE, 1)], [num(CIRCLE, 2)], [num(STAR, 3)]], shape=CIRCLE, turn=1)
    refused(state, 0, {"type": "draw"}, NotYourTurn, "seat 2's turn")
    refused(state, 7, {"type": "draw"}, NotYourTurn, "no seat 7")


def test_not_your_turn_while_another_seat_answers_a_freeze_or_take() -> None:
    hands = [[num(CIRCLE, 1)], [num(CIRCLE, 2)], [num(STAR, 3)]]
    frozen = position(hands, shape=CIRCLE, phase=Phase.FREEZE, turn=1, by=0)
    refused(frozen, 0, {"type": "draw"}, NotYourTurn, "answer a Freeze")
    taking = position(hands, shape=CIRCLE, phase=Phase.TAKE, stack=3, turn=2, by=1)
    refused(taking, 1, {"type": "draw"}, NotYourTurn, "draw 3")
    charged = position(hands, shape=CIRCLE, phase=Phase.CHARGED, turn=1, by=0)
    refused(charged, 0, {"type": "draw"}, NotYourTurn, "charged Swap")


def test_cards_must_be_in_your_hand() -> None:
    state = position([[num(CIRCLE, 1)], [num(CIRCLE, 2)]], shape=CIRCLE, number=3)
    refused(
        state,
        0,
        {"type": "number", "cards": [num(CIRCLE, 2)]},
        IllegalAction,
        "do not hold",
        "circle 2",
    )
    refused(state, 0, {"type": "freeze", "card": freeze(CIRCLE)}, IllegalAction, "do not hold")


def test_a_card_must_be_the_kind_the_action_plays() -> None:
    state = position(
        [[num(CIRCLE, 1), add(), take1(CIRCLE)], [num(CIRCLE, 2)]], shape=CIRCLE, number=3
    )
    refused(state, 0, {"type": "freeze", "card": take1(CIRCLE)}, IllegalAction, "not a Freeze")
    refused(state, 0, {"type": "number", "cards": [add()]}, IllegalAction, "not a Number")
    refused(
        state,
        0,
        {"type": "operation", "card": num(CIRCLE, 1), "operand": num(CIRCLE, 1) + 1},
        IllegalAction,
        "not an Operation",
    )
    refused(
        state,
        0,
        {"type": "discard_operations", "cards": [add(), add(1)]},
        WrongPhase,
        "only to answer a Freeze",
    )


def test_the_order_cards_are_named_in_does_not_matter() -> None:
    hand = [num(STAR, 3), num(CIRCLE, 4), num(CIRCLE, 9)]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=7)
    a, _ = act(
        state, 0, {"type": "number", "cards": [num(STAR, 3), num(CIRCLE, 4)], "shape": "star"}
    )
    b, _ = act(
        state, 0, {"type": "number", "cards": [num(CIRCLE, 4), num(STAR, 3)], "shape": "star"}
    )
    assert a == b


@pytest.mark.parametrize(
    ("cls", "fields"),
    [
        (Grab, {}),
        (Draw, {}),
        (Pass, {}),
        (ReverseBack, {}),
        (LetStand, {}),
        (PlayNumbers, {"cards": (1, 7, 40), "shape": Shape.SQUARE}),
        (PlayOperation, {"card": 81, "operand": 5, "riders": (9,), "shape": Shape.CIRCLE}),
        (PlayOperation, {"card": 91, "operand": 79, "riders": (), "shape": Shape.STAR}),
        (PlayFreeze, {"card": 93}),
        (PlayTake, {"card": 101}),
        (PlaySwap, {"card": 104}),
        (BurnSwap, {"card": 107}),
        (PlayPower, {"card": 110, "shape": Shape.TRIANGLE}),
        (DiscardOperations, {"cards": (80, 84, 88)}),
    ],
)
def test_trusted_actions_equal_validated_ones(cls: Any, fields: dict[str, Any]) -> None:
    fast = trusted(cls, **fields)
    slow = cls(**fields)
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump(exclude_unset=True) == slow.model_dump(exclude_unset=True)
    assert GAME.dump_action(fast) == GAME.dump_action(slow)
    assert GAME.parse_action(GAME.dump_action(fast)) == fast
    assert hash(fast) == hash(slow)

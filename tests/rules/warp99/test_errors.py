"""Every refusal has its error: not your turn, wrong step, illegal card, malformed action."""

from __future__ import annotations

from typing import Any

import pytest

from rules.errors import IllegalAction, InvalidAction, NotYourTurn, WrongPhase
from rules.warp99 import GAME
from rules.warp99.cards import card
from rules.warp99.state import Step
from tests.rules.warp99.helpers import act, position


def test_acting_out_of_turn_is_not_your_turn() -> None:
    state = position(hand=["red 4"])
    with pytest.raises(NotYourTurn, match="seat 1's turn"):
        act(state, {"type": "end_step"}, seat=1)
    with pytest.raises(NotYourTurn):
        act(state, {"type": "end_step"}, seat=-1)


@pytest.mark.parametrize(
    ("step", "action"),
    [
        (Step.A, {"type": "play_to_pile", "card": 4, "pile": 0}),
        (Step.A, {"type": "flip_rule", "rule": 0}),
        (Step.B, {"type": "add_to_row", "card": 4}),
        (Step.B, {"type": "score_row"}),
        (Step.C, {"type": "add_to_row", "card": 4}),
        (Step.C, {"type": "play_to_pile", "card": 4, "pile": 0}),
    ],
)
def test_an_action_of_another_step_is_wrong_phase(step: Step, action: dict[str, Any]) -> None:
    state = position(hand=["red 4"], row=["blue 1"], step=step)
    with pytest.raises(WrongPhase):
        act(state, action)


@pytest.mark.parametrize(
    ("step", "action"),
    [
        (Step.A, {"type": "add_to_row", "card": card("red", 5)}),
        (Step.B, {"type": "play_to_pile", "card": card("red", 5), "pile": 1}),
    ],
)
def test_a_card_not_in_hand_is_illegal(step: Step, action: dict[str, Any]) -> None:
    state = position(hand=["red 4"], step=step)
    with pytest.raises(IllegalAction, match="not in your hand"):
        act(state, action)


def test_a_card_that_fits_nowhere_is_illegal() -> None:
    state = position(hand=["red 4", "red 8"], row=["blue 5"], tops=("gray 9", "gray 10"))
    with pytest.raises(IllegalAction):
        act(state, {"type": "add_to_row", "card": card("red", 4)})
    in_b = position(hand=["red 4"], tops=("gray 9", "gray 10"), step=Step.B)
    with pytest.raises(IllegalAction, match="none of the face-up rules"):
        act(in_b, {"type": "play_to_pile", "card": card("red", 4), "pile": 0})


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "draw_card"},
        {"card": 4},
        {"type": "add_to_row"},
        {"type": "add_to_row", "card": 110},
        {"type": "add_to_row", "card": -1},
        {"type": "add_to_row", "card": "red four"},
        {"type": "play_to_pile", "card": 4, "pile": 2},
        {"type": "play_to_pile", "card": 4},
        {"type": "flip_rule", "rule": 3},
        {"type": "end_step", "also": "draw"},
        # Integers are strict: a string, a float or a boolean is malformed, not a card or pile.
        {"type": "add_to_row", "card": "4"},
        {"type": "add_to_row", "card": 4.0},
        {"type": "add_to_row", "card": True},
        {"type": "play_to_pile", "card": "4", "pile": 0},
        {"type": "play_to_pile", "card": 4, "pile": "0"},
        {"type": "play_to_pile", "card": 4, "pile": 1.0},
        {"type": "play_to_pile", "card": 4, "pile": True},
        {"type": "flip_rule", "rule": "1"},
        {"type": "flip_rule", "rule": 1.0},
        {"type": "flip_rule", "rule": False},
        ["end_step"],
        "end_step",
        None,
    ],
)
def test_a_malformed_action_is_invalid_action(raw: Any) -> None:
    state = position(hand=["red 4"])
    with pytest.raises(InvalidAction):
        GAME.apply(state, 0, raw)


def test_a_refused_action_changes_nothing() -> None:
    state = position(hand=["red 4"], row=["blue 5"])
    before = GAME.dump_state(state)
    with pytest.raises(IllegalAction):
        act(state, {"type": "add_to_row", "card": card("red", 4)})
    assert GAME.dump_state(state) == before

"""Action C and turn order: draw back up to six, then the next seat in ascending order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.errors import NotYourTurn, WrongPhase
from rules.warp99 import GAME
from rules.warp99.cards import card
from rules.warp99.state import Step
from tests.rules.warp99.helpers import act, cards, event_types, legal, position

END = {"type": "end_step"}


def test_ending_action_b_starts_action_c() -> None:
    state = position(hand=["red 4", "blue 2"], step=Step.B)
    after, events = act(state, END)
    assert after.step is Step.C
    assert after.turn == 0
    assert legal(after) == [END]
    assert events == [{"type": "step_ended", "seat": 0, "step": "B"}]


def test_action_c_draws_back_up_to_six_from_the_own_deck() -> None:
    """R7: Action C draws up to six from the own deck."""
    state = position(
        hand=["red 4", "blue 2"], deck=["gray 0", "gray 1", "gray 2", "gray 3", "gray 4", "gray 5"]
    )
    state = replace(state, step=Step.C)
    after, events = act(state, END)
    assert after.hands[0] == cards("red 4", "blue 2", "gray 2", "gray 3", "gray 4", "gray 5")
    assert after.decks[0] == cards("gray 0", "gray 1")
    assert {"type": "drew", "seat": 0, "count": 4, "why": "refill"} in events


def test_after_action_c_the_next_seat_starts_with_action_a() -> None:
    state = replace(position(hand=["red 4"], seats=3), step=Step.C, flip_used=True)
    after, events = act(state, END)
    assert after.turn == 1
    assert after.step is Step.A
    assert not after.flip_used
    assert GAME.to_act(after) == {1}
    assert event_types(events)[-1] == "turn_started"


def test_turns_go_in_ascending_seat_order_and_wrap_around() -> None:
    state = replace(position(hand=["red 4"], seats=4), turn=3, step=Step.C)
    state = replace(state, hands=(state.hands[3], *state.hands[1:3], state.hands[0]))
    after, _ = act(state, END, seat=3)
    assert after.turn == 0


def test_only_the_seat_whose_turn_it_is_may_act() -> None:
    state = position(hand=["red 4"], seats=3)
    assert GAME.legal_actions(state, 1) == []
    with pytest.raises(NotYourTurn):
        act(state, {"type": "add_to_row", "card": card("red", 4)}, seat=1)
    with pytest.raises(NotYourTurn):
        act(state, END, seat=5)


def test_action_c_offers_nothing_but_ending_it() -> None:
    state = replace(position(hand=["red 4"], row=["blue 1"]), step=Step.C)
    assert legal(state) == [END]
    with pytest.raises(WrongPhase):
        act(state, {"type": "score_row"})
    with pytest.raises(WrongPhase):
        act(state, {"type": "add_to_row", "card": card("red", 4)})

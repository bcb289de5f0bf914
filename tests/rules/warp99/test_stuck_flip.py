"""The once-per-turn flip of a rule card when nothing can be played right after Action A."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.errors import IllegalAction, WrongPhase
from rules.warp99.cards import card
from rules.warp99.state import State, Step
from tests.rules.warp99.helpers import act, cards, legal, position

FLIPS = [{"type": "flip_rule", "rule": r} for r in range(3)]


def flip(rule: int) -> dict[str, object]:
    return {"type": "flip_rule", "rule": rule}


def stuck() -> State:
    """Seat 0 right after Action A; nothing in hand goes on gray 9 or gray 10 under side 1.

    Blue 5 on gray 10 would be Times or Divided by 2, on the back of Total 10.
    """
    return position(hand=["blue 5", "red 3", "green 6"], tops=("gray 9", "gray 10"), step=Step.B)


def test_a_stuck_player_may_flip_any_rule_card_right_after_action_a() -> None:
    """R6: stuck right after A, flip any rule card, then go on with B."""
    state = stuck()
    assert [a for a in legal(state) if a["type"] == "flip_rule"] == FLIPS
    after, events = act(state, flip(2))
    assert after.sides == (1, 1, 2)
    assert after.flip_used
    assert after.step is Step.B
    assert events[-1]["type"] == "rule_flipped"
    assert events[-1]["now"] == "double_or_half"
    # Play continues under the new rule.
    played, _ = act(after, {"type": "play_to_pile", "card": card("blue", 5), "pile": 1})
    assert played.piles[1][-1] == card("blue", 5)


def test_a_flip_turns_a_side_2_rule_back_to_side_1() -> None:
    state = replace(stuck(), sides=(2, 1, 1))
    assert [a for a in legal(state) if a["type"] == "flip_rule"] == FLIPS
    after, _ = act(state, flip(0))
    assert after.sides == (1, 1, 1)


def test_stuck_flip_is_refused_when_a_card_could_be_played() -> None:
    """R6: the server checks that the player really is stuck."""
    # Red 1 follows Total 10 on the gray 9.
    state = position(hand=["blue 5", "red 1"], tops=("gray 9", "gray 10"), step=Step.B)
    assert not [a for a in legal(state) if a["type"] == "flip_rule"]
    with pytest.raises(IllegalAction, match="not stuck"):
        act(state, flip(0))


def test_not_stuck_when_only_the_second_pile_takes_a_card() -> None:
    """R6: stuck means nothing plays on either pile."""
    # Red 3 follows nothing on the gray 9 (pile 1) but Same Colour on the red 10 (pile 2).
    state = position(hand=["red 3"], tops=("gray 9", "red 10"), step=Step.B)
    assert not [a for a in legal(state) if a["type"] == "flip_rule"]
    with pytest.raises(IllegalAction, match="not stuck"):
        act(state, flip(0))


def test_stuck_flip_is_refused_a_second_time_in_one_turn() -> None:
    """R6: once per turn."""
    # Flipping Plus 1 to Minus 1 still leaves nothing playable: no second flip.
    after, _ = act(stuck(), flip(1))
    assert after.sides == (1, 2, 1)
    assert not [a for a in legal(after) if a["type"] == "flip_rule"]
    with pytest.raises(IllegalAction, match="already flipped"):
        act(after, flip(2))


def test_stuck_flip_is_refused_again_after_a_b_c_repeats_in_the_same_turn() -> None:
    """R6: once per turn, even if A-B-C repeats."""
    state, _ = act(stuck(), flip(2))
    state, _ = act(state, {"type": "play_to_pile", "card": card("blue", 5), "pile": 1})
    state, _ = act(state, {"type": "end_step"})
    # Pretend the hand ran out and A ran again: a fresh B, still stuck, same turn.
    state = replace(state, step=Step.B, played_to_pile=False)
    assert state.flip_used
    assert not [a for a in legal(state) if a["type"] == "flip_rule"]
    with pytest.raises(IllegalAction, match="already flipped"):
        act(state, flip(0))


def test_the_flip_stays_used_when_the_hand_is_emptied_and_a_repeats() -> None:
    """R6: a used flip stays used when A-B-C repeats."""
    state = position(hand=["blue 5"], tops=("gray 9", "gray 10"), step=Step.B)
    state, _ = act(state, flip(2))
    state, _ = act(state, {"type": "play_to_pile", "card": card("blue", 5), "pile": 1})
    assert state.step is Step.A and state.turn == 0
    assert state.flip_used


def test_stuck_flip_is_allowed_on_a_repeated_a_b_c_if_not_used_yet() -> None:
    """R6: an unused flip is open in a repeated B."""
    # Emptying the hand starts A again; if the player is then stuck, the flip is still open.
    state = position(
        hand=["pink 7"],
        tops=("tan 6", "gray 10"),
        deck=["red 2", "red 1", "blue 4", "green 6", "orange 9", "yellow 2"],
        step=Step.B,
    )
    state, _ = act(state, {"type": "play_to_pile", "card": card("pink", 7), "pile": 0})
    state, _ = act(state, {"type": "add_to_row", "card": card("yellow", 2)})
    assert state.hands[0] == tuple(sorted(cards("red 2", "red 1", "blue 4", "green 6", "orange 9")))
    assert [a for a in legal(state) if a["type"] == "flip_rule"] == FLIPS


def test_stuck_flip_is_refused_after_a_card_was_played_in_b() -> None:
    """R6: only right after Action A."""
    state = position(hand=["blue 5", "red 1"], tops=("gray 9", "gray 10"), step=Step.B)
    state, _ = act(state, {"type": "play_to_pile", "card": card("red", 1), "pile": 0})
    assert state.hands[0] == cards("blue 5")  # now stuck, but too late
    assert not [a for a in legal(state) if a["type"] == "flip_rule"]
    with pytest.raises(IllegalAction, match="Too late"):
        act(state, flip(0))


def test_stuck_flip_is_refused_outside_action_b() -> None:
    """R6: the flip belongs to Action B."""
    state = replace(stuck(), step=Step.A)
    with pytest.raises(WrongPhase):
        act(state, flip(0))
    with pytest.raises(WrongPhase):
        act(replace(state, step=Step.C), flip(0))


def test_stuck_flip_needs_a_hand_to_be_stuck_with() -> None:
    state = position(hand=[], tops=("gray 9", "gray 10"), step=Step.B)
    assert legal(state) == [{"type": "end_step"}]
    with pytest.raises(IllegalAction):
        act(state, flip(0))


def test_the_stuck_flip_is_open_again_on_the_next_turn() -> None:
    """R6: once per turn: the next turn may flip again."""
    state, _ = act(stuck(), flip(1))
    state, _ = act(state, {"type": "end_step"})
    state, _ = act(state, {"type": "end_step"})
    assert state.turn == 1
    assert not state.flip_used

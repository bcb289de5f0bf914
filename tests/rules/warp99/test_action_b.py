"""Action B: cards onto the two shared piles, bonus cards, and emptying the hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.errors import IllegalAction, WrongPhase
from rules.warp99.cards import card
from rules.warp99.state import Step
from tests.rules.warp99.helpers import act, cards, event_types, legal, position

END = {"type": "end_step"}


def play(name: str, pile: int) -> dict[str, object]:
    colour, value = name.rsplit(" ", 1)
    return {"type": "play_to_pile", "card": card(colour, int(value)), "pile": pile}


def test_cards_go_one_at_a_time_onto_either_pile_and_become_its_top() -> None:
    """R5: one card at a time, onto either pile."""
    # Tim's example: a 7 on the 6 (+1), an 8 on the 7 (+1), then blue 5 on blue 1 (same colour).
    state = position(
        hand=["pink 7", "green 8", "blue 5", "red 0"], tops=("tan 6", "blue 1"), step=Step.B
    )
    state, _ = act(state, play("pink 7", 0))
    state, _ = act(state, play("green 8", 0))
    state, _ = act(state, play("blue 5", 1))
    assert state.piles[0][-3:] == cards("tan 6", "pink 7", "green 8")
    assert state.piles[1][-2:] == cards("blue 1", "blue 5")
    assert state.hands[0] == cards("red 0")
    assert state.step is Step.B


def test_sarahs_example_uses_any_rules_in_any_order_on_both_piles() -> None:
    """R5: any face-up rule, on either pile, in any order."""
    state = position(
        hand=["red 4", "orange 6", "blue 9", "tan 10", "green 0"],
        tops=("red 7", "blue 2"),
        step=Step.B,
    )
    for move in (play("red 4", 0), play("orange 6", 0), play("blue 9", 1), play("tan 10", 1)):
        state, _ = act(state, move)
    assert state.piles[0][-1] == card("orange", 6)
    assert state.piles[1][-1] == card("tan", 10)
    assert state.hands[0] == cards("green 0")


def test_action_b_may_be_skipped() -> None:
    state = position(hand=["red 4"], tops=("red 7", "blue 2"), step=Step.B)
    assert END in legal(state)
    after, _ = act(state, END)
    assert after.step is Step.C
    assert after.hands[0] == state.hands[0]


def test_a_card_following_one_rule_earns_no_bonus_card() -> None:
    """R5: one rule earns no bonus card."""
    state = position(hand=["red 2", "pink 5"], tops=("red 7", "blue 9"), step=Step.B)
    after, events = act(state, play("red 2", 0))
    assert after.decks[0] == state.decks[0]
    assert next(e for e in events if e["type"] == "pile_card")["bonus"] is False


def test_a_card_matching_two_rules_earns_a_bonus_card_from_the_own_deck() -> None:
    """R5: two rules at once earn a bonus card, drawn at once."""
    # Red 4 on red 6 follows Same Colour and Total 10.
    state = position(
        hand=["red 4", "pink 5"], tops=("red 6", "blue 9"), deck=["gray 3", "tan 7"], step=Step.B
    )
    after, events = act(state, play("red 4", 0))
    assert after.hands[0] == cards("pink 5", "tan 7")  # the deck's top card, drawn at once
    assert after.decks[0] == cards("gray 3")
    assert after.step is Step.B
    pile_card = next(e for e in events if e["type"] == "pile_card")
    assert pile_card["rules"] == ["same_colour", "total_ten"]
    assert pile_card["bonus"] is True
    assert {"type": "drew", "seat": 0, "count": 1, "why": "bonus"} in events


def test_a_card_matching_three_rules_earns_one_bonus_card() -> None:
    """R5: three rules at once still earn one bonus card."""
    # Same Colour, Plus 1 and Times 2 at once: red 2 on red 1.
    state = position(
        hand=["red 2", "pink 5"],
        tops=("red 1", "blue 9"),
        deck=["gray 3", "tan 7"],
        sides=(1, 1, 2),
        step=Step.B,
    )
    after, events = act(state, play("red 2", 0))
    pile_card = next(e for e in events if e["type"] == "pile_card")
    assert pile_card["rules"] == ["same_colour", "plus_one", "double_or_half"]
    assert after.hands[0] == cards("pink 5", "tan 7")
    assert after.decks[0] == cards("gray 3")


def test_the_bonus_counts_the_rules_on_the_chosen_pile_only() -> None:
    """R5: the rules count on the pile the card goes on."""
    # Red 4 follows Same Colour on the red 9 and Total 10 on the blue 6: one rule on each pile.
    state = position(hand=["red 4", "pink 5"], tops=("red 9", "blue 6"), step=Step.B)
    after, _ = act(state, play("red 4", 0))
    assert after.decks[0] == state.decks[0]


def test_emptying_the_hand_in_b_refills_it_and_repeats_a_b_c() -> None:
    """R7: an empty hand in B draws up to six and repeats A, B, C."""
    state = position(hand=["pink 7"], tops=("tan 6", "blue 1"), step=Step.B)
    after, events = act(state, play("pink 7", 0))
    assert len(after.hands[0]) == 6
    assert after.hands[0] == tuple(sorted(state.decks[0][-6:]))
    assert after.turn == 0
    assert after.step is Step.A
    assert not after.played_to_pile
    assert event_types(events)[-2:] == ["hand_emptied", "drew"]


def test_more_than_one_hand_can_be_emptied_in_a_turn() -> None:
    """R7: as often as the hand is emptied."""
    pinks = ["pink 4", "pink 2", "pink 0", "pink 3", "pink 1"]  # each only Same Colour on the last
    fillers = ["gray 0", "gray 1", "gray 2", "gray 3", "gray 4", "gray 5"]
    state = position(
        hand=["pink 7"],
        tops=("tan 6", "blue 1"),
        deck=[*fillers, "red 1", *pinks],
        step=Step.B,
    )
    state, _ = act(state, play("pink 7", 0))
    assert state.step is Step.A
    state, _ = act(state, {"type": "add_to_row", "card": card("red", 1)})
    for name in pinks:
        state, events = act(state, play(name, 0))
    assert "hand_emptied" in event_types(events)
    assert state.hands[0] == cards(*fillers)
    assert state.step is Step.A and state.turn == 0


def test_ruling_12_no_bonus_card_for_the_last_card_in_hand() -> None:
    """R12: a last card that follows two rules earns no bonus card; R7 applies instead."""
    state = position(
        hand=["red 4"],
        tops=("red 6", "blue 9"),
        deck=["gray 0", "gray 1", "gray 2", "gray 3", "gray 4", "gray 5", "tan 7"],
        step=Step.B,
    )
    after, events = act(state, play("red 4", 0))
    # Red 4 on red 6 follows Same Colour and Total 10, but it was the last card in hand.
    played = next(e for e in events if e["type"] == "pile_card")
    assert played["rules"] == ["same_colour", "total_ten"] and played["bonus"] is False
    assert "hand_emptied" in event_types(events)
    assert {"type": "drew", "seat": 0, "count": 6, "why": "refill"} in events
    assert not any(e["type"] == "drew" and e["why"] == "bonus" for e in events)
    assert after.step is Step.A
    assert after.hands[0] == tuple(
        sorted(cards("gray 1", "gray 2", "gray 3", "gray 4", "gray 5", "tan 7"))
    )
    assert after.decks[0] == cards("gray 0")


def test_ruling_12_a_two_rule_last_card_repeats_a_b_c_instead_of_drawing_a_bonus() -> None:
    """R12 (it settles what we once read the other way: the bonus card kept B going)."""
    state = position(
        hand=["red 4"], tops=("red 6", "blue 9"), deck=["gray 3", "tan 7"], step=Step.B
    )
    after, events = act(state, play("red 4", 0))
    # No bonus card: the empty hand draws up to six (emptying the deck on the way, R8).
    assert "hand_emptied" in event_types(events)
    assert after.step is Step.A and after.turn == 0
    assert len(after.hands[0]) == 6
    assert set(cards("gray 3", "tan 7")) <= set(after.hands[0])
    assert after.scores[0] == 15


def test_a_two_rule_card_that_is_not_the_last_still_earns_its_bonus_card() -> None:
    """R5 and R12: the bonus card for any card but the last in hand."""
    state = position(
        hand=["red 4", "pink 0"], tops=("red 6", "blue 9"), deck=["gray 3", "tan 7"], step=Step.B
    )
    after, events = act(state, play("red 4", 0))
    assert after.hands[0] == cards("pink 0", "tan 7")
    assert after.decks[0] == cards("gray 3")
    assert after.step is Step.B
    assert "hand_emptied" not in event_types(events)


def test_emptying_the_hand_in_action_a_does_not_repeat_the_turn() -> None:
    # Only playing the last card onto a pile in B starts A again.
    state = position(hand=["pink 7"], tops=("tan 6", "blue 1"))
    after, _ = act(state, {"type": "add_to_row", "card": card("pink", 7)})
    assert after.hands[0] == ()
    assert after.step is Step.B
    assert legal(after) == [END]


def test_playing_onto_the_piles_is_refused_outside_action_b() -> None:
    state = position(hand=["pink 7", "red 1"], tops=("tan 6", "blue 1"))
    with pytest.raises(WrongPhase):
        act(state, play("pink 7", 0))
    in_c = replace(state, step=Step.C)
    with pytest.raises(WrongPhase):
        act(in_c, play("pink 7", 0))


def test_a_card_not_in_hand_cannot_be_played() -> None:
    state = position(hand=["pink 7"], tops=("tan 6", "blue 1"), step=Step.B)
    with pytest.raises(IllegalAction, match="not in your hand"):
        act(state, play("green 7", 0))

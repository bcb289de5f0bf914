"""Action A: the personal row, optional early scoring, forced scoring, n² points."""

from __future__ import annotations

import pytest

from rules.errors import IllegalAction, WrongPhase
from rules.warp99.cards import card
from rules.warp99.state import Step
from tests.rules.warp99.helpers import act, cards, event_types, legal, position

SCORE = {"type": "score_row"}


def add(name: str) -> dict[str, object]:
    colour, value = name.rsplit(" ", 1)
    return {"type": "add_to_row", "card": card(colour, int(value))}


def test_action_a_places_exactly_one_card_then_action_b_starts() -> None:
    """R4: Action A places exactly one card."""
    state = position(hand=["red 3", "blue 5", "green 7"])
    after, events = act(state, add("blue 5"))
    assert after.rows[0] == cards("blue 5")
    assert after.hands[0] == cards("red 3", "green 7")
    assert after.step is Step.B
    assert event_types(events) == ["row_card"]
    with pytest.raises(WrongPhase):
        act(after, add("green 7"))


def test_any_card_starts_an_empty_row() -> None:
    """R4: any card starts a new row."""
    state = position(hand=["red 0", "blue 10", "green 7"])
    assert sorted(a["card"] for a in legal(state)) == sorted(cards("red 0", "blue 10", "green 7"))


def test_row_cards_must_increase_in_value() -> None:
    """R4: each card is higher than the last."""
    state = position(hand=["blue 4", "blue 6", "green 5"], row=["red 5"])
    assert {a["card"] for a in legal(state) if a["type"] == "add_to_row"} == set(cards("blue 6"))
    with pytest.raises(IllegalAction):
        act(state, add("blue 4"))
    with pytest.raises(IllegalAction):
        act(state, add("green 5"))  # equal is not higher


def test_row_cards_must_not_repeat_a_colour() -> None:
    """R4: each card is of a colour not yet in the row."""
    state = position(hand=["red 9", "tan 9"], row=["red 2", "blue 5"])
    with pytest.raises(IllegalAction):
        act(state, add("red 9"))
    after, _ = act(state, add("tan 9"))
    assert after.rows[0] == cards("red 2", "blue 5", "tan 9")


def test_a_higher_card_of_the_same_colour_as_the_last_row_card_is_refused() -> None:
    """R4: higher is not enough: the colour must be new."""
    state = position(hand=["red 7", "blue 7"], row=["red 5"])
    assert [a["card"] for a in legal(state) if a["type"] == "add_to_row"] == list(cards("blue 7"))
    with pytest.raises(IllegalAction, match="does not fit"):
        act(state, add("red 7"))
    alone = position(hand=["red 7"], row=["red 5"])
    assert legal(alone) == [SCORE]
    with pytest.raises(IllegalAction):
        act(alone, add("red 7"))


def test_scoring_a_row_earns_the_square_of_its_length() -> None:
    """R4: a scored row is worth n² points."""
    state = position(hand=["red 9"], row=["blue 1", "green 2", "pink 3", "tan 4"])
    after, events = act(state, SCORE)
    assert after.scores[0] == 16
    assert after.rows[0] == ()
    scored = next(e for e in events if e["type"] == "scored")
    assert scored["points"] == 16


def test_scored_rows_go_to_the_scored_cards_pile() -> None:
    """R4: scored rows go to the scored-cards pile."""
    state = position(hand=["red 9"], row=["blue 1", "green 2"])
    after, _ = act(state, SCORE)
    assert after.scored[-2:] == cards("blue 1", "green 2")
    assert len(after.scored) == len(state.scored) + 2


def test_early_scoring_is_allowed_even_when_a_card_fits() -> None:
    """R4: the row may be scored first, even when a card fits."""
    state = position(hand=["red 9"], row=["blue 1", "green 2"])
    assert SCORE in legal(state)
    after, _ = act(state, SCORE)
    assert after.step is Step.A  # a card must still be placed
    placed, _ = act(after, add("red 9"))
    assert placed.rows[0] == cards("red 9")


def test_row_scored_says_nothing_about_the_hand() -> None:
    # Whether a card would have fitted (red 9 does, red 0 does not) is hidden hand information:
    # scoring gives the same events either way.
    _, fits = act(position(hand=["red 9"], row=["blue 1", "green 2"]), SCORE)
    _, forced = act(position(hand=["red 0"], row=["blue 1", "green 2"]), SCORE)
    assert fits == forced
    row_scored = next(e for e in fits if e["type"] == "row_scored")
    assert row_scored == {
        "type": "row_scored",
        "seat": 0,
        "cards": list(cards("blue 1", "green 2")),
    }


def test_scoring_is_only_before_placing_in_action_a() -> None:
    """R4: scoring comes before placing, not after."""
    state = position(hand=["red 9", "red 8"], row=["blue 1"])
    after, _ = act(state, add("red 9"))
    with pytest.raises(WrongPhase):
        act(after, SCORE)


def test_scoring_twice_in_one_action_a_is_impossible() -> None:
    """R4: one score, then exactly one card."""
    state = position(hand=["red 9"], row=["blue 1"])
    after, _ = act(state, SCORE)
    assert SCORE not in legal(after)
    with pytest.raises(IllegalAction):
        act(after, SCORE)


def test_an_empty_row_cannot_be_scored() -> None:
    state = position(hand=["red 9"])
    assert SCORE not in legal(state)
    with pytest.raises(IllegalAction):
        act(state, SCORE)


def test_when_no_card_fits_the_row_must_be_scored() -> None:
    """R4: when no card fits, the row must be scored; any card starts the next."""
    # Nothing above the tan 8 except a tan card: every placement is refused, scoring is forced.
    state = position(hand=["red 3", "tan 9", "blue 8", "green 0"], row=["pink 5", "tan 8"])
    assert legal(state) == [SCORE]
    with pytest.raises(IllegalAction, match="must score"):
        act(state, add("tan 9"))
    after, _ = act(state, SCORE)
    assert after.scores[0] == 4
    # A new row then starts with any card.
    assert {a["card"] for a in legal(after)} == set(cards("red 3", "tan 9", "blue 8", "green 0"))


def test_a_row_ending_in_ten_must_be_scored() -> None:
    """R4: nothing is higher than a 10."""
    state = position(hand=["red 3", "blue 9"], row=["pink 10"])
    assert legal(state) == [SCORE]


def test_action_a_cannot_be_skipped_while_a_card_can_be_placed() -> None:
    """R4: a card must be placed."""
    state = position(hand=["red 3"])
    with pytest.raises(IllegalAction):
        act(state, {"type": "end_step"})


def test_an_empty_hand_at_action_a_scores_the_row_then_skips_a() -> None:
    # Only when the whole supply ran dry: nothing to place, so the row must be scored and A ends.
    state = position(hand=[], row=["pink 1", "red 2"])
    assert legal(state) == [SCORE]
    with pytest.raises(IllegalAction):
        act(state, {"type": "end_step"})
    scored, _ = act(state, SCORE)
    assert scored.scores[0] == 4
    assert legal(scored) == [{"type": "end_step"}]
    after, _ = act(scored, {"type": "end_step"})
    assert after.step is Step.B
    assert legal(after) == [{"type": "end_step"}]  # nothing to play, no flip with no hand

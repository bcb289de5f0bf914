"""The worked turn of docs/rules/warp99.md, step by step: a bonus card, then A-B-C again."""

from __future__ import annotations

from rules.warp99.state import Step
from tests.rules.warp99.helpers import act, cards, legal, position


def hand(*names: str) -> tuple[int, ...]:
    return tuple(sorted(cards(*names)))


def add(name: str) -> dict[str, object]:
    return {"type": "add_to_row", "card": cards(name)[0]}


def play(name: str, pile: int) -> dict[str, object]:
    return {"type": "play_to_pile", "card": cards(name)[0], "pile": pile - 1}


def test_the_worked_turn_from_the_rules_page() -> None:
    """R4, R5, R7: the worked turn of the rules page."""
    state = position(
        hand=["green 3", "red 4", "yellow 7", "blue 8", "pink 8", "tan 9"],
        row=["purple 1"],
        tops=("red 6", "blue 2"),
        # Seven cards in hand and row, yet twelve left in her deck: her first deck of 15 has run
        # out already, so she has at least 15 points.
        scores=(23, 18),
        deck=[
            *("tan 0", "tan 1", "yellow 2", "yellow 1", "yellow 0"),
            *("pink 3", "gray 1", "light_blue 0", "blue 5", "orange 2", "red 5"),
            "gray 6",
        ],
    )
    # Action A.
    state, _ = act(state, add("green 3"))
    assert state.rows[0] == cards("purple 1", "green 3")
    # Action B: red 4 on red 6 follows Same Colour and Total 10 → the bonus card, gray 6.
    state, events = act(state, play("red 4", 1))
    assert next(e for e in events if e["type"] == "pile_card")["bonus"] is True
    assert state.hands[0] == hand("yellow 7", "blue 8", "pink 8", "tan 9", "gray 6")
    for move in (
        play("pink 8", 2),  # Total 10 on blue 2
        play("gray 6", 1),  # Total 10 on red 4
        play("yellow 7", 1),  # Plus 1 on gray 6
        play("blue 8", 1),  # Plus 1 on yellow 7
    ):
        state, events = act(state, move)
        assert next(e for e in events if e["type"] == "pile_card")["bonus"] is False
    state, events = act(state, play("tan 9", 1))  # Plus 1 on blue 8: the hand is empty
    assert [e["type"] for e in events][-2:] == ["hand_emptied", "drew"]
    assert state.hands[0] == hand("red 5", "orange 2", "blue 5", "light_blue 0", "gray 1", "pink 3")
    assert (state.turn, state.step) == (0, Step.A)
    # Action A again, then B again.
    state, _ = act(state, add("blue 5"))
    assert state.rows[0] == cards("purple 1", "green 3", "blue 5")
    state, _ = act(state, play("gray 1", 1))  # Total 10 on tan 9
    state, _ = act(state, play("orange 2", 2))  # Total 10 on pink 8
    state, _ = act(state, play("pink 3", 2))  # Plus 1 on orange 2
    assert state.hands[0] == hand("red 5", "light_blue 0")
    # Neither fits on the gray 1 or the pink 3, and a card has been played since A: no flip.
    assert legal(state) == [{"type": "end_step"}]
    state, _ = act(state, {"type": "end_step"})
    # Action C: four cards back up to six, and Ben's turn.
    state, _ = act(state, {"type": "end_step"})
    assert state.hands[0] == hand(
        "red 5", "light_blue 0", "yellow 0", "yellow 1", "yellow 2", "tan 1"
    )
    assert state.decks[0] == cards("tan 0")
    assert (state.turn, state.step) == (1, Step.A)
    assert state.scores == (23, 18)

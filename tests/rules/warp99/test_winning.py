"""The instant win: the moment any score reaches 99 or more, the game ends."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.errors import GameOver
from rules.warp99 import GAME
from rules.warp99.cards import card
from rules.warp99.state import MOVE_BOUND, Step
from tests.rules.warp99.helpers import act, event_types, position


def test_reaching_99_by_scoring_a_row_wins_at_once() -> None:
    """R9: reaching 99 wins at once."""
    state = replace(position(hand=["red 9"], row=["blue 1", "green 2"], seats=3), scores=(95, 1, 2))
    after, events = act(state, {"type": "score_row"})
    assert after.scores == (99, 1, 2)
    assert after.winner == 0
    assert GAME.to_act(after) == frozenset()
    assert event_types(events)[-1] == "game_won"
    result = GAME.result(after)
    assert result is not None
    assert result.winners == (0,)
    assert result.places == (1, 3, 2)
    assert result.scores == (99, 1, 2)


def test_98_points_do_not_win() -> None:
    """R9: 98 is not enough."""
    state = replace(position(hand=["red 9"], row=["blue 1", "green 2"]), scores=(94, 1))
    after, _ = act(state, {"type": "score_row"})
    assert after.scores[0] == 98
    assert after.winner is None
    assert GAME.result(after) is None
    assert GAME.to_act(after) == {0}


def test_going_past_99_also_wins() -> None:
    """R9: 99 or more."""
    state = replace(position(hand=["red 9"], row=["blue 1", "green 2", "tan 3"]), scores=(97, 1))
    after, _ = act(state, {"type": "score_row"})
    assert after.scores[0] == 106
    assert after.winner == 0


def test_the_game_ends_mid_turn_the_moment_99_is_reached_during_a_draw() -> None:
    """R9: the moment it is reached, even halfway through a draw."""
    # Action C draws three; the first empties the deck (+15 → 99): the rest is never drawn.
    state = position(hand=["red 4", "blue 2", "green 7"], deck=["gray 0"], step=Step.C)
    state = replace(state, scores=(84, 1))
    after, events = act(state, {"type": "end_step"})
    assert after.winner == 0
    assert after.scores[0] == 99
    assert len(after.hands[0]) == 4
    assert after.turn == 0
    assert "turn_started" not in event_types(events)
    assert {"type": "drew", "seat": 0, "count": 1, "why": "refill"} in events


def test_the_game_ends_mid_action_b_when_a_bonus_card_empties_the_deck() -> None:
    """R9: or halfway through Action B."""
    state = position(
        hand=["red 4", "pink 5"], tops=("red 6", "blue 9"), deck=["gray 3"], step=Step.B
    )
    state = replace(state, scores=(90, 1))
    after, _ = act(state, {"type": "play_to_pile", "card": card("red", 4), "pile": 0})
    assert after.winner == 0
    assert after.scores[0] == 105
    assert GAME.legal_actions(after, 0) == []


def test_another_seat_can_win_by_its_own_points_only() -> None:
    """R9: the player who reaches 99 wins, nobody else."""
    state = replace(position(hand=["red 9"], row=["blue 1"], seats=3), scores=(0, 98, 98))
    after, _ = act(state, {"type": "score_row"})
    assert after.winner is None


def test_no_action_is_taken_once_the_game_is_over() -> None:
    """R9: the game has ended."""
    state = replace(position(hand=["red 9"], row=["blue 1", "green 2"]), scores=(95, 1))
    after, _ = act(state, {"type": "score_row"})
    with pytest.raises(GameOver):
        act(after, {"type": "add_to_row", "card": card("red", 9)})
    view = GAME.view(after, 1)
    assert view["over"] is True
    assert view["winner"] == 0
    assert view["legal"] == []


# -- platform ruling: the move bound ---------------------------------------------------------


def test_move_bound_ends_the_game_with_standings() -> None:
    """Platform ruling (move bound): the scores rank the players, highest first, equal scores
    sharing a place; nobody reached 99, so no single winner."""
    state = replace(position(hand=["red 9"], step=Step.C, seats=4), scores=(40, 61, 20, 61))
    going, _ = act(replace(state, moves=MOVE_BOUND - 2), {"type": "end_step"})
    assert GAME.result(going) is None and going.moves == MOVE_BOUND - 1

    after, events = act(replace(state, moves=MOVE_BOUND - 1), {"type": "end_step"})
    assert after.moves == MOVE_BOUND
    assert GAME.to_act(after) == frozenset()
    assert all(GAME.legal_actions(after, seat) == [] for seat in range(4))
    result = GAME.result(after)
    assert result is not None
    assert result.scores == (40, 61, 20, 61)
    assert result.winners == (1, 3)
    assert result.places == (3, 1, 4, 1)
    assert result.move_bound == MOVE_BOUND
    assert "move bound" in result.reason
    assert events[-1] == {"type": "game_over", "winners": [1, 3], "move_bound": MOVE_BOUND}
    view = GAME.view(after, 1)
    assert view["over"] is True and view["winner"] is None
    assert view["result"] == result.to_wire()
    with pytest.raises(GameOver):
        act(after, {"type": "end_step"}, seat=1)


def test_move_bound_a_win_on_the_last_move_is_a_win() -> None:
    """Platform ruling (move bound): reaching 99 on the bound's move still wins outright."""
    state = replace(position(hand=["red 9"], row=["blue 1", "green 2"]), scores=(95, 1))
    after, _ = act(replace(state, moves=MOVE_BOUND - 1), {"type": "score_row"})
    result = GAME.result(after)
    assert result is not None
    assert result.winners == (0,) and result.move_bound is None

"""Random legal games for 2..6 seats: the conformance invariants after every action; they end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.rng import Rng
from rules.warp99 import GAME
from rules.warp99.state import HAND_SIZE
from tests.rules.conformance import bot_game, check_ends_near_the_move_bound, play_random_game
from tests.rules.warp99.helpers import HARNESS


@pytest.mark.slow
@settings(max_examples=20)
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**63 - 1))
def test_random_games_keep_every_invariant_and_end(seats: int, seed: int) -> None:
    state, log = play_random_game(HARNESS, seats, seed)
    result = GAME.result(state)
    assert result is not None
    (winner,) = result.winners
    assert state.scores[winner] >= 99
    assert all(score < 99 for s, score in enumerate(state.scores) if s != winner)
    assert log


@settings(max_examples=10)
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**63 - 1))
def test_random_games_with_random_start_sides_keep_every_invariant(seats: int, seed: int) -> None:
    state, _ = play_random_game(HARNESS, seats, seed, options={"random_start_sides": True})
    assert GAME.result(state) is not None


@settings(max_examples=10)
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**63 - 1))
def test_hands_never_hold_more_than_six_and_rows_stay_valid(seats: int, seed: int) -> None:
    state = GAME.new_game(seats, None, seed)
    _, log = play_random_game(HARNESS, seats, seed, check=False)
    for seat, action in log:
        state, _ = GAME.apply(state, seat, action)
        assert all(len(hand) <= HAND_SIZE for hand in state.hands)
        for row in state.rows:
            values = [c % 11 for c in row]
            assert values == sorted(set(values))
            assert len({c // 11 for c in row}) == len(row)


def test_bots_finish_games_at_every_seat_count() -> None:
    for seats in range(2, 7):
        assert GAME.result(bot_game(GAME, seats, seats)) is not None


def test_the_bot_only_makes_legal_moves() -> None:
    rng = Rng.from_seed(4)
    for seats in (2, 6):
        state = GAME.new_game(seats, None, seats)
        while GAME.result(state) is None:
            seat = state.turn
            action = GAME.bot_action(state, seat, rng)
            assert action in GAME.legal_actions(state, seat)
            state, _ = GAME.apply(state, seat, action)


@settings(max_examples=15)
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**32), left=st.integers(1, 60))
def test_random_games_near_the_move_bound_end_by_it_at_the_latest(
    seats: int, seed: int, left: int
) -> None:
    """Platform ruling (move bound): see ``check_ends_near_the_move_bound``."""
    check_ends_near_the_move_bound(HARNESS, seats, seed, left)

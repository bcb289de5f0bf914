"""Random-playout properties of Number Swap (the shared conformance check) and replays."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.codec import pack, unpack
from rules.rng import Rng
from tests.rules.conformance import (
    bot_game,
    check_ends_near_the_move_bound,
    play_random_game,
    replay,
)
from tests.rules.numberswap.helpers import GAME, HARNESS, grid, position


@pytest.mark.parametrize("seats", range(2, 9))
@settings(max_examples=3)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_random_legal_games_keep_every_invariant_to_the_end(seats, seed):
    final, _ = play_random_game(HARNESS, seats, seed)
    assert GAME.result(final) is not None


@settings(max_examples=10)
@given(seats=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_same_seed_and_actions_replay_to_the_same_game(seats, seed):
    final, log = play_random_game(HARNESS, seats, seed, check=False)
    again = replay(GAME, seats, seed, log)
    assert again == final
    assert pack(GAME.view(again, 0)) == pack(GAME.view(final, 0))


@pytest.mark.parametrize("seats", range(2, 9))
def test_bot_policy_only_plays_legal_moves_and_finishes(seats):
    final = bot_game(GAME, seats, seed=seats)
    assert GAME.result(final) is not None


def test_bot_never_undoes_and_waits_instead():
    state = position([grid([8] * 12, up=[0]), grid([9] * 12)], discard=(3, 2))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    assert GAME.to_act(state) == {0, 1}
    assert GAME.bot_action(state, 0, Rng.from_seed(0)) is None
    assert GAME.bot_action(state, 1, Rng.from_seed(0)) is not None


def test_state_dump_is_msgpack_round_trip_exact():
    state = GAME.new_game(8, None, 2**64 - 1)
    data = unpack(pack(GAME.dump_state(state)))
    assert GAME.load_state(data) == state


@settings(max_examples=15)
@given(seats=st.integers(2, 8), seed=st.integers(0, 2**32), left=st.integers(1, 60))
def test_random_games_near_the_move_bound_end_by_it_at_the_latest(seats, seed, left):
    """Platform ruling (move bound): see ``check_ends_near_the_move_bound``."""
    check_ends_near_the_move_bound(HARNESS, seats, seed, left)

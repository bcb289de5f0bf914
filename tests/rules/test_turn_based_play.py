"""Issue 30: no game played in a turn-based room (its ``turn_based_options``) waits for several
seats at once, but for the one step ruling 11 keeps (Number Swap's first-round opening flips,
each player's when they first open the game). Seeded random playouts of every title, as a
turn-based room deals them, to the end."""

from __future__ import annotations

import random

import pytest

from rules.registry import get_game

TITLES = ["numberswap", "warp99", "floor"]


def _allowed_together(game_id: str, state: object) -> bool:
    """The one step where a turn-based game waits for more than one seat."""
    if game_id != "numberswap":
        return False
    phase = getattr(state, "phase", None)
    return getattr(state, "round", 0) == 1 and phase is not None and phase.value == "choose"


@pytest.mark.parametrize("game_id", TITLES)
@pytest.mark.parametrize("seed", range(4))
def test_a_turn_based_game_waits_for_one_seat_at_a_time(game_id: str, seed: int) -> None:
    game = get_game(game_id)
    rnd = random.Random(seed)
    seats = rnd.randint(game.min_seats, min(game.max_seats, 5))
    options = dict(game.turn_based_options)
    if game_id == "numberswap":
        options["target_score"] = 40
    state = game.new_game(seats, options, seed)
    moves = 0
    while game.result(state) is None:
        waiting = game.waiting_for(state)
        assert waiting, "someone is always waited for while the game runs"
        if len(waiting) > 1:
            assert _allowed_together(game_id, state), (
                f"{game_id} waits for seats {sorted(waiting)} at once after {moves} moves"
            )
        assert game.pause_limit(state) is None, "no pause that waits for everyone"
        seat = rnd.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, rnd.choice(game.legal_actions(state, seat)))
        moves += 1
    assert moves > 10

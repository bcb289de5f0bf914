"""Number Swap's bots (issue 14): levels, a risk model of face-down cards, going out safely.

The behaviour tests fail with ``policy_v1.choose`` (each asserts what v1 does there too).
"""

import pytest

from rules.contract import BOT_LEVELS
from rules.numberswap import policy, policy_v1
from rules.numberswap.actions import DiscardDrawn, Draw, SwapDrawn, TakeDiscard
from rules.numberswap.state import Phase, State
from rules.rng import Rng
from tests.rules.conformance import bot_game
from tests.rules.numberswap.helpers import GAME, grid, position

RNG = Rng.from_seed(0)
ALL = tuple(range(12))


def test_strong_does_not_go_out_when_it_would_likely_be_doubled() -> None:
    # Seat 0 has one face-down card and shows 24; seat 1 shows 2 with two cards face down.
    # Drawing a 0, v1 drops it on the last face-down card and goes out (doubled, R7); the strong
    # bot swaps out a face-up 4 and keeps a card face down.
    mine = grid([12, 4, 1, 1, 2, 3, 4, 2, 1, 0, 3, 3], up=ALL[1:])
    theirs = grid([0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 3, 9], up=ALL[2:])
    state = position([mine, theirs], drawn=0)
    move = GAME.bot_action(state, 0, RNG, "strong")
    assert move == SwapDrawn(position=1)
    assert policy_v1.choose(state, 0, RNG) == SwapDrawn(position=0)


def test_strong_takes_the_discard_that_clears_a_column() -> None:
    # Two face-up 9s in column 0 and a 9 on the discard pile: taking it clears the column.
    mine = grid([9, 9, 4, 1, 1, 1, 2, 2, 0, 3, 3, 3], up=(0, 1, 3, 4, 6, 7))
    theirs = grid([5] * 12, up=(0, 1))
    state = position([mine, theirs], discard=(9,))
    assert GAME.bot_action(state, 0, RNG, "strong") == TakeDiscard(position=2)
    assert policy_v1.choose(state, 0, RNG) != TakeDiscard(position=2)


# Two strong bots, each down to its last face-down card, that met in a real game (seed 0):
# neither would go out, and taking the discard seemed better than drawing a card it might have
# to keep or turn the last card up for. So they passed a 3, a 4 and a 5 round for ever.
STANDOFF_MINE = grid([2, -1, 0, 1, 0, 1, -1, 2, 3, -2, 2, 4], up=ALL[:11])
STANDOFF_THEIRS = grid([-1, -1, 4, 1, 4, 0, -1, 3, 0, 0, 0, 3], up=(0, 1, *ALL[3:]))
PILE = (5,) * 60


@pytest.mark.parametrize("level", ["strong", "normal"])
def test_strong_draws_rather_than_take_a_discard_that_mends_nothing(level: str) -> None:
    # A 5 on the pile, a face-up 3 in the grid: swapping them only puts off drawing (issue 31).
    # v1 draws here too.
    state = position([STANDOFF_MINE, STANDOFF_THEIRS], discard=(5,), draw=PILE)
    for seed in range(20):
        assert GAME.bot_action(state, 0, Rng.from_seed(seed), level) == Draw()
    assert policy_v1.choose(state, 0, RNG) == Draw()


def test_strong_still_takes_a_discard_that_mends_its_grid_in_a_standoff() -> None:
    # The 5 in the grid and a 4 on the pile: a swap worth making.
    mine = grid([2, -1, 0, 1, 0, 1, -1, 2, 5, -2, 2, 4], up=ALL[:11])
    state = position([mine, STANDOFF_THEIRS], discard=(4,), draw=PILE)
    assert GAME.bot_action(state, 0, RNG, "strong") == TakeDiscard(position=8)


@pytest.mark.parametrize("seed", range(8))
def test_two_strong_bots_finish_a_heads_up_game(seed: int) -> None:
    """Strong against strong, 2 seats: every round ends (issue 31: the bots risk going out
    only in a standoff, so a round of treading water would never end)."""
    state = GAME.new_game(2, None, seed)
    rng = Rng.from_seed(seed)
    for _ in range(2_000):
        if GAME.result(state) is not None:
            break
        for seat in sorted(GAME.to_act(state)):
            move = GAME.bot_action(state, seat, rng, "strong")
            _, rng = rng.next64()
            if move is not None:
                state, _ = GAME.apply(state, seat, move)
                break
    assert GAME.result(state) is not None, "a game of two strong bots ends"


# Seat 0 shows 13 with its last card face down and has drawn a 0; seat 1 shows everything.
WARY_MINE = grid([1, 1, 2, 2, 3, 0, 1, 2, 0, 1, 0, 9], up=ALL[:11])


def _wary(their_last: int) -> State:
    theirs = grid([2, 2, 1, 1, 3, 0, 2, 1, 0, 1, 0, their_last], up=ALL)
    return position([WARY_MINE, theirs], drawn=0, draw=PILE)


def test_strong_does_not_go_out_six_ahead_as_the_last_turn_could_close_the_gap() -> None:
    # Seat 1 shows 19: a 0 on the last card takes seat 0 out at 13, six under, but seat 1's
    # last turn may well mend its grid by that much (R7 would double seat 0). Strong keeps the
    # card down and drops the 0 on its 3; normal goes out (issue 31).
    state = _wary(6)
    assert GAME.bot_action(state, 0, RNG, "strong") == SwapDrawn(position=4)
    assert GAME.bot_action(state, 0, RNG, "normal") == SwapDrawn(position=11)


def test_strong_goes_out_eleven_ahead() -> None:
    state = _wary(11)
    assert GAME.bot_action(state, 0, RNG, "strong") == SwapDrawn(position=11)


def test_an_unknown_level_is_refused() -> None:
    state = position([grid([5] * 12), grid([5] * 12)])
    with pytest.raises(ValueError):
        GAME.bot_action(state, 0, RNG, "expert")


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_every_level_plays_legal_moves_and_finishes_games(level: str) -> None:
    for seats in (2, 5):
        state = GAME.new_game(seats, {"target_score": 40}, seats)
        rng = Rng.from_seed(seats)
        while GAME.result(state) is None:
            for seat in sorted(GAME.to_act(state)):
                move = GAME.bot_action(state, seat, rng, level)
                _, rng = rng.next64()
                if move is not None:
                    assert move in GAME.legal_actions(state, seat)
                    state, _ = GAME.apply(state, seat, move)
                    break
        assert GAME.result(state) is not None
    assert GAME.result(bot_game(GAME, 2, 1)) is not None
    assert Phase.OVER


def test_strong_puts_a_drawn_card_beside_its_twin_to_hunt_a_clear_at_a_bigger_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A drawn 8 and a face-up 8 in the last column (two cards there still face down): at a
    # table of three strong swaps the 8 in beside its twin, a pair toward a clear (R5);
    # weighing pairs as the other levels do (and as it does heads-up), it would throw the 8
    # away and turn the card up instead (issue 31: hunting clears harder lifted strong at a
    # table of eight). Found in a game of three strong bots (seed 0).
    mine = grid([2, 4, 5, 5, 12, 2, 7, 3, 4, 7, 12, 8], up=(3, 11))
    ben = grid([6, 5, 12, 9, 9, 4, 11, 6, 12, 0, 10, 0], up=(1, 6, 7))
    cleo = grid([0, 2, 7, 0, 9, 11, 3, 3, 2, 7, 2, 5], up=(1, 7))
    three = position([mine, ben, cleo], drawn=8, discard=(6,))
    assert GAME.bot_action(three, 0, RNG, "strong") == SwapDrawn(position=9)
    two = position([mine, ben], drawn=8, discard=(6,))
    assert GAME.bot_action(two, 0, RNG, "strong") == DiscardDrawn(flip=9)
    monkeypatch.setattr(policy, "PAIR_STRONG", policy.PAIR)
    assert GAME.bot_action(three, 0, RNG, "strong") == DiscardDrawn(flip=9)

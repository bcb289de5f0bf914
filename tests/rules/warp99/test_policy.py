"""The Warp 99 bots: the behaviours issue 14 asks for, a view-only choice, legal moves, and
games that end at every level.

Each behaviour test drives a policy through a hand-built position; ``V1_FAILS`` runs the same
bodies against the frozen ``policy_v1`` bot to show they pin something today's bot got wrong.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest

from rules.contract import BOT_LEVELS
from rules.rng import Rng
from rules.warp99 import GAME, policy_v1
from rules.warp99.actions import AnyAction
from rules.warp99.state import State, Step
from tests.rules.warp99.helpers import cards, legal, position

RNG = Rng.from_seed(0)
#: ``(state, seat, rng) -> action``
Policy = Callable[[State, int, Rng], AnyAction]


def strong(state: State, seat: int, rng: Rng) -> AnyAction:
    return GAME.bot_action(state, seat, rng, level="strong")


def v1(state: State, seat: int, rng: Rng) -> AnyAction:
    return policy_v1.choose(state, seat, rng)


def first_move(policy: Policy, state: State) -> dict[str, object]:
    return GAME.dump_action(policy(state, 0, RNG))


def play_turn(policy: Policy, state: State) -> list[str]:
    """Let ``policy`` play seat 0's turn out; the event types of the whole turn."""
    types: list[str] = []
    while state.turn == 0 and GAME.result(state) is None:
        state, events = GAME.apply(state, 0, policy(state, 0, RNG))
        types.extend(e["type"] for e in events)
    return types


# -- the behaviours ---------------------------------------------------------------------------


def scores_the_row_when_that_wins_on_the_spot(policy: Policy) -> None:
    # 90 points and a row of three (9 points): scoring it reaches 99, though a card still fits.
    state = position(
        hand=["blue 5", "pink 7", "tan 9", "gray 0", "red 8", "green 8"],
        row=["red 1", "orange 2", "yellow 3"],
        scores=(90, 1),
    )
    assert first_move(policy, state) == {"type": "score_row"}
    assert "game_won" in play_turn(policy, state)


def scores_the_row_when_the_decks_points_then_win_this_turn(policy: Policy) -> None:
    # 80 + a row of two (4) = 84; the full deck's last card is drawn in C this turn for 15 more.
    # Without banking the row first, the 15 only reach 95.
    state = position(
        hand=["blue 5", "pink 7", "tan 9", "gray 0", "red 8", "green 8"],
        row=["red 1", "orange 2"],
        deck=["gray 1"],
        scores=(80, 1),
    )
    assert first_move(policy, state) == {"type": "score_row"}
    assert "game_won" in play_turn(policy, state)


def finds_the_b_play_order_that_empties_the_hand(policy: Policy) -> None:
    # Orange 7 fits both piles (Plus 1 on the gray 6, Total 10 on the blue 3); only on the blue 3
    # does it leave the gray 6 for the gray 2 (Same Colour), emptying the hand.
    state = position(
        hand=["orange 7", "gray 2"],
        tops=("gray 6", "blue 3"),
        step=Step.B,
        played_to_pile=True,
    )
    assert first_move(policy, state) == {
        "type": "play_to_pile",
        "card": cards("orange 7")[0],
        "pile": 1,
    }
    assert "hand_emptied" in play_turn(policy, state)


def plays_the_bonus_card_last_when_that_empties_the_hand(policy: Policy) -> None:
    # Red 4 on the red 6 follows two rules: played first it draws a bonus card (gray 0, which
    # fits nowhere); played last it earns no bonus (R12) but empties the hand (R7).
    state = position(
        hand=["red 4", "orange 8"],
        tops=("red 6", "blue 2"),
        deck=["tan 5", "gray 0"],
        step=Step.B,
        played_to_pile=True,
    )
    assert first_move(policy, state) == {
        "type": "play_to_pile",
        "card": cards("orange 8")[0],
        "pile": 1,
    }
    assert "hand_emptied" in play_turn(policy, state)


def picks_the_row_card_that_keeps_the_hand_playable(policy: Policy) -> None:
    # Tan 3 and pink 7 both fit the row. The tan 3 starts the chain on the light blue 2 (tan 3,
    # purple 4, purple 8, purple 5; red 0 on the red 5); the pink 7 fits no pile. So the pink 7
    # goes into the row, and the hand empties.
    state = position(
        hand=["tan 3", "pink 7", "purple 4", "purple 8", "purple 5", "red 0"],
        row=["green 0", "purple 1", "orange 2"],
        tops=("red 5", "light_blue 2"),
    )
    assert first_move(policy, state) == {"type": "add_to_row", "card": cards("pink 7")[0]}
    assert "hand_emptied" in play_turn(policy, state)


def flips_the_rule_card_that_lets_the_hand_empty(policy: Policy) -> None:
    # Stuck right after Action A. Same Number would let the green 6 onto either pile (two
    # plays, then the yellow 3 is stuck); Times or Divided by 2 lets the yellow 3 onto a 6 and
    # the green 6 onto the yellow 3: the hand empties.
    state = position(hand=["green 6", "yellow 3"], tops=("red 6", "blue 6"), step=Step.B)
    assert first_move(policy, state) == {"type": "flip_rule", "rule": 2}
    assert "hand_emptied" in play_turn(policy, state)


def does_not_chase_bonus_cards_from_a_short_deck(policy: Policy) -> None:
    # A short deck (R11) scores nothing when it runs out: the red 4's bonus on the red 6 would
    # only swap a card for a card. Playing it is how the dry-supply stall loops (see the move
    # bound on the rules page), so B ends instead; with a full deck the bot plays it.
    short = position(
        hand=["red 4", "gray 0"],
        tops=("red 6", "blue 2"),
        deck=["tan 5"],
        step=Step.B,
        played_to_pile=True,
        short_decks=(0,),
    )
    assert first_move(policy, short) == {"type": "end_step"}
    full = replace(short, short_decks=())
    assert first_move(policy, full)["type"] == "play_to_pile"


BEHAVIOURS = [
    scores_the_row_when_that_wins_on_the_spot,
    scores_the_row_when_the_decks_points_then_win_this_turn,
    finds_the_b_play_order_that_empties_the_hand,
    plays_the_bonus_card_last_when_that_empties_the_hand,
    picks_the_row_card_that_keeps_the_hand_playable,
    flips_the_rule_card_that_lets_the_hand_empty,
    does_not_chase_bonus_cards_from_a_short_deck,
]


def test_scores_the_row_when_that_wins_on_the_spot() -> None:
    scores_the_row_when_that_wins_on_the_spot(strong)


def test_scores_the_row_when_the_decks_points_then_win_this_turn() -> None:
    scores_the_row_when_the_decks_points_then_win_this_turn(strong)


def test_finds_the_b_play_order_that_empties_the_hand() -> None:
    finds_the_b_play_order_that_empties_the_hand(strong)


def test_plays_the_bonus_card_last_when_that_empties_the_hand() -> None:
    plays_the_bonus_card_last_when_that_empties_the_hand(strong)


def test_picks_the_row_card_that_keeps_the_hand_playable() -> None:
    picks_the_row_card_that_keeps_the_hand_playable(strong)


def test_flips_the_rule_card_that_lets_the_hand_empty() -> None:
    flips_the_rule_card_that_lets_the_hand_empty(strong)


def test_does_not_chase_bonus_cards_from_a_short_deck() -> None:
    does_not_chase_bonus_cards_from_a_short_deck(strong)


@pytest.mark.parametrize("behaviour", BEHAVIOURS, ids=lambda b: b.__name__)
def test_v1_fails_each_behaviour(behaviour: Callable[[Policy], None]) -> None:
    # Each behaviour test pins something today's bot (the frozen v1) gets wrong.
    with pytest.raises(AssertionError):
        behaviour(v1)


def test_an_unknown_level_is_refused() -> None:
    state = GAME.new_game(2, None, 0)
    with pytest.raises(ValueError):
        GAME.bot_action(state, 0, RNG, level="grandmaster")


# -- every level: legal, view-only, games end -------------------------------------------------


def reachable_states(seed: int, count: int) -> list[State]:
    """States met in a seeded game of bots and random moves mixed."""
    rnd = random.Random(seed)
    state = GAME.new_game(2 + seed % 5, None, seed)
    seen: list[State] = []
    while GAME.result(state) is None and len(seen) < count:
        seat = state.turn
        seen.append(state)
        if rnd.random() < 0.5:
            action = GAME.bot_action(state, seat, Rng.from_seed(rnd.getrandbits(32)))
        else:
            action = rnd.choice(GAME.legal_actions(state, seat))
        state, _ = GAME.apply(state, seat, action)
    return seen


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_each_level_always_returns_a_legal_action(level: str) -> None:
    checked = 0
    for seed in range(8):
        for state in reachable_states(seed, 150):
            rng = Rng.from_seed(seed * 1000 + checked)
            move = GAME.dump_action(GAME.bot_action(state, state.turn, rng, level=level))
            assert move in legal(state, state.turn)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_bot_only_games_end_at_every_level(level: str) -> None:
    for seats in (2, 4, 6):
        for seed in range(2):
            state = GAME.new_game(seats, None, seed)
            rng = Rng.from_seed(seed)
            for _ in range(GAME.move_bound):
                if GAME.result(state) is not None:
                    break
                action = GAME.bot_action(state, state.turn, rng, level=level)
                _, rng = rng.next64()
                state, _ = GAME.apply(state, state.turn, action)
            result = GAME.result(state)
            assert result is not None and result.move_bound is None


def test_easy_mostly_starts_its_row_with_its_lowest_card() -> None:
    """easy is a sensible beginner with slips: it usually opens with its lowest card (leaving
    room to grow the row), and only sometimes with another one."""
    from rules.warp99 import policy

    state = GAME.new_game(2, {}, 7)
    hand = state.hands[0]
    lowest = min(card % 11 for card in hand)
    picks = [policy.choose(state, 0, Rng.from_seed(seed), "easy") for seed in range(300)]
    low = sum(getattr(a, "card", -1) % 11 == lowest for a in picks)
    assert 0.6 * len(picks) <= low < len(picks)


def test_normal_often_takes_its_second_best_row_card() -> None:
    """normal slips often (a mid-level player): over many rngs it opens its row with strong's
    choice most of the time, but with another card a sizeable share of the time."""
    from rules.warp99 import policy

    state = GAME.new_game(2, {}, 7)
    best = GAME.dump_action(policy.choose(state, 0, RNG, "strong"))
    picks = [
        GAME.dump_action(policy.choose(state, 0, Rng.from_seed(seed), "normal"))
        for seed in range(300)
    ]
    same = sum(p == best for p in picks)
    assert 0.45 * len(picks) <= same <= 0.75 * len(picks)

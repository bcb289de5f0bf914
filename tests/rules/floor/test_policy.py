"""The Floor bot: always legal, finishes games, and plays better than chance."""

import random

from rules.floor import GAME
from rules.floor.policy import choose
from rules.floor.state import Phase
from rules.rng import Rng
from tests.rules.conformance import bot_game
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    add,
    freeze,
    legal,
    num,
    position,
    power,
    take1,
    take2,
)

#: The Floor bot uses no chance, but every policy takes an RNG.
RNG = Rng.from_seed(0)


def test_bots_finish_games_at_every_seat_count() -> None:
    for seats in range(2, 9):
        for seed in range(3):
            state = bot_game(GAME, seats, seed)
            assert GAME.result(state) is not None


def test_bot_moves_are_among_the_legal_actions() -> None:
    rnd = random.Random(4)
    checked = 0
    for seed in range(12):
        state = GAME.new_game(2 + seed % 7, None, seed)
        while GAME.result(state) is None:
            seat = state.turn
            move = GAME.dump_action(GAME.bot_action(state, seat, Rng.from_seed(0)))
            assert move in legal(state, seat)
            checked += 1
            # Mix in random moves so the bot meets varied positions.
            if rnd.random() < 0.5:
                state, _ = GAME.apply(state, seat, move)
            else:
                state, _ = GAME.apply(state, seat, rnd.choice(GAME.legal_actions(state, seat)))
    assert checked > 200


def test_bot_beats_random_play_heads_up() -> None:
    wins = 0
    for seed in range(100):
        rnd = random.Random(seed)
        state = GAME.new_game(2, None, seed)
        while GAME.result(state) is None:
            seat = state.turn
            if seat == seed % 2:
                action = choose(state, seat, RNG)
            else:
                action = rnd.choice(GAME.legal_actions(state, seat))
            state, _ = GAME.apply(state, seat, action)
        result = GAME.result(state)
        assert result is not None
        wins += (seed % 2) in result.winners
    assert wins >= 70


def test_bot_answers_a_freeze_with_a_freeze_and_stacks_takes() -> None:
    frozen = position(
        [[num(STAR, 1)], [freeze(SQUARE), num(CIRCLE, 1)]],
        shape=CIRCLE,
        phase=Phase.FREEZE,
        turn=1,
        by=0,
    )
    assert GAME.dump_action(choose(frozen, 1, RNG)) == {"type": "freeze", "card": freeze(SQUARE)}
    taking = position(
        [[num(STAR, 1)], [take1(SQUARE), take2(STAR), num(CIRCLE, 1)]],
        shape=CIRCLE,
        phase=Phase.TAKE,
        stack=1,
        turn=1,
        by=0,
    )
    assert GAME.dump_action(choose(taking, 1, RNG)) == {"type": "take", "card": take2(STAR)}


def test_bot_sheds_the_most_cards() -> None:
    # On circle 7: circle 1 alone sheds one card, star 3 + square 4 two, but
    # Add + square 4 (7 + 4 -> 1) with circle 1 riding along sheds three.
    hand = [num(CIRCLE, 1), num(STAR, 3), num(SQUARE, 4), add(), power()]
    state = position(
        [hand, [num(STAR, 7), num(STAR, 6), num(STAR, 5), num(STAR, 4)]], shape=CIRCLE, number=7
    )
    move = GAME.dump_action(choose(state, 0, RNG))
    assert {k: move[k] for k in ("type", "card", "operand", "riders")} == {
        "type": "operation",
        "card": add(),
        "operand": num(SQUARE, 4),
        "riders": [num(CIRCLE, 1)],
    }


def test_bot_keeps_its_power_for_last() -> None:
    state = position(
        [[num(CIRCLE, 1), power()], [num(STAR, 7), num(STAR, 6), num(STAR, 5), num(STAR, 4)]],
        shape=CIRCLE,
        number=7,
    )
    assert GAME.dump_action(choose(state, 0, RNG))["type"] == "number"
    state = position([[power()], [num(STAR, 7)]], shape=CIRCLE, number=7)
    assert GAME.dump_action(choose(state, 0, RNG))["type"] == "power"


def test_bot_attacks_a_player_about_to_finish() -> None:
    hand = [num(CIRCLE, 1), num(SQUARE, 3), num(STAR, 4, 1), take1(CIRCLE)]
    many = [num(STAR, 7), num(STAR, 6), num(STAR, 5), num(STAR, 4)]
    # Three seats: a two-card sum beats the Take while the next player is far from done...
    more = [num(TRIANGLE, 2), num(TRIANGLE, 3), num(TRIANGLE, 4), num(TRIANGLE, 5)]
    calm = position([hand, many, more], shape=CIRCLE, number=7)
    assert GAME.dump_action(choose(calm, 0, RNG))["type"] == "number"
    # ...but not when they are down to one card.
    threatened = position([hand, [num(STAR, 7, 1)], many], shape=CIRCLE, number=7)
    assert GAME.dump_action(choose(threatened, 0, RNG)) == {"type": "take", "card": take1(CIRCLE)}


# -- levels (issue 14); each test below fails with policy_v1.choose ---------------------------

import pytest  # noqa: E402

from rules.contract import BOT_LEVELS  # noqa: E402
from rules.floor import policy_v1  # noqa: E402
from tests.rules.floor.helpers import swap  # noqa: E402

OPPONENT = [num(STAR, 7), num(STAR, 6), num(STAR, 5), num(STAR, 4), num(STAR, 3)]


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_a_bot_holding_only_powers_plays_one_instead_of_drawing_forever(level: str) -> None:
    state = position([[power(0), power(1)], OPPONENT], shape=CIRCLE, number=7)
    assert GAME.dump_action(GAME.bot_action(state, 0, RNG, level))["type"] == "power"
    assert policy_v1.choose(state, 0, RNG) == GAME.parse_action({"type": "draw"})


def test_strong_plays_a_swap_first_heads_up_to_move_again() -> None:
    # Heads-up a Swap (not charged) is a free card: the same seat moves again, then sheds.
    hand = [swap(), num(CIRCLE, 1), num(SQUARE, 3), num(STAR, 4, 1)]
    state = position([hand, OPPONENT], shape=CIRCLE, number=7)
    # Strong's heuristic, before its look-ahead (which may overrule it: see the search tests).
    assert GAME.dump_action(choose(state, 0, RNG, "strong", search=False))["type"] == "swap"
    assert GAME.dump_action(policy_v1.choose(state, 0, RNG))["type"] != "swap"


def test_strong_plays_a_take_first_heads_up_before_shedding() -> None:
    # A Take lands the other player a stack: unless they stack back, the floor is unchanged and
    # this seat moves again, so it comes before the two-card sum.
    hand = [take2(CIRCLE), num(SQUARE, 3), num(STAR, 4, 1), num(CIRCLE, 9)]
    state = position([hand, OPPONENT], shape=CIRCLE, number=7)
    # Strong's heuristic, before its look-ahead (which may overrule it: see the search tests).
    assert GAME.dump_action(choose(state, 0, RNG, "strong", search=False)) == {
        "type": "take",
        "card": take2(CIRCLE),
    }
    assert GAME.dump_action(policy_v1.choose(state, 0, RNG))["type"] == "number"


def test_strong_breaks_a_freeze_with_operations_rather_than_sending_it_back() -> None:
    # Two Adds shed two cards and keep the turn; a Freeze back sheds one and gives it away.
    hand = [freeze(SQUARE), add(0), add(1), num(CIRCLE, 1)]
    state = position([OPPONENT, hand], shape=CIRCLE, phase=Phase.FREEZE, turn=1, by=0)
    assert GAME.dump_action(GAME.bot_action(state, 1, RNG, "strong")) == {
        "type": "discard_operations",
        "cards": [add(0), add(1)],
    }
    assert GAME.dump_action(policy_v1.choose(state, 1, RNG))["type"] == "freeze"


def test_an_unknown_level_is_refused() -> None:
    state = position([[power()], OPPONENT], shape=CIRCLE, number=7)
    with pytest.raises(ValueError):
        GAME.bot_action(state, 0, RNG, "expert")


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_every_level_plays_legal_moves_and_finishes_games(level: str) -> None:
    for seats in (2, 3, 5, 8):
        for seed in range(4):
            state = GAME.new_game(seats, None, 900_000 + seed)
            rng = Rng.from_seed(seed)
            while GAME.result(state) is None:
                seat = state.turn
                move = GAME.bot_action(state, seat, rng, level)
                assert GAME.dump_action(move) in legal(state, seat)
                _, rng = rng.next64()
                state, _ = GAME.apply(state, seat, move)
            result = GAME.result(state)
            assert result is not None and result.move_bound is None


@pytest.mark.parametrize("seed", [900031, 900064, 900252])
def test_two_bot_games_that_v1_never_finished_now_end(seed: int) -> None:
    # bench.game_lengths's seeding at 2 seats: these games ran into the move bound with v1.
    state = bot_game(GAME, 2, seed)
    result = GAME.result(state)
    assert result is not None and result.move_bound is None


def test_easy_now_and_then_draws_or_plays_any_fitting_card_instead_of_its_rule() -> None:
    # Easy's rule plays the first fitting single Number (circle 1); a beginner sometimes draws
    # instead, or plays another card that fits. Strong and v1 never draw here.
    hand = [num(CIRCLE, 1), num(CIRCLE, 5), num(SQUARE, 3), num(STAR, 4, 1), take1(CIRCLE)]
    state = position([hand, OPPONENT], shape=CIRCLE, number=7)
    moves = [
        GAME.dump_action(GAME.bot_action(state, 0, Rng.from_seed(s), "easy")) for s in range(200)
    ]
    kinds = {m["type"] for m in moves}
    assert "draw" in kinds and "take" in kinds
    assert sum(m["type"] == "draw" for m in moves) < 100
    assert policy_v1.choose(state, 0, RNG) != GAME.parse_action({"type": "draw"})
    assert GAME.dump_action(GAME.bot_action(state, 0, RNG, "strong"))["type"] != "draw"


def test_easy_mostly_follows_its_rule_and_slips_about_one_play_in_three() -> None:
    # Easy's rule here is the first fitting single Number (circle 1); it draws or plays another
    # fitting card on about a third of its plays, so the rule's play is still most of them.
    hand = [num(CIRCLE, 1), num(CIRCLE, 5), num(SQUARE, 3), num(STAR, 4, 1), take1(CIRCLE)]
    state = position([hand, OPPONENT], shape=CIRCLE, number=7)
    moves = [
        GAME.dump_action(GAME.bot_action(state, 0, Rng.from_seed(s), "easy")) for s in range(400)
    ]
    first = sum(
        m == {"type": "number", "cards": [num(CIRCLE, 1)], "shape": "circle"} for m in moves
    )
    draws = sum(m["type"] == "draw" for m in moves)
    assert 40 <= draws <= 100
    assert first >= 240


# -- strong's look-ahead (determinised playouts) -------------------------------------------


def test_strong_plays_its_power_rather_than_drawing_when_the_playouts_say_so() -> None:
    # Nothing fits triangle 2. The heuristic keeps a lone Power for last and draws; the
    # opponent is down to two stars. Playing the Power now and naming circle (two of its three
    # cards) sheds a card and leaves a shape the playouts find the opponent rarely holds.
    hand = [num(CIRCLE, 3), num(CIRCLE, 9), num(STAR, 0, 1), power(1)]
    state = position([hand, [num(STAR, 5), num(STAR, 9)]], shape=TRIANGLE, number=2)
    assert choose(state, 0, RNG, "strong", search=False) == GAME.parse_action({"type": "draw"})
    assert policy_v1.choose(state, 0, RNG) == GAME.parse_action({"type": "draw"})
    for seed in range(10):
        move = GAME.dump_action(GAME.bot_action(state, 0, Rng.from_seed(seed), "strong"))
        assert move == {"type": "power", "card": power(1), "shape": "circle"}


def test_strong_searches_only_from_its_view() -> None:
    # The same view with the opponent's two cards and the draw pile dealt differently: the
    # search deals the hidden cards from the view and the rng alone, so the move is the same.
    hand = [num(CIRCLE, 3), num(CIRCLE, 9), num(STAR, 0, 1), power(1)]
    state = position([hand, [num(STAR, 5), num(STAR, 9)]], shape=TRIANGLE, number=2)
    other = position([hand, [num(CIRCLE, 5), num(CIRCLE, 7)]], shape=TRIANGLE, number=2)
    assert GAME.view(other, 0) == GAME.view(state, 0)
    for seed in range(5):
        rng = Rng.from_seed(seed)
        assert GAME.bot_action(other, 0, rng, "strong") == GAME.bot_action(state, 0, rng, "strong")

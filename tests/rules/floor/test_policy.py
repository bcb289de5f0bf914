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
    for seed in range(6):
        state = GAME.new_game(2 + seed, None, seed)
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
        [[num(STAR, 1), power()], [num(STAR, 7), num(STAR, 6), num(STAR, 5), num(STAR, 4)]],
        shape=CIRCLE,
        number=7,
    )
    assert GAME.dump_action(choose(state, 0, RNG)) == {"type": "draw"}
    state = position([[power()], [num(STAR, 7)]], shape=CIRCLE, number=7)
    assert GAME.dump_action(choose(state, 0, RNG))["type"] == "power"


def test_bot_attacks_a_player_about_to_finish() -> None:
    hand = [num(CIRCLE, 1), num(CIRCLE, 2), take1(CIRCLE)]
    calm = position(
        [hand, [num(STAR, 7), num(STAR, 6), num(STAR, 5), num(STAR, 4)]], shape=CIRCLE, number=7
    )
    assert GAME.dump_action(choose(calm, 0, RNG))["type"] == "number"
    threatened = position([hand, [num(STAR, 7)]], shape=CIRCLE, number=7)
    assert GAME.dump_action(choose(threatened, 0, RNG)) == {"type": "take", "card": take1(CIRCLE)}

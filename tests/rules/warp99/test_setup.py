"""Setup: the 110 cards, personal decks and hands, the two piles, rule cards, starting scores."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.errors import InvalidOptions, InvalidSeatCount
from rules.rng import Rng
from rules.warp99 import GAME
from rules.warp99.cards import ALL_CARDS, COLOUR, COLOURS, VALUE, card, label
from rules.warp99.state import Step
from tests.rules.warp99.helpers import all_cards


def test_there_are_110_unique_cards_valued_0_to_10_in_ten_colours() -> None:
    """R1: 110 cards, 0 to 10 in each of ten colours."""
    pairs = {(COLOUR[c], VALUE[c]) for c in range(110)}
    assert len(pairs) == 110
    assert Counter(VALUE) == {v: 10 for v in range(11)}
    assert [c.key for c in COLOURS] == [
        "red",
        "orange",
        "yellow",
        "green",
        "light_blue",
        "blue",
        "purple",
        "pink",
        "tan",
        "gray",
    ]


def test_every_colour_has_its_own_name_and_symbol() -> None:
    """R1: every colour has a name and a symbol too."""
    assert len({c.name for c in COLOURS}) == 10
    assert len({c.symbol for c in COLOURS}) == 10
    # On the wire a card is colour x 11 + value (docs/rules/warp99.md): Light blue 7 is 51.
    assert card("light_blue", 7) == 4 * 11 + 7 == 51
    assert (COLOURS[COLOUR[51]].name, VALUE[51], label(51)) == ("Light blue", 7, "Light blue 7")


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_setup_deals_15_card_decks_6_card_hands_and_two_pile_cards(seats: int) -> None:
    """R2: decks of 15, hands of 6 from them, two pile cards."""
    state = GAME.new_game(seats, None, 11)
    assert all(len(hand) == 6 for hand in state.hands)
    assert all(len(deck) == 9 for deck in state.decks)
    assert all(len(pile) == 1 for pile in state.piles)
    assert len(state.reserve) == 110 - 15 * seats - 2
    assert state.scored == ()
    assert all(row == () for row in state.rows)
    assert all_cards(state) == Counter(range(110))


def test_hands_come_from_the_personal_decks_and_piles_from_the_reserve() -> None:
    """R2: hands come from the own deck, the pile cards from the reserve."""
    state = GAME.new_game(2, None, 5)
    shuffled, _ = Rng.from_seed(5).shuffle(ALL_CARDS)
    for s in range(2):
        own = set(shuffled[15 * s : 15 * (s + 1)])
        assert set(state.hands[s]) | set(state.decks[s]) == own
    reserve = set(shuffled[30:])
    assert {state.piles[0][0], state.piles[1][0]} <= reserve
    assert set(state.reserve) == reserve - {state.piles[0][0], state.piles[1][0]}


def test_rule_cards_start_on_side_1() -> None:
    """R2: the rule cards start on side 1."""
    for seed in range(20):
        assert GAME.new_game(3, None, seed).sides == (1, 1, 1)


def test_random_start_sides_variant_can_start_on_any_sides() -> None:
    """R2: with the option, any start sides."""
    seen = {GAME.new_game(3, {"random_start_sides": True}, seed).sides for seed in range(200)}
    assert len(seen) == 8


def test_random_start_sides_option_must_be_a_boolean() -> None:
    """R2: the random start sides are an on/off option."""
    with pytest.raises(InvalidOptions):
        GAME.new_game(3, {"random_start_sides": "sometimes"}, 1)
    with pytest.raises(InvalidOptions):
        GAME.new_game(3, {"speed": 2}, 1)


def test_starting_scores_go_up_by_one_per_seat() -> None:
    """R3: seat 1 starts on 0, each later seat one point more."""
    assert GAME.new_game(6, None, 1).scores == (0, 1, 2, 3, 4, 5)


def test_the_first_seat_starts_with_action_a() -> None:
    state = GAME.new_game(4, None, 1)
    assert GAME.to_act(state) == {0}
    assert state.step is Step.A
    assert not state.flip_used


@pytest.mark.parametrize("seats", [1, 7, 8])
def test_warp_99_is_for_2_to_6_players(seats: int) -> None:
    with pytest.raises(InvalidSeatCount):
        GAME.new_game(seats, None, 1)

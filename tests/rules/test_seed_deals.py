"""Each rules page's "How the seed deals": the deal is exactly the shuffle it describes, from a
SplitMix64 generator started from the deal seed (docs/fairplay.md)."""

from __future__ import annotations

import pytest

from rules.floor.cards import DECK as FLOOR_DECK
from rules.numberswap.cards import DECK as NS_DECK
from rules.registry import get_game
from rules.rng import Rng
from rules.warp99.cards import ALL_CARDS

SEEDS = [0, 1, 0xDEADBEEF, (1 << 64) - 1]


@pytest.mark.parametrize("seed", SEEDS)
def test_number_swap_deals_grids_from_the_front_of_the_shuffle_and_the_discard_from_its_end(
    seed: int,
) -> None:
    deck, _ = Rng.from_seed(seed).shuffle(NS_DECK)
    state = get_game("numberswap").new_game(3, {}, seed)
    assert [g.cards for g in state.grids] == [deck[0:12], deck[12:24], deck[24:36]]
    assert state.discard == (deck[-1],)
    assert state.draw == deck[36:-1]


@pytest.mark.parametrize("seed", SEEDS)
def test_warp99_deals_decks_of_15_with_the_last_6_as_the_hand_and_piles_off_the_reserve(
    seed: int,
) -> None:
    cards, _ = Rng.from_seed(seed).shuffle(ALL_CARDS)
    state = get_game("warp99").new_game(2, {}, seed)
    for seat in range(2):
        deck = cards[15 * seat : 15 * (seat + 1)]
        assert state.hands[seat] == tuple(sorted(deck[-6:]))
        assert state.decks[seat] == deck[:-6]
    reserve = cards[30:]
    assert state.piles == ((reserve[-1],), (reserve[-2],))
    assert state.reserve == reserve[:-2]


@pytest.mark.parametrize("seed", SEEDS)
def test_warp99_random_start_sides_come_from_the_next_draw_after_the_shuffle(seed: int) -> None:
    _, rng = Rng.from_seed(seed).shuffle(ALL_CARDS)
    flips, _ = rng.below(8)
    state = get_game("warp99").new_game(2, {"random_start_sides": True}, seed)
    assert state.sides == (1 + (flips & 1), 1 + (flips >> 1 & 1), 1 + (flips >> 2 & 1))


@pytest.mark.parametrize("seed", SEEDS)
def test_floor_deals_hands_from_the_end_of_the_shuffle_then_the_opener(seed: int) -> None:
    deck, _ = Rng.from_seed(seed).shuffle(FLOOR_DECK)
    state = get_game("floor").new_game(3, {}, seed)
    n = len(deck)
    assert state.hands == tuple(tuple(sorted(deck[n - 7 * (s + 1) : n - 7 * s])) for s in range(3))
    rest = deck[: n - 21]
    assert state.discard == (rest[-1],)
    assert state.draw == rest[:-1]

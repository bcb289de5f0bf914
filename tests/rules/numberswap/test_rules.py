"""One test per Number Swap rule and ruling (docs/rules/numberswap.md), named after it."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from rules.codec import pack, unpack
from rules.errors import (
    GameOver,
    IllegalAction,
    InvalidAction,
    InvalidOptions,
    InvalidSeatCount,
    NotYourTurn,
    WrongPhase,
)
from rules.numberswap.cards import DECK
from rules.numberswap.game import MOVE_BOUND, ROUND_END_PAUSE
from rules.numberswap.state import Phase
from rules.rng import Rng
from tests.rules.numberswap.helpers import GAME, HARNESS, grid, grid_facts, position

DOWN = [9] * 12  # an all-face-down grid of nines


def flip(state, seat, a, b):
    return GAME.apply(state, seat, {"type": "flip_initial", "positions": [a, b]})


NEXT = {"type": "next_round"}


def all_ready(state):
    """Every seat presses Next round at the round end; the last one deals the next round."""
    assert state.phase is Phase.ROUND_END
    events = []
    for seat in range(state.seats):
        state, more = GAME.apply(state, seat, NEXT)
        events += more
    return state, events


# -- R1: deck and deal ------------------------------------------------------------------------


def test_deck_has_150_cards_five_minus_two_ten_minus_one_fifteen_zero_ten_of_each_1_to_12():
    """R1: 150 cards: five -2, ten -1, fifteen 0, ten each of 1 to 12."""
    counts = Counter(DECK)
    assert len(DECK) == 150
    assert counts[-2] == 5 and counts[-1] == 10 and counts[0] == 15
    assert all(counts[v] == 10 for v in range(1, 13))


@pytest.mark.parametrize("seats", [2, 5, 8])
def test_deal_gives_twelve_face_down_cards_each_and_one_face_up_discard(seats):
    """R1: twelve cards face down each, and one face up to start the discard pile."""
    state = GAME.new_game(seats, None, 3)
    assert all(g.face_down_count() == 12 for g in state.grids)
    assert len(state.discard) == 1
    assert len(state.draw) == 150 - 12 * seats - 1
    view = GAME.view(state, 0)
    assert view["discard_top"] == state.discard[-1]
    assert view["draw_size"] == len(state.draw)


# -- R2: the opening flips ---------------------------------------------------------------------


def test_initial_flips_are_simultaneous_and_no_turn_starts_until_all_chose():
    """R2: the opening flips are simultaneous; no turn starts until every seat has chosen."""
    state = GAME.new_game(3, None, 1)
    assert GAME.to_act(state) == {0, 1, 2}
    state, _ = flip(state, 2, 0, 1)
    assert GAME.to_act(state) == {0, 1}
    assert state.phase is Phase.CHOOSE
    state, _ = flip(state, 0, 4, 5)
    state, events = flip(state, 1, 10, 11)
    assert state.phase is Phase.TURN
    assert {e["type"] for e in events} >= {"turn"}


def test_initial_flips_are_private_until_made_then_public():
    """R2: nobody sees a seat's two cards before it turns them up; then everyone does."""
    state = GAME.new_game(2, None, 1)
    before = grid_facts(GAME.view(state, 1), 0)
    assert all(cell["card"] is None and not cell["up"] for cell in before)
    state, _ = flip(state, 0, 3, 7)
    after = grid_facts(GAME.view(state, 1), 0)
    assert [after[3]["card"], after[7]["card"]] == [
        state.grids[0].cards[3],
        state.grids[0].cards[7],
    ]
    assert grid_facts(GAME.view(state, None), 0)[3]["up"]


def test_initial_flip_needs_two_different_cards():
    """R2: the opening flip turns up two cards."""
    state = GAME.new_game(2, None, 1)
    with pytest.raises(InvalidAction):
        flip(state, 0, 4, 4)


def test_initial_flip_twice_in_a_round_is_refused():
    """R2: each seat turns up its two cards once."""
    state = GAME.new_game(2, None, 1)
    state, _ = flip(state, 0, 0, 1)
    with pytest.raises(NotYourTurn, match="two cards"):
        flip(state, 0, 2, 3)


# -- R3: who starts ----------------------------------------------------------------------------


def opening(values_by_seat, starter=None):
    """A choose-phase state where seat s's positions 0 and 1 hold values_by_seat[s]."""
    grids = [grid([a, b, *[9] * 10]) for a, b in values_by_seat]
    state = position(grids, phase=Phase.CHOOSE, current=None, starter=starter)
    state = replace(state, chosen=(False,) * len(grids))
    for seat in range(len(grids)):
        state, _ = flip(state, seat, 0, 1)
    return state


def test_first_player_in_round_one_has_the_highest_pair():
    """R3: round 1 starts with the highest sum of the two turned-up cards."""
    assert opening([(1, 2), (6, 6), (12, -2)]).current == 1


def test_first_player_tie_goes_to_the_highest_single_card():
    """R3: a tied sum goes to the highest single card among the tied."""
    # Seats 0 and 2 both show 10; seat 2's 12 beats seat 0's 5.
    assert opening([(5, 5), (3, 4), (12, -2)]).current == 2


def test_first_player_still_tied_goes_to_the_lowest_seat():
    """R3: still tied, the lowest seat number starts."""
    assert opening([(1, 1), (6, 4), (4, 6), (10, 0)]).current == 3
    assert opening([(1, 1), (6, 4), (6, 4)]).current == 1


def test_later_rounds_are_started_by_who_ended_the_last_round():
    """R3: later rounds start with whoever ended the last one."""
    # Low pair for seat 2, but it ended the previous round, so it starts.
    assert opening([(12, 12), (11, 11), (-2, -2)], starter=2).current == 2


def test_round_ender_starts_the_next_round_end_to_end():
    """R3: the ender of round 1 starts round 2."""
    state = ender_position()
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})  # seat 0 ends
    state, _ = GAME.apply(state, 1, {"type": "take_discard", "position": 0})  # last turn
    state, _ = all_ready(state)
    assert state.phase is Phase.CHOOSE and state.round == 2 and state.starter == 0
    state, _ = flip(state, 1, 0, 1)
    state, _ = flip(state, 0, 0, 1)
    assert state.current == 0


# -- R4: a turn --------------------------------------------------------------------------------


def test_take_discard_and_swap_onto_a_face_up_card():
    """R4: take the top discard and swap it with a face-up card."""
    state = position([grid([8, *DOWN[1:]], up=[0]), grid(DOWN)], discard=(3, 2))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    assert state.grids[0].cards[0] == 2 and state.grids[0].up[0]
    assert state.discard == (3, 8)
    assert state.current == 1


def test_take_discard_and_swap_onto_a_face_down_card_puts_it_face_up_on_the_pile():
    """R4: or with a face-down one, which goes face up onto the discard pile."""
    state = position([grid([4, *DOWN[1:]]), grid(DOWN)], discard=(2,))
    state, events = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    assert state.grids[0].cards[0] == 2 and state.grids[0].up[0]
    assert state.discard == (4,)
    assert {"type": "discarded", "seat": 0, "card": 4, "position": 0} in events
    assert GAME.view(state, 1)["discard_top"] == 4


def test_draw_shows_the_card_to_everyone_then_swap_it_in():
    """R4: a drawn card is shown to everyone, then may be swapped in."""
    state = position([grid(DOWN), grid(DOWN)], draw=(1, 6), discard=(11,))
    state, events = GAME.apply(state, 0, {"type": "draw"})
    assert {"type": "drew", "seat": 0, "card": 6} in events
    assert GAME.view(state, 1)["drawn"] == 6
    assert GAME.view(state, None)["drawn"] == 6
    state, _ = GAME.apply(state, 0, {"type": "swap_drawn", "position": 5})
    assert state.grids[0].cards[5] == 6 and state.discard == (11, 9)
    assert state.drawn is None and state.current == 1


def test_draw_then_discard_it_and_turn_up_a_face_down_card():
    """R4: or the drawn card is discarded and a face-down card turned up."""
    state = position([grid([3, *DOWN[1:]]), grid(DOWN)], draw=(1, 6), discard=(11,))
    state, _ = GAME.apply(state, 0, {"type": "draw"})
    state, events = GAME.apply(state, 0, {"type": "discard_drawn", "flip": 0})
    assert state.discard == (11, 6)
    assert state.grids[0].up[0] and state.grids[0].cards[0] == 3
    assert {"type": "turned_up", "seat": 0, "position": 0, "card": 3} in events


def test_discard_and_turn_up_needs_a_face_down_card():
    """R4: discarding the drawn card turns up a face-down card, not a face-up one."""
    state = position([grid(DOWN, up=[0]), grid(DOWN)], drawn=4)
    with pytest.raises(IllegalAction, match="face-down"):
        GAME.apply(state, 0, {"type": "discard_drawn", "flip": 0})


def test_face_down_cards_are_never_shown_to_their_owner():
    """R4: a face-down card is hidden from its owner too."""
    state = position([grid(list(range(12)), up=[0]), grid(DOWN)])
    own = grid_facts(GAME.view(state, 0), 0)
    assert own[0]["card"] == 0 and own[0]["up"]
    assert all(cell["card"] is None and not cell["up"] for cell in own[1:])


def test_draw_order_is_never_shown():
    state = position([grid(DOWN), grid(DOWN)], draw=(1, 2, 3))
    view = GAME.view(state, 0)
    assert view["draw_size"] == 3
    assert "draw" not in view


# -- R5: clearing columns ---------------------------------------------------------------------


def test_three_equal_face_up_values_in_a_column_clear_mid_round():
    """R5: three equal face-up values clear a column; the swapped-out card goes down first."""
    g = grid([5, 5, 4, *DOWN[3:]], up=[0, 1, 2])
    state = position([g, grid(DOWN)], discard=(1, 5))
    state, events = GAME.apply(state, 0, {"type": "take_discard", "position": 2})
    assert state.grids[0].cards[:3] == (None, None, None)
    # The swapped-out 4 goes down first, then the cleared column on top of it.
    assert state.discard == (1, 4, 5, 5, 5)
    assert GAME.view(state, 1)["discard_top"] == 5
    assert {"type": "column_cleared", "column": 0, "value": 5, "seat": 0} in events
    assert [c["cleared"] for c in grid_facts(GAME.view(state, 1), 0)[:3]] == [True] * 3


def test_a_column_with_a_face_down_card_does_not_clear():
    """R5: only face-up values clear a column."""
    g = grid([5, 5, 4, *DOWN[3:]], up=[0])
    state = position([g, grid(DOWN)], discard=(5,))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 2})
    assert state.grids[0].cards[:3] == (5, 5, 5)


def test_a_column_cleared_by_turning_up_a_card_clears_too():
    """R5: turning a card up clears a column too, on top of the thrown card."""
    g = grid([7, 7, 7, *DOWN[3:]], up=[0, 1])
    state = position([g, grid(DOWN)], drawn=2, discard=(1,))
    state, _ = GAME.apply(state, 0, {"type": "discard_drawn", "flip": 2})
    assert state.grids[0].cards[:3] == (None, None, None)
    assert state.discard == (1, 2, 7, 7, 7)


def test_cleared_slots_cannot_be_played_on():
    """R5: a cleared column has left the grid: nothing is played there."""
    g = grid([None, None, None, *DOWN[3:]])
    state = position([g, grid(DOWN)])
    with pytest.raises(IllegalAction, match="cleared"):
        GAME.apply(state, 0, {"type": "take_discard", "position": 1})
    assert {"type": "take_discard", "position": 1} not in GAME.view(state, 0)["legal"]


def test_columns_clear_at_the_final_reveal():
    """R5: columns clear at the final reveal too."""
    # Seat 1 hides a column of three 6s; it clears when everything is turned up.
    ender = grid([0, 1, 2] * 4, up=range(12))
    other = grid([6, 6, 6, 2, 3, 2, 2, 3, 2, 2, 3, 5], up=[])
    state = position([ender, other], discard=(0,), current=1, ender=0)
    state, _events = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    summary = state.last_round
    assert summary is not None
    assert summary.grids[1].cards[:3] == (None, None, None)
    assert summary.raw_scores[1] == 2 + 3 + 2 + 2 + 3 + 2 + 2 + 3 + 0


# -- R6: ending the round ---------------------------------------------------------------------


def ender_position(seats=2):
    """Seat 0 has one face-down card left; taking the discard onto it ends the round."""
    # No column holds three equal values, so nothing clears at the reveal.
    grids = [grid([0, 1, 2] * 4, up=range(1, 12))]
    grids += [grid([9, 8, 7] * 4, up=range(4)) for _ in range(seats - 1)]
    return position(grids, discard=(0,), draw=(5,) * 30)


def test_round_end_gives_every_other_player_exactly_one_more_turn():
    """R6: after the round is ended, every other player gets exactly one more turn."""
    state = ender_position(seats=4)
    state, events = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    assert state.ender == 0 and {"type": "last_turns", "ender": 0} in events
    # The view says so by its ender in the turn phase (docs/rules/numberswap.md).
    view = GAME.view(state, 2)
    assert view["ender"] == 0 and view["phase"] == "turn"
    played = []
    while state.phase is Phase.TURN:
        seat = state.current
        played.append(seat)
        state, _ = GAME.apply(state, seat, {"type": "draw"})
        state, _ = GAME.apply(state, seat, {"type": "swap_drawn", "position": 0})
    assert played == [1, 2, 3]
    assert state.phase is Phase.ROUND_END
    state, _ = all_ready(state)
    assert state.round == 2


def test_round_end_turns_every_card_up_and_scores_the_grid_totals():
    """R6: then every card is turned up and the grid totals are the round scores."""
    state = ender_position(seats=2)
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, events = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    summary = state.last_round
    assert summary is not None and all(all(g.up) for g in summary.grids)
    assert summary.raw_scores == (12, 96 - 7)
    assert state.totals == summary.scores
    assert any(e["type"] == "round_ended" for e in events)


# -- R7: doubling -----------------------------------------------------------------------------


def end_round_with(ender_cards, other_cards):
    ender = grid(ender_cards, up=range(12))
    other = grid(other_cards, up=range(12))
    state = position([ender, other], discard=(0,), current=1, ender=0)
    # Seat 1's last turn: take the 0 onto a card whose value we then know.
    state, _ = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    assert state.last_round is not None
    return state.last_round


# Seat 1's last turn replaces its final card (a 9) with the 0 from the discard pile. No grid
# below has a column of three equal values, so the totals are plain sums.


def test_ender_with_the_strictly_lowest_score_keeps_it():
    """R7: an ender with the strictly lowest score keeps it."""
    summary = end_round_with([1, 2, 1] * 4, [2, 3, 2] * 3 + [2, 3, 9])
    assert summary.raw_scores == (16, 26)
    assert summary.scores == (16, 26) and not summary.doubled


def test_ender_tied_for_lowest_is_doubled():
    """R7: a tie for lowest is not enough: doubled."""
    summary = end_round_with([1, 2, 1] * 4, [1, 2, 1] * 3 + [1, 3, 9])
    assert summary.raw_scores == (16, 16)
    assert summary.doubled and summary.scores == (32, 16)


def test_ender_not_lowest_is_doubled():
    """R7: an ender who is not lowest is doubled."""
    summary = end_round_with([3, 4, 3] * 4, [1, 2, 1] * 3 + [1, 2, 9])
    assert summary.raw_scores == (40, 15)
    assert summary.doubled and summary.scores == (80, 15)


def test_ender_score_at_or_below_zero_is_never_doubled():
    """R7: a round score of 0 or less is never doubled."""
    summary = end_round_with([0, -1, 1] * 4, [-1, -2, -1] * 3 + [-1, -2, 9])
    assert summary.raw_scores == (0, -15)
    assert not summary.doubled and summary.scores == (0, -15)
    summary = end_round_with([-1, 0, -1] * 4, [-2, -1, -2] * 3 + [-2, -1, 9])
    assert summary.raw_scores == (-8, -18)
    assert not summary.doubled and summary.scores == (-8, -18)


# -- R8: the end of the game ------------------------------------------------------------------


def test_game_ends_after_the_round_in_which_a_total_reaches_100():
    """R8: the game ends after the round in which a total reaches 100; lowest wins."""
    state = ender_position()
    state = replace(state, totals=(10, 75))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, events = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    assert state.totals == (10 + 12, 75 + 89)
    assert state.phase is Phase.OVER
    result = GAME.result(state)
    assert result is not None and result.winners == (0,)
    assert GAME.to_act(state) == frozenset()
    assert events[-1]["type"] == "game_over"


def test_game_goes_on_while_every_total_is_below_100():
    """R8: below 100, the game goes on."""
    state = ender_position()
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, _ = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    assert max(state.totals) < 100
    assert state.phase is Phase.ROUND_END and GAME.result(state) is None
    state, _ = all_ready(state)
    assert state.phase is Phase.CHOOSE and GAME.result(state) is None


def test_target_score_option_changes_the_end():
    state = GAME.new_game(2, {"target_score": 50}, 0)
    assert state.target == 50
    with pytest.raises(InvalidOptions):
        GAME.new_game(2, {"target_score": "lots"}, 0)
    with pytest.raises(InvalidOptions):
        GAME.new_game(2, {"unknown": 1}, 0)


def test_equal_lowest_totals_share_the_win():
    """R8: equal lowest totals share the win."""
    state = replace(GAME.new_game(3, None, 0), phase=Phase.OVER, totals=(40, 40, 120))
    result = GAME.result(state)
    assert result is not None
    assert result.winners == (0, 1)
    assert result.places == (1, 1, 3)


def test_actions_after_the_game_are_refused():
    state = replace(GAME.new_game(2, None, 0), phase=Phase.OVER, totals=(40, 120))
    with pytest.raises(GameOver):
        GAME.apply(state, 0, {"type": "draw"})


# -- R9: reshuffling ---------------------------------------------------------------------------


def test_empty_draw_pile_reshuffles_the_discards_except_the_top_card():
    """R9: an empty draw pile is refilled from the discards but their top card."""
    state = position([grid(DOWN), grid(DOWN)], draw=(), discard=(1, 2, 3, 4, 11))
    state, events = GAME.apply(state, 0, {"type": "draw"})
    assert state.discard == (11,)
    assert sorted([*state.draw, state.drawn]) == [1, 2, 3, 4]
    assert events[0] == {"type": "reshuffled", "draw_size": 4}


# -- R10: undo ---------------------------------------------------------------------------------


def test_undo_takes_back_a_discard_swap_onto_a_face_up_card():
    """R10: a discard swapped onto a face-up card reveals nothing, so it can be undone."""
    before = position([grid([8, *DOWN[1:]], up=[0]), grid(DOWN)], discard=(3, 2))
    state, _ = GAME.apply(before, 0, {"type": "take_discard", "position": 0})
    assert GAME.to_act(state) == {0, 1}
    assert GAME.view(state, 0)["legal"] == [{"type": "undo"}]
    state, events = GAME.apply(state, 0, {"type": "undo"})
    assert events == [{"type": "undone", "seat": 0}]
    # Everything is as before but the move count: the move bound counts the undo too.
    assert replace(state, moves=before.moves) == before
    assert state.moves == before.moves + 2


def test_undo_is_refused_after_a_draw():
    """R10: a drawn card has been seen: no undo."""
    state = position([grid(DOWN), grid(DOWN)])
    state, _ = GAME.apply(state, 0, {"type": "draw"})
    state, _ = GAME.apply(state, 0, {"type": "swap_drawn", "position": 0})
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, {"type": "undo"})


def test_undo_is_refused_after_swapping_out_a_face_down_card():
    """R10: a face-down card swapped out has been seen: no undo."""
    state = position([grid(DOWN), grid(DOWN)])
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 3})
    assert GAME.to_act(state) == {1}
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, {"type": "undo"})


def test_undo_is_refused_once_another_player_has_acted():
    """R10: no undo once another player has acted."""
    state = position([grid([8, *DOWN[1:]], up=[0]), grid(DOWN)], discard=(3, 2))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, _ = GAME.apply(state, 1, {"type": "draw"})
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, {"type": "undo"})


def test_undo_is_refused_when_there_is_nothing_of_yours_to_undo():
    """R10: only your own last action can be undone."""
    state = position([grid(DOWN), grid(DOWN)])
    with pytest.raises(IllegalAction, match="undo"):
        GAME.apply(state, 0, {"type": "undo"})


def test_undo_is_refused_when_the_action_ended_the_round():
    """R10: an action that ended the round revealed every card: no undo."""
    state = ender_position()
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, _ = GAME.apply(state, 1, {"type": "take_discard", "position": 1})  # face-up swap
    assert state.phase is Phase.ROUND_END and state.undo is None


def test_while_undo_is_open_the_undoer_can_do_nothing_else():
    state = position([grid([8, *DOWN[1:]], up=[0]), grid(DOWN)], discard=(3, 2))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    with pytest.raises(NotYourTurn, match="only undo"):
        GAME.apply(state, 0, {"type": "draw"})


# -- platform ruling: the move bound ------------------------------------------------------------


def test_move_bound_ends_the_game_with_standings():
    """Platform ruling (move bound): the running totals rank the players, lowest first, equal
    totals sharing a place; the round in progress is not scored."""
    state = position([grid(DOWN), grid(DOWN), grid(DOWN)], totals=(30, 12, 12))
    going, _ = GAME.apply(replace(state, moves=MOVE_BOUND - 2), 0, {"type": "draw"})
    assert GAME.result(going) is None and going.moves == MOVE_BOUND - 1

    state, events = GAME.apply(replace(state, moves=MOVE_BOUND - 1), 0, {"type": "draw"})
    assert state.moves == MOVE_BOUND
    assert state.phase is Phase.OVER
    assert GAME.to_act(state) == frozenset()
    assert all(GAME.legal_actions(state, seat) == [] for seat in range(3))
    result = GAME.result(state)
    assert result is not None
    assert result.scores == (30, 12, 12)
    assert result.winners == (1, 2)
    assert result.places == (3, 1, 1)
    assert result.move_bound == MOVE_BOUND
    assert "move bound" in result.reason
    assert events[-1] == {"type": "game_over", "winners": [1, 2], "move_bound": MOVE_BOUND}
    assert GAME.view(state, 0)["result"] == result.to_wire()
    with pytest.raises(GameOver):
        GAME.apply(state, 1, {"type": "draw"})


def test_move_bound_counts_every_action_so_an_undo_loop_ends():
    """Platform ruling (move bound): opening flips and undos count as moves too."""
    state = GAME.new_game(2, None, 0)
    state, _ = flip(state, 0, 0, 1)
    assert state.moves == 1
    state = position([grid([8, *DOWN[1:]], up=[0]), grid(DOWN)], discard=(3, 2))
    state = replace(state, moves=MOVE_BOUND - 2)
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, _ = GAME.apply(state, 0, {"type": "undo"})
    result = GAME.result(state)
    assert result is not None and result.move_bound == MOVE_BOUND
    assert result.winners == (0, 1)
    assert GAME.to_act(state) == frozenset()


def test_move_bound_a_game_ending_on_the_last_move_ends_by_its_target():
    """Platform ruling (move bound): the game's own ending comes first."""
    state = replace(ender_position(), totals=(10, 75), moves=MOVE_BOUND - 2)
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, _ = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    result = GAME.result(state)
    assert result is not None and result.move_bound is None
    assert result.reason == "A total reached 100"


# -- errors ------------------------------------------------------------------------------------


def test_not_your_turn_is_refused():
    state = position([grid(DOWN), grid(DOWN)])
    with pytest.raises(NotYourTurn, match="seat 1's turn"):
        GAME.apply(state, 1, {"type": "draw"})


def test_a_seat_outside_the_game_is_refused():
    state = position([grid(DOWN), grid(DOWN)])
    with pytest.raises(NotYourTurn, match="no seat"):
        GAME.apply(state, 5, {"type": "draw"})


def test_turn_actions_during_the_opening_flips_are_the_wrong_phase():
    state = GAME.new_game(2, None, 0)
    with pytest.raises(WrongPhase, match="two cards"):
        GAME.apply(state, 0, {"type": "draw"})


def test_opening_flip_during_turns_is_the_wrong_phase():
    state = position([grid(DOWN), grid(DOWN)])
    with pytest.raises(WrongPhase):
        flip(state, 0, 0, 1)


def test_using_a_drawn_card_before_drawing_is_the_wrong_phase():
    state = position([grid(DOWN), grid(DOWN)])
    with pytest.raises(WrongPhase, match="Draw"):
        GAME.apply(state, 0, {"type": "swap_drawn", "position": 0})


def test_taking_the_discard_after_drawing_is_the_wrong_phase():
    state = position([grid(DOWN), grid(DOWN)], drawn=4)
    with pytest.raises(WrongPhase, match="drawn"):
        GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    with pytest.raises(WrongPhase):
        GAME.apply(state, 0, {"type": "draw"})


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "teleport"},
        {"type": "take_discard"},
        {"type": "take_discard", "position": 12},
        {"type": "take_discard", "position": -1},
        {"type": "take_discard", "position": "zero"},
        {"type": "take_discard", "position": "3"},
        {"type": "take_discard", "position": 3.0},
        {"type": "take_discard", "position": True},
        {"type": "draw", "extra": 1},
        {"type": "flip_initial", "positions": [1]},
        {"position": 3},
        [1, 2],
        "draw",
        None,
    ],
)
def test_malformed_actions_are_refused_with_a_readable_message(raw):
    state = position([grid(DOWN), grid(DOWN)])
    with pytest.raises(InvalidAction) as caught:
        GAME.apply(state, 0, raw)
    assert caught.value.code == "invalid_action"
    assert len(caught.value.message) > 10


@pytest.mark.parametrize("seats", [1, 9])
def test_seat_count_must_be_two_to_eight(seats):
    with pytest.raises(InvalidSeatCount):
        GAME.new_game(seats, None, 0)


def test_view_lists_exactly_the_legal_actions_of_that_seat():
    state = GAME.new_game(3, None, 5)
    assert len(GAME.view(state, 0)["legal"]) == 66
    assert GAME.view(state, 0)["legal"] == [
        GAME.dump_action(a) for a in GAME.legal_actions(state, 0)
    ]
    state = position([grid(DOWN, up=[0]), grid(DOWN)])
    legal = GAME.view(state, 0)["legal"]
    assert {"type": "draw"} in legal and len(legal) == 13
    assert GAME.view(state, 1)["legal"] == []


def test_worked_example_on_the_rules_page_doubles_a_tied_ender():
    """R7: the worked example of the rules page."""
    # docs/rules/numberswap.md, "Worked example": Ana ended, ties Ben at 14, is doubled to 28.
    ana = grid([1, 2, 0, 3, 2, 4, 1, 1, 0, None, None, None], up=range(12))
    ben = grid([0, -1, 5, 6, 2, 1, 0, 1, 0, 0, -1, 1], up=range(12))
    cleo = grid([7, 8, 2, 9, 10, 3, 1, 4, 2, 6, 5, 12], up=range(11))
    state = position([ana, ben, cleo], discard=(3,), current=2, ender=0)
    state, _ = GAME.apply(state, 2, {"type": "take_discard", "position": 11})
    summary = state.last_round
    assert summary is not None
    assert summary.raw_scores == (14, 14, 60)
    assert summary.doubled and summary.scores == (28, 14, 60)


# -- edge cases found in review ---------------------------------------------------------------


def test_ender_scoring_exactly_1_and_not_alone_lowest_is_doubled():
    """R7: 1 is above 0, so it is doubled."""
    summary = end_round_with(
        [1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 0], [1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 9]
    )
    assert summary.raw_scores == (1, 1)
    assert summary.doubled and summary.scores == (2, 1)


def test_game_ends_when_a_total_reaches_exactly_100():
    """R8: exactly 100 is enough."""
    state = replace(ender_position(), totals=(10, 11))  # seat 1 scores 89 -> exactly 100
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, _ = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    assert state.totals[1] == 100 and state.phase is Phase.OVER


def test_undo_is_refused_after_discarding_the_drawn_card_and_turning_one_up():
    """R10: a card turned up has been seen: no undo."""
    state = position([grid(DOWN, up=[0]), grid(DOWN)])
    state, _ = GAME.apply(state, 0, {"type": "draw"})
    state, _ = GAME.apply(state, 0, {"type": "discard_drawn", "flip": 1})
    assert GAME.to_act(state) == {1} and state.current == 1
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, {"type": "undo"})


def test_only_the_player_who_acted_can_undo():
    """R10: only the player who acted can undo."""
    state = position([grid([8, *DOWN[1:]], up=[0]), grid(DOWN)], discard=(3, 2))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    with pytest.raises(IllegalAction):
        GAME.apply(state, 1, {"type": "undo"})


def test_reshuffle_shuffles_the_discards_into_a_new_order():
    """R9: the discards are shuffled, not just turned over."""
    discard = tuple(range(-2, 13)) * 3
    state = position([grid(DOWN), grid(DOWN)], draw=(), discard=discard)
    state, _ = GAME.apply(state, 0, {"type": "draw"})
    assert (*state.draw, state.drawn) != discard[:-1]


EVENT_KEYS = {
    "flipped_initial": {"type", "seat", "positions", "cards"},
    "turn": {"type", "seat"},
    "took_discard": {"type", "seat", "position", "card"},
    "discarded": {"type", "seat", "card", "position"},
    "drew": {"type", "seat", "card"},
    "discarded_drawn": {"type", "seat", "card"},
    "turned_up": {"type", "seat", "position", "card"},
    "swapped_drawn": {"type", "seat", "position", "card"},
    "undone": {"type", "seat"},
    "column_cleared": {"type", "seat", "column", "value"},
    "last_turns": {"type", "ender"},
    "round_ended": {"type", "round", "ender", "scores", "doubled", "totals"},
    "round_started": {"type", "round"},
    "ready": {"type", "seat"},
    "game_over": {"type", "winners"},
    "reshuffled": {"type", "draw_size"},
}


@pytest.mark.parametrize("seats", [2, 5])
def test_events_carry_nothing_hidden(seats):
    rnd = random.Random(seats)
    state = GAME.new_game(seats, {"target_score": 150}, seats)
    quiet = 0
    seen = set()
    for _ in range(20000):
        if GAME.result(state) is not None:
            break
        seat = rnd.choice(sorted(GAME.to_act(state)))
        action = rnd.choice(GAME.legal_actions(state, seat))
        new, events = GAME.apply(state, seat, action)
        for e in events:
            seen.add(e["type"])
            assert set(e) == EVENT_KEYS[e["type"]], e
        # An action that reveals nothing must give the same events whatever the hidden cards
        # and the future shuffles are.
        if new.undo is not None or action.type == "undo":
            quiet += 1
            other = replace(
                HARNESS.permute_hidden(state, None, rnd), rng=Rng.from_seed(rnd.getrandbits(64))
            )
            assert GAME.apply(other, seat, action)[1] == events
        state = new
    assert quiet
    assert "round_started" in seen and "ready" in seen


# -- (ours) the round end: everyone sees the revealed grids, then Next round ------------------


def ended_round(seats=3):
    """Round 1 of ``ender_position`` played to its end: seat 0 ended, the others had a turn."""
    state = ender_position(seats)
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    for seat in range(1, seats):
        state, _ = GAME.apply(state, seat, {"type": "draw"})
        state, events = GAME.apply(state, seat, {"type": "swap_drawn", "position": 0})
    return state, events


def test_a_scored_round_enters_the_round_end_phase_with_everyone_to_act():
    state, events = ended_round()
    assert [e["type"] for e in events][-1] == "round_ended"
    assert state.phase is Phase.ROUND_END and state.round == 1
    assert GAME.to_act(state) == {0, 1, 2}
    view = GAME.view(state, 1)
    assert view["phase"] == "round_end" and view["to_act"] == [0, 1, 2]
    assert view["ready"] == [False, False, False]
    assert view["current"] is None and view["ender"] == 0


def test_round_end_view_shows_every_grid_revealed_and_the_scored_summary():
    state, _ = ended_round()
    summary = state.last_round
    assert summary is not None
    for viewer in (0, 2, None):
        view = GAME.view(state, viewer)
        for seat in range(3):
            cards = summary.grids[seat].cards
            cells = grid_facts(view, seat)
            assert [c["card"] for c in cells] == list(cards)
            assert all(c["up"] or c["cleared"] for c in cells)
            assert sum(c["card"] or 0 for c in cells) == summary.raw_scores[seat]
            assert view["last_round"]["grids"][seat] == view["grids"][seat]
        assert view["last_round"]["raw_scores"] == list(summary.raw_scores)
        assert view["last_round"]["scores"] == list(summary.scores)
        assert view["last_round"]["doubled"] == summary.doubled


def test_round_end_offers_each_seat_to_act_only_next_round():
    state, _ = ended_round()
    for seat in range(3):
        assert GAME.view(state, seat)["legal"] == [NEXT]
        assert [GAME.dump_action(a) for a in GAME.legal_actions(state, seat)] == [NEXT]
    assert GAME.view(state, None)["legal"] == []
    with pytest.raises(WrongPhase, match="Next round"):
        GAME.apply(state, 1, {"type": "draw"})
    with pytest.raises(WrongPhase):
        GAME.apply(position([grid(DOWN), grid(DOWN)]), 0, NEXT)


def test_to_act_shrinks_as_seats_say_they_are_ready():
    state, _ = ended_round()
    state, events = GAME.apply(state, 1, NEXT)
    assert events == [{"type": "ready", "seat": 1}]
    assert state.phase is Phase.ROUND_END and GAME.to_act(state) == {0, 2}
    assert GAME.view(state, 0)["ready"] == [False, True, False]
    assert GAME.view(state, 1)["legal"] == []
    with pytest.raises(NotYourTurn, match="waiting for the others"):
        GAME.apply(state, 1, NEXT)
    state, events = GAME.apply(state, 2, NEXT)
    assert events == [{"type": "ready", "seat": 2}]
    assert GAME.to_act(state) == {0} and GAME.view(state, 2)["ready"] == [False, True, True]


def test_the_last_ready_deals_the_next_round_with_the_same_deal_as_before():
    """R1, R3: the deal draws on the same rng as when rounds were dealt at once.

    The grids below are what this position dealt for round 2 before the round end waited for
    anyone (the rules as of 954dff6): the same seed and moves deal the same rounds."""
    state, _ = ended_round()
    scored = state
    state, _ = GAME.apply(state, 0, NEXT)
    state, _ = GAME.apply(state, 2, NEXT)
    state, events = GAME.apply(state, 1, NEXT)
    assert events == [{"type": "ready", "seat": 1}, {"type": "round_started", "round": 2}]
    assert state.phase is Phase.CHOOSE and state.round == 2 and state.starter == 0
    assert [g.cards for g in state.grids] == [
        (8, 7, 6, -1, 6, 3, -1, 2, 3, 11, 0, -1),
        (0, 7, 10, 1, 3, 0, -1, 9, 0, 8, 0, 9),
        (7, 0, 9, 4, 5, 5, 12, 5, 11, 5, 10, 2),
    ]
    assert state.discard == (6,) and len(state.draw) == 113
    assert state.rng == Rng(state=3212106595755651186)
    assert state.totals == scored.totals and state.last_round == scored.last_round
    assert state.ready == () and GAME.view(state, 0)["ready"] == [False, False, False]
    assert GAME.to_act(state) == {0, 1, 2}


def test_undo_cannot_cross_the_round_end():
    """R10: the action that ended the round stays done through the round end and after."""
    state = ender_position()
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    # Seat 1's last turn swaps the discard onto a face-up card: undoable, but for the round end.
    state, _ = GAME.apply(state, 1, {"type": "take_discard", "position": 1})
    assert state.phase is Phase.ROUND_END and state.undo is None
    assert GAME.view(state, 1)["undo_by"] is None
    with pytest.raises(WrongPhase):
        GAME.apply(state, 1, {"type": "undo"})
    state, _ = GAME.apply(state, 0, NEXT)
    with pytest.raises(WrongPhase):
        GAME.apply(state, 1, {"type": "undo"})
    state, _ = GAME.apply(state, 1, NEXT)
    assert state.phase is Phase.CHOOSE and state.undo is None
    assert {"type": "undo"} not in GAME.view(state, 1)["legal"]
    with pytest.raises(IllegalAction, match="undo"):
        GAME.apply(state, 1, {"type": "undo"})


def test_the_round_that_ends_the_game_goes_straight_to_over():
    """R8: no round end to wait through once a total has reached the target."""
    state = replace(ender_position(), totals=(10, 75))
    state, _ = GAME.apply(state, 0, {"type": "take_discard", "position": 0})
    state, events = GAME.apply(state, 1, {"type": "take_discard", "position": 11})
    assert state.phase is Phase.OVER and GAME.to_act(state) == frozenset()
    assert [e["type"] for e in events][-2:] == ["round_ended", "game_over"]
    assert GAME.pause_limit(state) is None
    assert GAME.view(state, 0)["ready"] == [False, False]


def test_a_state_stored_before_the_round_end_phase_loads():
    """Rooms saved before the round end existed carry no ``ready``: they load and play on."""
    state = GAME.new_game(3, None, 5)
    state, _ = flip(state, 0, 0, 1)
    dumped = GAME.dump_state(state)
    del dumped["ready"]
    old = GAME.load_state(unpack(pack(dumped)))
    assert old == state and old.ready == ()
    assert GAME.view(old, 1)["ready"] == [False, False, False]
    # A stored record of a round about to end (as rooms were saved then) ends it as now.
    dumped = GAME.dump_state(ender_position())
    del dumped["ready"]
    old = GAME.load_state(unpack(pack(dumped)))
    old, _ = GAME.apply(old, 0, {"type": "take_discard", "position": 0})
    old, _ = GAME.apply(old, 1, {"type": "take_discard", "position": 11})
    assert old.phase is Phase.ROUND_END and GAME.to_act(old) == {0, 1}


def test_bot_action_in_the_round_end_is_next_round():
    state, _ = ended_round()
    for seat in range(3):
        assert GAME.bot_action(state, seat, Rng.from_seed(seat)) == GAME.parse_action(NEXT)


def test_the_round_end_is_a_pause_of_30_seconds_and_other_phases_are_not():
    state, _ = ended_round()
    assert GAME.pause_limit(state) == ROUND_END_PAUSE == 30.0
    assert GAME.pause_limit(GAME.new_game(2, None, 0)) is None
    assert GAME.pause_limit(position([grid(DOWN), grid(DOWN)])) is None


def test_move_bound_counts_next_round_and_can_end_the_game_at_a_round_end():
    """Platform ruling (move bound): Next round is a move like any other."""
    state, _ = ended_round(seats=2)
    state = replace(state, moves=MOVE_BOUND - 2)
    state, _ = GAME.apply(state, 1, NEXT)
    assert state.moves == MOVE_BOUND - 1 and state.phase is Phase.ROUND_END
    state, events = GAME.apply(state, 0, NEXT)
    assert state.phase is Phase.OVER and GAME.to_act(state) == frozenset()
    result = GAME.result(state)
    assert result is not None and result.move_bound == MOVE_BOUND
    assert result.scores == state.totals  # the round just ended was scored
    assert events[-1]["type"] == "game_over"

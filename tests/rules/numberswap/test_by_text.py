"""R11: Number Swap played by text (the ``by_text`` option of turn-based rooms): blind flips.

Round 1 opens as R2 says; on every later round's last turns each seat also picks, blind, the
two positions it will turn up next round; the next round is dealt at once with those cards
up, and the round's ender picks first thing in it (docs/rules/numberswap.md, "By text").
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.codec import pack, unpack
from rules.contract import BOT_LEVELS
from rules.errors import IllegalAction, InvalidAction, NotYourTurn, WrongPhase
from rules.numberswap.actions import PickFlips
from rules.numberswap.cards import ROWS
from rules.numberswap.state import Phase
from rules.rng import Rng
from tests.rules.conformance import (
    bot_game,
    check_ends_near_the_move_bound,
    play_random_game,
    replay,
)
from tests.rules.numberswap.helpers import GAME, HARNESS, grid, permute_hidden, position

BY_TEXT = {"by_text": True}
DOWN = [9] * 12


def pick(a: int, b: int) -> dict[str, object]:
    return {"type": "pick_flips", "positions": [a, b]}


def take(p: int) -> dict[str, object]:
    return {"type": "take_discard", "position": p}


def ended(seats: int = 3, **changes: object):
    """A by-text round that seat 0 has just ended (its last card taken up): seat 1's turn.

    Seat 0's grid is 0, 1, 2 down each column, all up but position 0; the others' are 9, 8,
    7 down each column with the first column and position 3 up. The discard is a 0."""
    grids = [grid([0, 1, 2] * 4, up=range(1, 12))]
    grids += [grid([9, 8, 7] * 4, up=range(4)) for _ in range(seats - 1)]
    state = position(
        grids,
        discard=(0,),
        draw=(5,) * 30,
        by_text=True,
        picks=(None,) * seats,
        **changes,
    )
    state, _ = GAME.apply(state, 0, take(0))
    assert state.ender == 0 and state.current == 1
    return state


def legal(state, seat):
    return GAME.view(state, seat)["legal"]


def last_turn(state, seat, picked, where=0):
    """Seat ``seat``'s last turn: its pick, then the top discard onto position ``where``."""
    state, picked_events = GAME.apply(state, seat, pick(*picked))
    state, events = GAME.apply(state, seat, take(where))
    return state, picked_events + events


def end_round(state, picks):
    """Every remaining last turn, seat by seat, each picking ``picks[seat]``."""
    events = []
    while state.phase is Phase.TURN and state.ender is not None:
        seat = state.current
        state, more = last_turn(state, seat, picks[seat])
        events += more
    return state, events


# -- round 1 ----------------------------------------------------------------------------------


def test_by_text_round_one_flips_as_ruling_2():
    """R11: round 1 opens as R2 says: everyone turns up two cards together, then play starts."""
    state = GAME.new_game(3, BY_TEXT, 5)
    assert state.phase is Phase.CHOOSE and GAME.to_act(state) == {0, 1, 2}
    assert all(a["type"] == "flip_initial" for a in legal(state, 1))
    assert len(legal(state, 1)) == 66
    for seat in range(3):
        state, events = GAME.apply(state, seat, {"type": "flip_initial", "positions": [0, 3]})
    assert state.phase is Phase.TURN and events[-1] == {"type": "turn", "seat": state.current}
    with pytest.raises(WrongPhase):
        GAME.apply(GAME.new_game(3, BY_TEXT, 5), 0, pick(0, 3))


# -- the last turn's blind pick ---------------------------------------------------------------


def test_by_text_last_turn_starts_with_a_blind_pick():
    """R11: on a last turn the seat first picks two positions (any two: the grid is not dealt
    yet), then plays its turn as usual."""
    state = ended()
    offered = legal(state, 1)
    assert len(offered) == 66 and all(a["type"] == "pick_flips" for a in offered)
    assert {p for a in offered for p in a["positions"]} == set(range(12))
    assert [GAME.dump_action(a) for a in GAME.legal_actions(state, 1)] == offered
    for refused in (take(0), {"type": "draw"}):
        with pytest.raises(WrongPhase, match="picking the two cards"):
            GAME.apply(state, 1, refused)
    state, events = GAME.apply(state, 1, pick(5, 2))
    assert events == [{"type": "picked", "seat": 1, "positions": [2, 5]}]
    assert state.picks[1] == (2, 5) and state.current == 1
    assert GAME.view(state, 0)["picks"] == [None, [2, 5], None]
    assert {"type": "draw"} in legal(state, 1) and {"type": "undo"} in legal(state, 1)
    assert not any(a["type"] == "pick_flips" for a in legal(state, 1))


def test_by_text_pick_reveals_no_card_value():
    """R11: the pick names positions only: nothing changes on the table but the picks, and its
    event is the same whatever the hidden cards are."""
    state = ended()
    after, events = GAME.apply(state, 1, pick(0, 11))
    assert after.grids == state.grids and after.discard == state.discard
    assert after.draw == state.draw and after.drawn is None
    assert set(events[0]) == {"type", "seat", "positions"}
    rnd = random.Random(3)
    for _ in range(5):
        shuffled = permute_hidden(state, 1, rnd)
        _, again = GAME.apply(shuffled, 1, pick(0, 11))
        assert again == events


def test_by_text_the_ender_has_no_last_turn_and_picks_nothing_in_it():
    """R6, R11: every seat but the ender has one last turn, so only they pick in the round."""
    state = ended(seats=4)
    state, _ = end_round(state, {1: (0, 1), 2: (3, 4), 3: (6, 7)})
    assert state.round == 2 and state.chosen == (False, True, True, True)


def test_by_text_picked_positions_are_turned_up_at_the_deal():
    """R11: the next round is dealt at once, each seat's picked cards face up (public events
    name them)."""
    state = ended()
    picks = {1: (1, 4), 2: (6, 11)}
    state, events = end_round(state, picks)
    assert state.phase is Phase.TURN and state.round == 2
    kinds = [e["type"] for e in events]
    dealt = ["round_ended", "round_started", "flipped_picked", "flipped_picked", "turn"]
    assert kinds[-5:] == dealt
    assert events[-4] == {"type": "round_started", "round": 2}
    for seat, picked in picks.items():
        g = state.grids[seat]
        assert [p for p in range(12) if g.up[p]] == list(picked)
        shown = next(e for e in events if e["type"] == "flipped_picked" and e["seat"] == seat)
        assert shown == {
            "type": "flipped_picked",
            "seat": seat,
            "positions": list(picked),
            "cards": [g.cards[p] for p in picked],
        }
        assert GAME.view(state, None)["grids"][seat][picked[0]] == g.cards[picked[0]]
    assert not any(state.grids[0].up)
    assert state.chosen == (False, True, True) and state.picks == (None, None, None)


def test_by_text_deals_the_round_a_live_game_deals():
    """R1, R11: the next round comes from the same draw on the rng as a live game's, so a
    seed and its moves deal the same cards either way."""
    live = replace(ended(), by_text=False, picks=())
    text = ended()
    for seat in (1, 2):
        live, _ = GAME.apply(live, seat, take(0))
        text, _ = last_turn(text, seat, (0, 1))
    for seat in range(3):
        live, _ = GAME.apply(live, seat, {"type": "next_round"})
    assert [g.cards for g in text.grids] == [g.cards for g in live.grids]
    assert (text.draw, text.discard, text.rng) == (live.draw, live.discard, live.rng)
    assert text.totals == live.totals and text.history == live.history


def test_by_text_ender_picks_first_in_the_new_round():
    """R3, R11: the ender moves first, and its first action is its pick, turned up at once
    (it reveals, so it cannot be undone)."""
    state, _ = end_round(ended(), {1: (0, 1), 2: (0, 1)})
    assert state.current == 0 and GAME.to_act(state) == {0}
    offered = legal(state, 0)
    assert len(offered) == 66 and all(a["type"] == "pick_flips" for a in offered)
    assert legal(state, 1) == []
    with pytest.raises(WrongPhase, match="First pick"):
        GAME.apply(state, 0, {"type": "draw"})
    with pytest.raises(WrongPhase):
        GAME.apply(state, 0, {"type": "flip_initial", "positions": [0, 1]})
    state, events = GAME.apply(state, 0, pick(3, 9))
    cards = [state.grids[0].cards[p] for p in (3, 9)]
    assert events == [
        {"type": "picked", "seat": 0, "positions": [3, 9]},
        {"type": "flipped_picked", "seat": 0, "positions": [3, 9], "cards": cards},
    ]
    assert state.chosen == (True, True, True) and state.current == 0
    assert [p for p in range(12) if state.grids[0].up[p]] == [3, 9]
    assert state.undo is None and {"type": "undo"} not in legal(state, 0)
    assert {"type": "draw"} in legal(state, 0)
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, {"type": "undo"})


def test_by_text_ender_pick_of_a_face_up_card_is_refused():
    """R11: the ender's pick turns cards up: two face-down ones (never so after a fair deal)."""
    state, _ = end_round(ended(), {1: (0, 1), 2: (0, 1)})
    g = state.grids[0]
    state = replace(state, grids=(replace(g, up=(True, *g.up[1:])), *state.grids[1:]))
    assert [0, 1] not in [a["positions"] for a in legal(state, 0)]
    with pytest.raises(IllegalAction, match="face-down"):
        GAME.apply(state, 0, pick(0, 1))


# -- undo (R10) -------------------------------------------------------------------------------


def test_by_text_undo_of_a_last_turn_undoes_its_pick():
    """R10, R11: undoing the action after a pick takes the pick back too: the seat picks again."""
    state = ended()
    before = state
    state, _ = last_turn(state, 1, (2, 7), where=0)  # onto its face-up 9: reveals nothing
    assert state.current == 2 and GAME.to_act(state) == {1, 2}
    state, events = GAME.apply(state, 1, {"type": "undo"})
    assert events == [{"type": "undone", "seat": 1}]
    assert state.picks == (None, None, None) and state.current == 1
    assert replace(state, moves=before.moves) == before
    assert all(a["type"] == "pick_flips" for a in legal(state, 1))


def test_by_text_a_blind_pick_alone_can_be_undone():
    """R10, R11: the blind pick revealed nothing, so it can be taken back on its own."""
    before = ended()
    state, _ = GAME.apply(before, 1, pick(2, 7))
    assert state.undo is not None and state.undo.seat == 1
    state, _ = GAME.apply(state, 1, {"type": "undo"})
    assert replace(state, moves=before.moves) == before


def test_by_text_undo_is_refused_after_a_pick_then_a_draw():
    """R10: the draw showed a card: neither it nor the pick before it can be undone."""
    state, _ = GAME.apply(ended(), 1, pick(2, 7))
    state, _ = GAME.apply(state, 1, {"type": "draw"})
    with pytest.raises(IllegalAction):
        GAME.apply(state, 1, {"type": "undo"})


def test_by_text_the_next_seats_pick_closes_the_undo():
    """R10: a pick is an action: once the next seat has picked, the last one cannot undo."""
    state, _ = last_turn(ended(seats=4), 1, (2, 7))
    state, _ = GAME.apply(state, 2, pick(0, 1))
    assert GAME.to_act(state) == {2}
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 1, {"type": "undo"})


# -- round end and game end -------------------------------------------------------------------


def test_by_text_no_round_end_pause():
    """R11: nobody waits between rounds: no round-end phase, no Next round, no pause."""
    state, events = end_round(ended(), {1: (0, 1), 2: (0, 1)})
    assert "ready" not in {e["type"] for e in events}
    assert state.phase is Phase.TURN and GAME.pause_limit(state) is None
    with pytest.raises(WrongPhase):
        GAME.apply(state, 0, {"type": "next_round"})
    assert GAME.view(state, 1)["ready"] == [False, False, False]


def test_by_text_final_round_picks_are_discarded():
    """R8, R11: after the game's last round nothing is dealt and the picks are dropped."""
    state = ended(totals=(0, 95, 0))
    state, events = end_round(state, {1: (0, 1), 2: (5, 6)})
    assert state.phase is Phase.OVER and GAME.result(state) is not None
    assert state.picks == (None, None, None)
    assert [e["type"] for e in events][-2:] == ["round_ended", "game_over"]
    assert GAME.view(state, None)["picks"] == [None, None, None]


def test_by_text_last_round_stays_in_the_view_through_the_next_round():
    """(ours) By text the scored round stays in every view during the next round."""
    state, _ = end_round(ended(), {1: (0, 1), 2: (0, 1)})
    summary = state.last_round
    assert summary is not None and summary.round == 1
    for view in (GAME.view(state, 1), GAME.view(state, None), GAME.open_view(state)):
        assert view["last_round"]["round"] == 1
        assert view["last_round"]["scores"] == list(summary.scores)
        assert view["last_round"]["ender"] == 0
    state, _ = GAME.apply(state, 0, pick(0, 1))
    assert GAME.view(state, 2)["last_round"]["round"] == 1


# -- live games -------------------------------------------------------------------------------


def test_by_text_live_games_unchanged():
    """R2: a live game (the default) has no picks: no new state keys, view keys or actions."""
    assert GAME.parse_options(None).by_text is False  # type: ignore[attr-defined]
    assert GAME.turn_based_options == {"by_text": True}
    live = GAME.new_game(3, None, 7)
    dumped = GAME.dump_state(live)
    assert "by_text" not in dumped and "picks" not in dumped
    assert "picks" not in GAME.view(live, 0)
    state = replace(ended(), by_text=False, picks=())
    assert all(a["type"] != "pick_flips" for a in legal(state, 1))
    with pytest.raises(WrongPhase, match="by text"):
        GAME.apply(state, 1, pick(0, 1))
    # The scored round is shown only at the round end, as before.
    state, _ = GAME.apply(state, 1, take(0))
    state, _ = GAME.apply(state, 2, take(0))
    assert state.phase is Phase.ROUND_END and GAME.pause_limit(state) is not None


def test_by_text_state_stored_before_ruling_11_loads_as_a_live_game():
    """A state stored before the option existed (no by_text, no picks) loads as a live game;
    a by-text state round-trips with its picks."""
    live = GAME.new_game(4, None, 11)
    stored = unpack(pack(GAME.dump_state(live)))
    assert "picks" not in stored
    assert GAME.load_state(stored) == live
    state, _ = GAME.apply(ended(), 1, pick(4, 8))
    dumped = GAME.dump_state(state)
    assert dumped["by_text"] is True and dumped["picks"] == [None, [4, 8], None]
    assert GAME.load_state(unpack(GAME.pack_state(state))) == state


# -- refused picks ----------------------------------------------------------------------------


def test_by_text_pick_at_the_wrong_time_is_refused():
    """R11: a pick only starts a last turn (or the ender's first turn): not an ordinary turn,
    not twice in one last turn, not out of turn."""
    ordinary = position([grid(DOWN), grid(DOWN)], by_text=True, picks=(None, None))
    with pytest.raises(WrongPhase, match="last turn"):
        GAME.apply(ordinary, 0, pick(0, 1))
    state, _ = GAME.apply(ended(), 1, pick(0, 1))
    with pytest.raises(WrongPhase):
        GAME.apply(state, 1, pick(2, 3))
    with pytest.raises(NotYourTurn):
        GAME.apply(ended(), 2, pick(0, 1))


@pytest.mark.parametrize(
    "positions",
    [[3, 3], [0, 12], [-1, 4], [0], [0, 1, 2], ["0", 1], [0.0, 1], [True, 2], None],
)
def test_by_text_malformed_pick_is_refused(positions):
    """Two different positions 0..11, as integers; anything else is malformed."""
    with pytest.raises(InvalidAction):
        GAME.apply(ended(), 1, {"type": "pick_flips", "positions": positions})


def test_by_text_pick_positions_are_sorted():
    assert PickFlips(positions=(9, 2)).positions == (2, 9)


# -- bots -------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_by_text_bots_pick_like_players(level):
    """R11: a bot (or a bot covering an away player's turn) picks like anyone: on its last
    turn, and first thing as the ender; two positions in different columns."""
    state = ended()
    for seed in range(20):
        move = GAME.bot_action(state, 1, Rng.from_seed(seed), level)
        assert isinstance(move, PickFlips)
        a, b = move.positions
        assert a // ROWS != b // ROWS
        assert GAME.dump_action(move) in legal(state, 1)
    state, _ = end_round(state, {1: (0, 1), 2: (0, 1)})
    move = GAME.bot_action(state, 0, Rng.from_seed(1), level)
    assert isinstance(move, PickFlips) and GAME.dump_action(move) in legal(state, 0)
    assert move == GAME.bot_action(state, 0, Rng.from_seed(1), level)


def check_by_text(state) -> None:
    """What holds in every state of a game played by text (R11)."""
    assert state.by_text and len(state.picks) == state.seats
    assert state.phase is not Phase.ROUND_END and GAME.pause_limit(state) is None
    if state.ender is None or state.phase is not Phase.TURN:
        # Picks are made on last turns only, and used (or dropped) when the round ends.
        assert state.picks == (None,) * state.seats
    else:
        assert state.picks[state.ender] is None
    if state.phase is Phase.TURN and not all(state.chosen):
        # Only the ender, first thing in a new round, has not turned up its pair yet.
        assert [s for s, c in enumerate(state.chosen) if not c] == [state.current]
        assert not any(state.grids[state.current].up) and state.round > 1


def replayed(seats, seed, log, options):
    state = GAME.new_game(seats, options, seed)
    yield state
    for seat, action in log:
        state, _ = GAME.apply(state, seat, action)
        yield state


@pytest.mark.parametrize("seats", [2, 5, 8])
def test_by_text_bot_games_finish_over_several_rounds_without_a_pause(seats):
    """R11: bots play a game by text to its end, picking as they go."""
    state = GAME.new_game(seats, BY_TEXT, seats)
    rng = Rng.from_seed(seats)
    picked = 0
    while GAME.result(state) is None:
        check_by_text(state)
        seat = state.current if state.phase is Phase.TURN else min(GAME.to_act(state))
        move = GAME.bot_action(state, seat, rng, "normal")
        _, rng = rng.next64()
        assert move is not None
        picked += isinstance(move, PickFlips)
        state, _ = GAME.apply(state, seat, move)
    assert state.round >= 2 and picked >= state.round * (seats - 1)
    final = bot_game(GAME, seats, seed=seats, options=BY_TEXT)
    assert GAME.result(final) is not None


# -- random playouts --------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 5, 8])
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1), target=st.integers(100, 220))
def test_by_text_random_legal_games_keep_every_invariant_to_the_end(seats, seed, target):
    options = {**BY_TEXT, "target_score": target}
    final, log = play_random_game(HARNESS, seats, seed, options=options)
    assert GAME.result(final) is not None
    for state in replayed(seats, seed, log, options):
        check_by_text(state)


@settings(max_examples=10, deadline=None)
@given(seats=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_by_text_same_seed_and_actions_replay_to_the_same_game(seats, seed):
    final, log = play_random_game(HARNESS, seats, seed, options=BY_TEXT, check=False)
    again = replay(GAME, seats, seed, log, options=BY_TEXT)
    assert again == final
    assert pack(GAME.view(again, 0)) == pack(GAME.view(final, 0))


@settings(max_examples=10, deadline=None)
@given(seats=st.integers(2, 8), seed=st.integers(0, 2**32), left=st.integers(1, 60))
def test_by_text_random_games_near_the_move_bound_end_by_it_at_the_latest(seats, seed, left):
    """Platform ruling (move bound), by text too: see ``check_ends_near_the_move_bound``."""
    check_ends_near_the_move_bound(HARNESS, seats, seed, left, options=BY_TEXT)


def test_by_text_view_is_the_live_view_plus_picks():
    """The view on the wire: a game by text adds ``picks`` and nothing else."""
    text = GAME.view(GAME.new_game(3, BY_TEXT, 1), 0)
    live = GAME.view(GAME.new_game(3, None, 1), 0)
    assert {k: v for k, v in text.items() if k != "picks"} == live
    assert text["picks"] == [None, None, None]


def test_by_text_picks_are_discarded_when_the_move_bound_ends_the_game():
    """Platform ruling (move bound), R11: no round follows, so the picks go."""
    state = ended(moves=GAME.move_bound - 2)
    state, _ = GAME.apply(state, 1, pick(0, 1))
    assert GAME.result(state) is not None and state.picks == (None, None, None)


def test_by_text_the_game_waits_for_the_current_seat_only_while_an_undo_is_open():
    """R10: an open undo is optional: the game waits for the seat to move, not the undoer."""
    state, _ = last_turn(ended(), 1, (2, 7))
    assert GAME.to_act(state) == {1, 2} and GAME.waiting_for(state) == {2}

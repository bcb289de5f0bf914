"""Rulings 13 and 14: the win, the ranking, reshuffling, and the stalemate ending; and the
platform's move bound.

Also our decisions for an exhausted table: no draw is offered when nothing can be drawn, a
Take draws what there is, and a seat with nothing to play or draw passes.
"""

from dataclasses import replace
from typing import Any

from rules.errors import GameOver, IllegalAction
from rules.floor import GAME
from rules.floor.actions import Draw
from rules.floor.cards import CARDS, Kind
from rules.floor.policy_v1 import choose as choose_v1
from rules.floor.state import Phase, State, fingerprint
from rules.floor.table import MOVE_BOUND
from rules.rng import Rng
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    act,
    freeze,
    legal,
    mul,
    num,
    position,
    refused,
    swap,
    take2,
)


def test_ruling_13_first_to_empty_their_hand_wins_and_others_rank_by_fewest_cards() -> None:
    """R13: the first to empty their hand wins; the others rank by fewest cards."""
    hands = [
        [num(STAR, 1), num(STAR, 2), num(STAR, 3)],
        [num(CIRCLE, 5)],
        [num(STAR, 4)],
        [num(STAR, 5), num(STAR, 6)],
    ]
    state = position(hands, shape=CIRCLE, number=3, turn=1)
    after, events = act(state, 1, {"type": "number", "cards": [num(CIRCLE, 5)]})
    result = GAME.result(after)
    assert result is not None
    assert result.winners == (1,)
    assert result.scores == (3, 0, 1, 2)
    assert result.places == (4, 1, 2, 3)
    assert GAME.to_act(after) == frozenset()
    assert events[-1] == {"type": "game_over", **result.to_wire()}
    refused(after, 2, {"type": "draw"}, GameOver)


def test_ruling_13_equal_counts_share_a_place() -> None:
    """R13: equal counts share a place."""
    hands = [[num(STAR, 1), num(STAR, 2)], [num(CIRCLE, 5)], [num(STAR, 4), num(STAR, 3)]]
    state = position(hands, shape=CIRCLE, turn=1)
    after, _ = act(state, 1, {"type": "number", "cards": [num(CIRCLE, 5)]})
    assert after.outcome is not None and after.outcome.places == (2, 1, 2)


def test_ruling_13_a_freeze_as_the_last_card_in_open_play_wins() -> None:
    """R13: a Freeze as the last card wins too."""
    state = position([[freeze(CIRCLE)], [num(STAR, 1)], [num(STAR, 2)]], shape=CIRCLE, number=3)
    after, _ = act(state, 0, {"type": "freeze", "card": freeze(CIRCLE)})
    assert after.phase is Phase.OVER and after.outcome.winners == (0,)


def test_ruling_14_empty_draw_pile_reshuffles_the_discard_but_its_top() -> None:
    """R14: an empty draw pile takes the discards but their top, shuffled."""
    under, top = [num(SQUARE, 1), num(SQUARE, 2), num(SQUARE, 3)], num(CIRCLE, 9)
    state = position(
        [[num(STAR, 1)], [num(STAR, 2)]],
        shape=CIRCLE,
        number=9,
        draw=[],
        discard=[*under, top],
        rest="out",
    )
    after, events = act(state, 0, {"type": "draw"})
    assert after.discard == (top,)
    assert {"type": "reshuffled", "draw_size": 3} in events
    assert len(after.draw) == 2
    assert len(after.hands[0]) == 2
    assert set(after.draw) | (set(after.hands[0]) - {num(STAR, 1)}) == set(under)


def test_ruling_14_reshuffle_is_seeded_from_the_state() -> None:
    """R14: the shuffle comes from the state's seed."""
    under = [num(SQUARE, v) for v in range(10)]
    kwargs = {"shape": CIRCLE, "draw": [], "discard": [*under, num(CIRCLE, 9)], "rest": "out"}
    a, _ = act(position([[num(STAR, 1)], [num(STAR, 2)]], seed=1, **kwargs), 0, {"type": "draw"})
    b, _ = act(position([[num(STAR, 1)], [num(STAR, 2)]], seed=1, **kwargs), 0, {"type": "draw"})
    c, _ = act(position([[num(STAR, 1)], [num(STAR, 2)]], seed=2, **kwargs), 0, {"type": "draw"})
    assert a == b
    assert a.draw != c.draw


def test_a_take_stack_draws_what_there_is_when_the_piles_run_short() -> None:
    state = position(
        [[num(STAR, 1)], [num(STAR, 2)]],
        shape=CIRCLE,
        number=9,
        phase=Phase.TAKE,
        stack=4,
        turn=1,
        by=0,
        draw=[num(SQUARE, 4)],
        discard=[num(SQUARE, 5), num(CIRCLE, 9)],
        rest="out",
    )
    assert legal(state, 1) == [{"type": "draw"}]
    assert GAME.view(state, 1)["legal"] == [{"type": "draw", "count": 2}]
    after, events = act(state, 1, {"type": "draw"})
    assert after.hands[1] == tuple(sorted((num(STAR, 2), num(SQUARE, 4), num(SQUARE, 5))))
    assert {"type": "drew", "seat": 1, "count": 2, "bottom": False} in events
    assert (after.phase, after.stack, after.turn) == (Phase.PLAY, 0, 0)


def _dry(hands: list[list[int]], **kwargs: Any) -> State:
    """Nothing left to draw: an empty draw pile and only the top of the discard pile."""
    return position(hands, draw=[], discard=[num(CIRCLE, 9)], rest="out", **kwargs)


def test_nothing_to_draw_no_draw_offered_and_pass_only_when_nothing_else() -> None:
    state = _dry([[num(CIRCLE, 1)], [num(TRIANGLE, 2)]], shape=CIRCLE, number=3, turn=1)
    assert legal(state, 1) == [{"type": "pass"}]
    refused(state, 1, {"type": "draw"}, IllegalAction, "no card left to draw")
    after, events = act(state, 1, {"type": "pass"})
    assert (after.turn, after.passes) == (0, 1)
    assert events[0] == {"type": "passed", "seat": 1}
    # Seat 0 can play its circle 1, so it may not pass.
    refused(after, 0, {"type": "pass"}, IllegalAction, "neither play nor draw")


def test_pass_is_refused_while_a_card_can_be_drawn() -> None:
    state = position([[num(TRIANGLE, 1)], [num(TRIANGLE, 2)]], shape=CIRCLE, number=3)
    refused(state, 0, {"type": "pass"}, IllegalAction, "neither play nor draw")


def test_ruling_14_stalemate_after_a_full_round_in_which_nobody_can_play_or_draw() -> None:
    """R14: a full round of nobody playing or drawing ends it; fewest cards win."""
    hands = [
        [num(STAR, 1), num(STAR, 2)],
        [num(SQUARE, 1)],
        [num(TRIANGLE, 2), num(TRIANGLE, 3), num(TRIANGLE, 5)],
    ]
    state = _dry(hands, shape=CIRCLE, number=9)
    for seat in (0, 1):
        assert legal(state, seat) == [{"type": "pass"}]
        state, _ = act(state, seat, {"type": "pass"})
        assert GAME.result(state) is None
    state, events = act(state, 2, {"type": "pass"})
    result = GAME.result(state)
    assert result is not None and "Stalemate" in result.reason
    assert result.winners == (1,), "fewest cards win"
    assert result.places == (2, 1, 3)
    assert events[-1]["type"] == "game_over"


def test_ruling_14_stalemate_ties_share_the_win() -> None:
    """R14: equal fewest share the win."""
    state = _dry([[num(STAR, 1)], [num(SQUARE, 1)]], shape=CIRCLE, number=9)
    state, _ = act(state, 0, {"type": "pass"})
    state, _ = act(state, 1, {"type": "pass"})
    assert state.outcome is not None and state.outcome.winners == (0, 1)


def test_ruling_14_a_play_restarts_the_stalemate_count() -> None:
    """R14: a play in between: no full round."""
    hands = [[num(STAR, 1)], [num(CIRCLE, 1), num(SQUARE, 5)], [num(TRIANGLE, 2)]]
    state = _dry(hands, shape=CIRCLE, number=9)
    state, _ = act(state, 0, {"type": "pass"})
    state, _ = act(state, 1, {"type": "number", "cards": [num(CIRCLE, 1)]})
    assert state.passes == 0
    state, _ = act(state, 2, {"type": "draw"})  # the circle 9 under the top is drawable now
    assert state.passes == 0 and GAME.result(state) is None


def test_losing_a_turn_to_a_freeze_with_nothing_to_draw_is_a_pass_that_restarts_the_count() -> None:
    state = _dry(
        [[num(STAR, 9)], [num(CIRCLE, 1), num(STAR, 1)], [num(STAR, 2)]],
        shape=CIRCLE,
        number=3,
        phase=Phase.FREEZE,
        turn=1,
        by=0,
        passes=1,
    )
    assert legal(state, 1) == [{"type": "pass"}]
    after, _ = act(state, 1, {"type": "pass"})
    assert (after.phase, after.turn, after.passes) == (Phase.PLAY, 2, 0)


def test_burning_a_swap_needs_a_card_to_draw() -> None:
    state = position([[swap()], [num(STAR, 1)]], shape=CIRCLE, number=3, draw=[], rest="out")
    refused(state, 0, {"type": "burn", "card": swap()}, IllegalAction, "no card left")
    assert legal(state, 0) == [{"type": "pass"}]


def test_burning_a_swap_reshuffles_when_the_draw_pile_is_empty() -> None:
    state = _dry([[swap()], [num(STAR, 1)]], shape=CIRCLE, number=9)
    after, events = act(state, 0, {"type": "burn", "card": swap()})
    assert after.hands[0] == (num(CIRCLE, 9),), "the old top card, reshuffled, is drawn"
    assert after.discard == (swap(),)
    assert [e["type"] for e in events[:3]] == ["burnt_swap", "reshuffled", "drew"]


def test_a_freeze_answer_draw_takes_one_even_from_a_reshuffle() -> None:
    state = position(
        [[num(STAR, 9)], [num(STAR, 1)]],
        shape=CIRCLE,
        phase=Phase.FREEZE,
        turn=1,
        by=0,
        draw=[],
        discard=[num(SQUARE, 2), freeze(CIRCLE)],
        rest="out",
    )
    after, _ = act(state, 1, {"type": "draw"})
    assert after.hands[1] == tuple(sorted((num(STAR, 1), num(SQUARE, 2))))


def test_repetition_a_forced_shuttle_of_cards_ends_as_a_stalemate() -> None:
    # Our decision: seat 1 plays a square, seat 0 can only draw it back, seat 1 can only pass,
    # seat 0 can only play it again... every move is forced and the game would never end.
    state = position(
        [[num(CIRCLE, 0)], [num(STAR, 1), num(SQUARE, 6)]],
        shape=SQUARE,
        number=8,
        turn=1,
        draw=[],
        discard=[num(SQUARE, 8)],
        rest="out",
    )
    moves = []
    for _ in range(30):
        if GAME.result(state) is not None:
            break
        (only,) = legal(state, state.turn)
        moves.append(only["type"])
        state, _ = act(state, state.turn, only)
    result = GAME.result(state)
    assert result is not None and "came round a third time" in result.reason
    assert moves[:6] == ["number", "draw", "pass", "number", "draw", "pass"]
    assert len(moves) == 13, "the position after move 1 comes round after moves 7 and 13"
    assert result.winners == (0, 1) and result.scores == (1, 1), "fewest cards: a tie"


def test_repetition_is_only_tracked_with_an_empty_draw_pile() -> None:
    state = GAME.new_game(3, None, seed=5)
    for _ in range(10):
        state, _ = act(state, state.turn, {"type": "draw"})
    assert state.seen == ()


def test_repetition_counts_only_positions_with_an_empty_draw_pile() -> None:
    state = position(
        [[num(CIRCLE, 0)], [num(STAR, 1), num(SQUARE, 6)]],
        shape=SQUARE,
        number=8,
        turn=1,
        draw=[num(TRIANGLE, 5)],
        discard=[num(SQUARE, 8)],
        rest="out",
    )
    after, _ = act(state, 1, {"type": "number", "cards": [num(SQUARE, 6)]})
    assert after.seen == ()


def test_repetition_does_not_end_a_loop_that_a_seat_could_leave() -> None:
    # Our decision: every cycle, seat 2 could win with Multiply x 0 (7 x 0 = 0, resolved by its
    # circle 0) but plays the circle 0 alone instead. Its choice starts the count again, so the
    # position comes round a third time and more without ending the game.
    state = position(
        [[num(TRIANGLE, 4, 1)], [num(CIRCLE, 0), mul(1)]],
        shape=CIRCLE,
        number=7,
        draw=[],
        discard=[num(CIRCLE, 7)],
        rest="out",
    )
    start = state
    cycle: list[tuple[int, dict[str, Any]]] = [
        (0, {"type": "pass"}),
        (1, {"type": "number", "cards": [num(CIRCLE, 0)]}),
        (0, {"type": "draw"}),
        (1, {"type": "pass"}),
        (0, {"type": "number", "cards": [num(CIRCLE, 7)]}),
        (1, {"type": "draw"}),
    ]
    for _ in range(3):
        for seat, action in cycle:
            state, _ = act(state, seat, action)
        assert GAME.result(state) is None
        assert (state.hands, state.discard, state.turn) == (start.hands, start.discard, 0)
    state, _ = act(state, 0, {"type": "pass"})
    win = {"type": "operation", "card": mul(1), "operand": num(CIRCLE, 0), "riders": []}
    after, _ = act(state, 1, {**win, "shape": "circle"})
    result = GAME.result(after)
    assert result is not None and result.winners == (1,)


def test_repetition_a_fifth_time_ends_even_a_loop_through_choices() -> None:
    # Our backstop: seat 2 only ever chooses how to answer a charged Swap, and every answer
    # leads back into the same shuttle of the triangle 5 and the Swap. Nobody can win, so
    # the fifth time a position comes round ends the game whatever the choices.
    state = position(
        [[num(SQUARE, 3), num(STAR, 1), num(STAR, 6), swap()], [num(SQUARE, 6), freeze(STAR)]],
        shape=TRIANGLE,
        number=5,
        draw=[],
        discard=[num(TRIANGLE, 5)],
        rest="out",
    )
    choices = 0
    for n in range(200):
        if GAME.result(state) is not None:
            break
        options = legal(state, state.turn)
        choices += len(options) > 1
        state, _ = act(state, state.turn, options[n % len(options)])
    result = GAME.result(state)
    assert result is not None and "came round a fifth time" in result.reason
    assert choices >= 3, "the forced-moves rule alone would never end this loop"
    assert result.winners == (1,) and result.scores == (3, 2)


def _fingerprinted(passes: int = 0) -> State:
    """A position with an empty draw pile, as the repetition rule fingerprints them."""
    return position(
        [[num(CIRCLE, 0), num(STAR, 3)], [num(STAR, 1)]],
        shape=SQUARE,
        number=8,
        draw=[],
        discard=[num(SQUARE, 8), num(SQUARE, 2)],
        rest="out",
        passes=passes,
    )


def test_repetition_fingerprint_sees_every_part_of_the_position() -> None:
    base = _fingerprinted(passes=1)
    fp = fingerprint(base)
    for changed in (
        replace(base, discard=base.discard[::-1]),
        replace(base, passes=0),
        replace(base, turn=1),
        replace(base, direction=-1),
        replace(base, floor_number=7),
        replace(base, floor_shape=STAR),
    ):
        assert fingerprint(changed) != fp


def test_repetition_fingerprint_sees_the_opener_flag_the_hands_and_what_is_pending() -> None:
    base = _fingerprinted()
    fp = fingerprint(base)
    for changed in (
        replace(base, opening=True),
        replace(base, hands=(base.hands[1], base.hands[0])),
        replace(base, phase=Phase.FREEZE, by=1),
        replace(base, phase=Phase.TAKE, stack=2, by=1),
        replace(base, phase=Phase.TAKE, stack=3, by=1),
        replace(base, floor_number=None),
        replace(base, floor_shape=None),
    ):
        assert fingerprint(changed) != fp, changed
    assert fingerprint(replace(base, seen=(1, 2), forced_from=1)) == fp, "history is not position"


# -- platform ruling: the move bound ---------------------------------------------------------


def _at_the_bound(state: State) -> State:
    """``state`` with one action left before the move bound."""
    return replace(state, moves=MOVE_BOUND - 1)


def test_move_bound_ends_the_game_with_standings() -> None:
    """Platform ruling (move bound): the fewest cards win, equal counts sharing the win."""
    hands = [[num(STAR, 1), num(STAR, 2)], [num(CIRCLE, 5)], [num(STAR, 4)]]
    state = position(hands, shape=CIRCLE, number=3)
    going, _ = act(replace(state, moves=MOVE_BOUND - 2), 0, {"type": "draw"})
    assert GAME.result(going) is None and going.moves == MOVE_BOUND - 1

    after, events = act(_at_the_bound(state), 0, {"type": "draw"})
    assert after.moves == MOVE_BOUND
    assert after.phase is Phase.OVER
    assert GAME.to_act(after) == frozenset()
    assert all(not legal(after, seat) for seat in range(3))
    result = GAME.result(after)
    assert result is not None
    assert result.scores == (3, 1, 1)
    assert result.winners == (1, 2)
    assert result.places == (3, 1, 1)
    assert result.move_bound == MOVE_BOUND
    assert "move bound" in result.reason
    assert events[-1] == {"type": "game_over", **result.to_wire()}
    assert GAME.view(after, None)["result"]["move_bound"] == MOVE_BOUND
    refused(after, 1, {"type": "draw"}, GameOver)


def test_move_bound_ends_the_game_even_with_a_take_pending() -> None:
    """Platform ruling (move bound): what is pending when the bound is reached is dropped."""
    hands = [[take2(CIRCLE), num(STAR, 2)], [num(CIRCLE, 5)]]
    state = _at_the_bound(position(hands, shape=CIRCLE, number=3))
    after, _ = act(state, 0, {"type": "take", "card": take2(CIRCLE)})
    assert after.phase is Phase.OVER and after.stack == 0 and after.by is None
    result = GAME.result(after)
    assert result is not None and result.move_bound == MOVE_BOUND
    assert result.winners == (0, 1)


def test_move_bound_a_win_on_the_last_move_is_a_win() -> None:
    """Platform ruling (move bound): the game's own ending comes first."""
    state = _at_the_bound(position([[num(CIRCLE, 5)], [num(STAR, 4)]], shape=CIRCLE))
    after, _ = act(state, 0, {"type": "number", "cards": [num(CIRCLE, 5)]})
    result = GAME.result(after)
    assert result is not None
    assert result.winners == (0,) and result.move_bound is None
    assert "move_bound" not in result.to_wire()


def test_move_bound_ends_bots_that_hold_only_powers() -> None:
    """Platform ruling (move bound): two bots that keep their Powers for last and draw instead
    never finish (issue 12, seeds 900031, 900064, 900252); the bound ends their games. Today's
    bots play their Powers (issue 14), so the frozen v1 bot is what still shows the stall."""
    for seed in (900031, 900064, 900252):
        state = GAME.new_game(2, None, seed)
        rng = Rng.from_seed(seed)
        held_only_powers = False
        while GAME.result(state) is None:
            seat = state.turn
            hand = state.hands[seat]
            action = choose_v1(state, seat, rng)
            only_powers = len(hand) > 1 and all(CARDS[c].kind is Kind.POWER for c in hand)
            if only_powers and state.phase is Phase.PLAY:
                # Keeping its Powers for the end, the bot draws rather than play one.
                held_only_powers = True
                assert action == Draw()
            state, _ = GAME.apply(state, seat, action)
            assert state.moves <= MOVE_BOUND
        result = GAME.result(state)
        assert result is not None
        assert held_only_powers, seed
        assert state.moves == MOVE_BOUND
        assert result.move_bound == MOVE_BOUND
        fewest = min(result.scores)
        assert result.winners == tuple(s for s in (0, 1) if result.scores[s] == fewest)

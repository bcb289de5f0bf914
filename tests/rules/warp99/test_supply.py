"""Personal decks running out (+15 and a new deck), the reserve, and rebuilding it."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from rules.codec import pack, unpack
from rules.warp99 import GAME
from rules.warp99.cards import card
from rules.warp99.state import State, Step
from tests.rules.warp99.helpers import act, cards, event_types, position

END = {"type": "end_step"}
RESERVE = [f"orange {v}" for v in range(11)] + [f"yellow {v}" for v in range(11)]


def last_deck_card(reserve: list[str]) -> State:
    """Seat 0 in Action C with five cards in hand and one left in its deck: drawing it up to
    six empties the deck. The pile tops are tan 9 and tan 10."""
    return position(
        hand=["red 4", "blue 2", "green 7", "red 5", "red 6"],
        deck=["gray 0"],
        reserve=reserve,
        tops=("tan 9", "tan 10"),
        step=Step.C,
    )


def test_a_deck_running_out_scores_15_and_deals_a_new_deck_of_15_from_the_reserve() -> None:
    """R8: an empty deck scores 15 and is replaced by 15 from the reserve."""
    state = position(
        hand=["red 4", "blue 2", "green 7"], deck=["gray 0", "gray 1"], reserve=RESERVE, step=Step.C
    )
    after, events = act(state, END)
    assert after.scores[0] == 15
    # Both deck cards, then one off the new deck: the top of the reserve's last 15.
    assert len(after.hands[0]) == 6
    assert set(cards("gray 0", "gray 1")) <= set(after.hands[0])
    assert after.decks[0] == cards(*RESERVE[-15:-1])
    assert after.reserve == cards(*RESERVE[:-15])
    kinds = event_types(events)
    assert kinds.index("deck_emptied") < kinds.index("new_deck") < kinds.index("scored")


def test_the_15_points_come_the_moment_the_deck_empties_not_at_the_next_draw() -> None:
    """R8: the moment the deck empties."""
    # Drawing exactly the last card (hand of five) already scores, though nothing more is drawn.
    state = position(hand=["red 4", "blue 2", "green 7", "red 5", "red 6"], deck=["gray 0"])
    state = replace(state, step=Step.C)
    after, _ = act(state, END)
    assert after.scores[0] == 15
    assert len(after.decks[0]) == 15


def test_a_deck_running_out_mid_bonus_draw_scores_and_refills_at_once() -> None:
    """R8: a bonus draw that empties the deck, too."""
    state = position(
        hand=["red 4", "pink 5"],
        tops=("red 6", "blue 9"),
        deck=["gray 3"],
        reserve=RESERVE,
        step=Step.B,
    )
    after, events = act(state, {"type": "play_to_pile", "card": card("red", 4), "pile": 0})
    assert after.hands[0] == cards("pink 5", "gray 3")
    assert after.scores[0] == 15
    assert after.decks[0] == cards(*RESERVE[-15:])
    assert after.step is Step.B
    assert "deck_emptied" in event_types(events)


def test_the_reserve_is_rebuilt_from_both_piles_but_their_tops_and_the_scored_pile() -> None:
    """R8: the reserve is rebuilt from under the pile tops and the scored cards."""
    state = last_deck_card(reserve=["pink 0", "pink 1", "pink 2"])
    under = (cards("tan 0", "tan 1"), cards("tan 2", "tan 3", "tan 4"))
    state = replace(state, piles=(under[0] + state.piles[0], under[1] + state.piles[1]))
    pool = Counter(under[0] + under[1] + state.scored)
    assert len(state.scored) > 20
    after, events = act(state, END)
    assert after.piles == (cards("tan 9"), cards("tan 10"))
    assert after.scored == ()
    new_deck = after.decks[0]
    # The three reserve cards on top (a deck lists its top card last), then twelve from the
    # rebuilt reserve below them.
    assert len(new_deck) == 15
    assert new_deck[-3:] == cards("pink 0", "pink 1", "pink 2")
    assert Counter(new_deck[:-3]) + Counter(after.reserve) == pool
    assert {"type": "reserve_rebuilt", "size": sum(pool.values())} in events
    assert after.scores[0] == 15


def test_the_rebuilt_reserve_is_shuffled() -> None:
    """R8: the rebuilt reserve is shuffled."""
    state = position(
        hand=["red 4", "blue 2", "green 7", "red 5", "red 6"], deck=["gray 0"], reserve=[]
    )
    state = replace(state, step=Step.C)
    ordered = tuple(sorted(state.scored))
    state = replace(state, scored=ordered)
    after, _ = act(state, END)
    dealt = after.decks[0] + after.reserve
    assert sorted(dealt) == list(ordered)
    assert dealt != ordered and after.reserve != ordered[: len(after.reserve)]


def test_a_reserve_too_small_even_after_rebuilding_gives_what_there_is() -> None:
    """R8: short even after rebuilding, the player gets what there is."""
    state = last_deck_card(reserve=["pink 0", "pink 1"])
    # Everything else is out of reach: in seat 1's deck, and nothing under the piles.
    state = replace(
        state,
        decks=(state.decks[0], state.decks[1] + state.scored[3:]),
        scored=state.scored[:3],
    )
    after, _ = act(state, END)
    assert after.scores[0] == 15
    assert len(after.decks[0]) == 5
    assert after.reserve == ()
    assert after.scored == ()


def test_a_deck_running_out_scores_15_even_when_no_new_deck_can_be_dealt() -> None:
    """R8: the 15 points do not wait for a new deck."""
    # The whole supply is empty: no reserve, nothing under the piles, no scored cards.
    state = last_deck_card(reserve=[])
    state = replace(state, decks=(state.decks[0], state.decks[1] + state.scored), scored=())
    after, events = act(state, END)
    assert after.scores[0] == 15
    assert after.decks[0] == ()
    assert len(after.hands[0]) == 6
    assert "deck_emptied" in event_types(events)
    assert "new_deck" not in event_types(events)
    assert after.turn == 1


def test_an_empty_deck_with_nothing_to_refill_it_leaves_the_hand_short() -> None:
    state = position(hand=["red 4", "blue 2"], deck=[], reserve=[], step=Step.C)
    state = replace(state, decks=(state.decks[0], state.decks[1] + state.scored), scored=())
    after, events = act(state, END)
    assert after.hands[0] == state.hands[0]
    assert after.scores[0] == 0  # no second 15 for a deck that was already empty
    assert after.turn == 1
    assert {"type": "drew", "seat": 0, "count": 0, "why": "refill"} in events


def test_an_empty_deck_is_refilled_when_the_reserve_has_cards_again_without_points() -> None:
    state = position(hand=["red 4", "blue 2"], deck=[], reserve=RESERVE, step=Step.C)
    after, _ = act(state, END)
    assert after.scores[0] == 0
    assert len(after.hands[0]) == 6
    assert after.decks[0] == cards(*RESERVE[-15:-4])


def short_deck() -> State:
    """Seat 0 in Action C, its deck dealt short (the two pink cards; the supply was dry): drawing
    back up to six empties it. The hand is four cards; two cards wait in the scored pile."""
    state = last_deck_card(reserve=["pink 0", "pink 1"])
    # Nothing under the pile tops and no scored cards: the next deck is the two pink cards.
    state = replace(state, decks=(state.decks[0], state.decks[1] + state.scored), scored=())
    state, _ = act(state, END)
    assert state.scores[0] == 15 and state.decks[0] == cards("pink 0", "pink 1")
    hand = state.hands[0]
    return replace(state, turn=0, step=Step.C, hands=(hand[:4], state.hands[1]), scored=hand[4:])


def test_ruling_11_a_short_deck_scores_nothing_when_it_runs_out() -> None:
    """R11: only a deck dealt as a full 15 scores when it runs out; a short one is replaced."""
    after, events = act(short_deck(), END)
    assert "deck_emptied" in event_types(events)
    assert after.scores[0] == 15, "no points for a short deck"
    assert after.decks[0], "it is still replaced (here from the rebuilt reserve)"


def test_ruling_11_the_state_remembers_which_decks_were_dealt_short() -> None:
    """R11: a seat is in ``short_decks`` while its current deck is one dealt short."""
    state = short_deck()
    assert state.short_decks == (0,)
    after, _ = act(state, END)
    assert after.short_decks == (0,), "the next deck (two rebuilt cards) is short again"


def test_ruling_11_the_events_say_whether_an_emptied_deck_scored() -> None:
    """R11: ``deck_emptied`` carries the points it scored, ``new_deck`` whether it is full."""
    state = short_deck()
    assert {"type": "deck_emptied", "seat": 0, "bonus": 0} in act(state, END)[1]
    events = act(state, END)[1]
    assert not any(e["type"] == "scored" for e in events)
    # Only the two scored cards could be rebuilt into the reserve: another short deck.
    assert {"type": "new_deck", "seat": 0, "size": 2, "full": False} in events
    _, events = act(
        position(
            hand=["red 4", "blue 2", "green 7"], deck=["gray 0"], reserve=RESERVE, step=Step.C
        ),
        END,
    )
    assert {"type": "deck_emptied", "seat": 0, "bonus": 15} in events
    assert {"type": "new_deck", "seat": 0, "size": 15, "full": True} in events


def test_ruling_11_a_full_deck_after_a_short_one_scores_again() -> None:
    """R11: the next deck dealt as a full 15 scores as usual."""
    state = short_deck()
    # This time the reserve can cover a whole new deck.
    reserve = state.decks[1][-15:]
    state = replace(state, decks=(state.decks[0], state.decks[1][:-15]), reserve=reserve)
    state, events = act(state, END)
    assert state.scores[0] == 15 and state.decks[0] == reserve
    assert {"type": "new_deck", "seat": 0, "size": 15, "full": True} in events
    assert state.short_decks == ()
    # Drain the new deck down to its last card: emptying it pays 15.
    hand = state.hands[0]
    state = replace(
        state,
        turn=0,
        step=Step.C,
        hands=(hand[:5], state.hands[1]),
        decks=(state.decks[0][-1:], state.decks[1]),
        scored=state.scored + hand[5:] + state.decks[0][:-1],
    )
    after, events = act(state, END)
    assert {"type": "deck_emptied", "seat": 0, "bonus": 15} in events
    assert after.scores[0] == 30


def test_ruling_11_the_view_shows_whether_each_deck_will_score() -> None:
    """R11: public, as every new deck's size is announced."""
    state = short_deck()
    assert GAME.view(state, 1)["deck_full"] == [False, True]
    assert GAME.view(state, None)["deck_full"] == [False, True]
    assert GAME.view(position(), 0)["deck_full"] == [True, True]
    empty = replace(position(deck=[]), short_decks=(0,))
    assert GAME.view(empty, 0)["deck_full"] == [False, True]


def test_the_first_decks_are_dealt_full() -> None:
    """R2 and R11: every deck of the deal is a full 15 and will score."""
    for seats in range(2, 7):
        assert GAME.new_game(seats, None, seats).short_decks == ()


def test_a_state_stored_before_ruling_11_still_loads_and_plays() -> None:
    """R11: a stored state without ``short_decks`` loads with every deck counted as full."""
    state = GAME.new_game(3, None, 7)
    for _ in range(4):
        state, _ = GAME.apply(state, state.turn, GAME.bot_action(state, state.turn, state.rng))
    stored = unpack(pack(GAME.dump_state(state)))
    old = {key: value for key, value in stored.items() if key != "short_decks"}
    loaded = GAME.load_state(old)
    assert loaded == state and loaded.short_decks == ()
    # An old game whose deck ran out short scores as it did then; its next deck is tracked.
    old_short = dict(old, **GAME.dump_state(short_deck()))
    del old_short["short_decks"]
    loaded = GAME.load_state(unpack(pack(old_short)))
    after, events = act(loaded, END)
    assert after.scores[0] == 30
    assert after.short_decks == (0,)
    assert {"type": "new_deck", "seat": 0, "size": 2, "full": False} in events
    # And the game goes on to its end.
    while GAME.result(after) is None:
        after, _ = GAME.apply(after, after.turn, GAME.bot_action(after, after.turn, after.rng))


def test_ruling_13_a_short_hand_tops_up_at_the_start_of_its_turn() -> None:
    """R13: a hand left short when the supply was dry draws up to six when its turn starts."""
    state = position(hand=["red 4", "blue 2"], step=Step.C)  # seat 0's own deck holds 9
    state = replace(state, turn=1)
    after, events = act(state, END, seat=1)
    assert after.turn == 0 and after.step is Step.A
    assert len(after.hands[0]) == 6
    assert after.decks[0] == state.decks[0][:-4]
    kinds = event_types(events)
    assert kinds[-2:] == ["turn_started", "drew"]
    assert events[-1] == {"type": "drew", "seat": 0, "count": 4, "why": "top_up"}


def test_ruling_13_a_full_hand_draws_nothing_at_the_start_of_its_turn() -> None:
    """R13: only a short hand draws; a turn start announces no empty draw."""
    hand = ["red 4", "blue 2", "green 7", "red 5", "red 6", "red 7"]
    state = replace(position(hand=hand, step=Step.C), turn=1)
    after, events = act(state, END, seat=1)
    assert after.hands[0] == state.hands[0]
    assert event_types(events)[-1] == "turn_started"


def test_ruling_13_with_nothing_to_draw_the_hand_stays_short_without_an_event() -> None:
    """R13: only if cards can now be drawn."""
    state = position(hand=["red 4", "blue 2"], deck=[], reserve=[], step=Step.C)
    state = replace(state, turn=1, decks=(state.decks[0], state.decks[1] + state.scored), scored=())
    after, events = act(state, END, seat=1)
    assert after.hands[0] == state.hands[0]
    assert after.turn == 0
    assert event_types(events)[-1] == "turn_started"
    assert not any(e["type"] == "drew" and e["seat"] == 0 for e in events)


def test_ruling_13_an_owed_deck_is_dealt_at_the_start_of_the_turn_without_points() -> None:
    """R13 with R8: an empty deck gets its new deck to top up from, without another 15."""
    state = position(hand=["red 4", "blue 2"], deck=[], reserve=RESERVE, step=Step.C)
    state = replace(state, turn=1)
    after, events = act(state, END, seat=1)
    assert after.scores[0] == 0
    assert len(after.hands[0]) == 6
    assert after.decks[0] == cards(*RESERVE[-15:-4])
    assert event_types(events)[-3:] == ["turn_started", "new_deck", "drew"]
    assert events[-1] == {"type": "drew", "seat": 0, "count": 4, "why": "top_up"}


def test_ruling_13_the_top_up_can_rebuild_the_reserve() -> None:
    """R13 with R8: the owed deck comes from a rebuilt reserve if the reserve is empty."""
    state = position(hand=["red 4", "blue 2"], deck=[], reserve=[], step=Step.C)
    state = replace(state, turn=1)
    pool = len(state.scored)
    assert pool >= 15
    after, events = act(state, END, seat=1)
    assert "reserve_rebuilt" in event_types(events)
    assert len(after.hands[0]) == 6 and len(after.decks[0]) == 11
    assert after.scores[0] == 0


def test_ruling_13_a_top_up_that_empties_a_full_deck_scores_15_and_can_win() -> None:
    """R13 with R8, R9 and R11: the top-up empties the deck (dealt full): 15 points at once."""
    state = position(hand=["red 4", "blue 2"], deck=["gray 0", "gray 1"], step=Step.C)
    state = replace(state, turn=1, scores=(90, 1))
    after, events = act(state, END, seat=1)
    assert {"type": "deck_emptied", "seat": 0, "bonus": 15} in events
    assert after.winner == 0 and after.scores[0] == 105
    assert GAME.result(after) is not None
    # The same top-up from a deck that was dealt short scores nothing and the game goes on.
    after, events = act(replace(state, short_decks=(0,)), END, seat=1)
    assert {"type": "deck_emptied", "seat": 0, "bonus": 0} in events
    assert after.winner is None and after.scores[0] == 90
    assert len(after.hands[0]) == 6 and after.step is Step.A

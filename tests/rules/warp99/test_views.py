"""What each seat sees: its own hand, everything public, and no hidden card or deck order."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from rules.codec import is_wire_clean, pack, unpack
from rules.warp99 import GAME
from rules.warp99.cards import COLOURS, VALUES, card, label
from rules.warp99.rulecards import RULE_CARDS
from rules.warp99.state import State, Step
from tests.rules.conformance import play_random_game
from tests.rules.warp99.helpers import HARNESS, cards, permute_hidden, position


def shown(view: dict[str, Any]) -> list[int]:
    """Every card a view shows (docs/rules/warp99.md, "The view on the wire"): its hand, the
    rows and the pile tops, each a card id."""
    rows = [c for row in view["rows"] for c in row]
    return [*(view["hand"] or []), *rows, *(p["top"] for p in view["piles"])]


def test_a_seat_sees_its_own_hand_and_only_the_size_of_others() -> None:
    state = position(hand=["red 4", "blue 2"], seats=3)
    mine = GAME.view(state, 0)
    theirs = GAME.view(state, 1)
    assert mine["hand"] == list(state.hands[0])
    assert theirs["hand"] == list(state.hands[1])
    assert mine["hand_sizes"] == [2, 6, 6]
    assert not set(shown(mine)) & {*state.hands[1], *state.hands[2]}


def test_a_spectator_sees_no_hand() -> None:
    view = GAME.view(position(hand=["red 4"]), None)
    assert view["hand"] is None
    assert view["legal"] == []


def test_everyone_sees_rows_scores_sizes_pile_tops_and_rule_sides() -> None:
    state = position(
        hand=["red 4"],
        row=["blue 1", "green 2"],
        tops=("tan 6", "pink 3"),
        sides=(2, 1, 2),
        step=Step.B,
        flip_used=True,
        played_to_pile=True,
    )
    view = GAME.view(state, 1)
    assert view["rows"] == [list(cards("blue 1", "green 2")), []]
    assert view["scores"] == [0, 1]
    assert view["deck_sizes"] == [len(d) for d in state.decks]
    tops = [card("tan", 6), card("pink", 3)]
    assert view["piles"] == [{"top": tops[0], "size": 1}, {"top": tops[1], "size": 1}]
    assert view["reserve_size"] == len(state.reserve)
    assert view["scored_size"] == len(state.scored)
    # The face-up rule of each rule card: sides 2, 1, 2.
    assert view["rules"] == ["same_number", "plus_one", "double_or_half"]
    assert (view["turn"], view["step"], view["flip_used"], view["played_to_pile"]) == (
        0,
        "B",
        True,
        True,
    )
    assert view["to_act"] == [0]
    assert view["target"] == 99


def test_every_shown_card_is_its_id_colour_times_11_plus_value() -> None:
    """R1: a shown card is one number, from which its colour (name and symbol) and value follow."""
    view = GAME.view(position(hand=["light_blue 4"], row=["tan 1"], tops=("red 7", "gray 10")), 0)
    named = [f"{COLOURS[c // VALUES].key} {c % VALUES}" for c in shown(view)]
    assert named == ["light_blue 4", "tan 1", "red 7", "gray 10"]
    assert [label(c) for c in shown(view)] == ["Light blue 4", "Tan 1", "Red 7", "Gray 10"]
    assert shown(view)[0] == 4 * 11 + 4


def test_the_view_has_exactly_the_documented_keys() -> None:
    assert set(GAME.view(position(hand=["red 4"]), 0)) == {
        # Common to every game (rules/contract.py).
        *("game", "seat", "to_act", "legal", "over", "result"),
        *("target", "turn", "step", "flip_used", "played_to_pile", "rules", "piles"),
        *("reserve_size", "scored_size", "rows", "scores", "hand_sizes", "deck_sizes"),
        *("deck_full", "winner", "hand"),
    }


def _check_decodes(state: State, view: dict[str, Any], seat: int | None) -> None:
    """The compact view, decoded, is the table as the state holds it."""
    assert view["hand"] == (None if seat is None else list(state.hands[seat]))
    assert view["rows"] == [list(r) for r in state.rows]
    assert view["scores"] == list(state.scores)
    assert view["hand_sizes"] == [len(h) for h in state.hands]
    assert view["deck_sizes"] == [len(d) for d in state.decks]
    assert view["deck_full"] == [
        bool(d) and s not in state.short_decks for s, d in enumerate(state.decks)
    ]
    assert view["piles"] == [{"top": p[-1], "size": len(p)} for p in state.piles]
    # Each rule key names its card's side: the side is where the key is on that card.
    sides = [RULE_CARDS[i].index(rule) + 1 for i, rule in enumerate(view["rules"])]
    assert tuple(sides) == tuple(state.sides)
    assert (view["turn"], view["step"], view["winner"]) == (
        state.turn,
        state.step.value,
        state.winner,
    )


@pytest.mark.parametrize("seats", [2, 6])
def test_every_view_of_a_random_game_decodes_back_to_the_table(seats: int) -> None:
    _, log = play_random_game(HARNESS, seats, seats, check=False)
    state = GAME.new_game(seats, None, seats)
    for seat, action in log:
        for viewer in (*range(seats), None):
            _check_decodes(state, unpack(pack(GAME.view(state, viewer))), viewer)
        state, _ = GAME.apply(state, seat, action)
    _check_decodes(state, unpack(pack(GAME.view(state, None))), None)


def test_the_view_lists_the_legal_actions_including_end_step() -> None:
    state = position(hand=["red 4"], tops=("red 7", "blue 2"), step=Step.B)
    assert GAME.view(state, 0)["legal"] == [
        {"type": "play_to_pile", "card": card("red", 4), "pile": 0},
        {"type": "end_step"},
    ]
    assert GAME.view(state, 1)["legal"] == []


def test_no_view_shows_the_order_or_identity_of_a_deck() -> None:
    state = position(hand=["red 4"], deck=["gray 0", "gray 1", "gray 2"])
    reordered = replace(state, decks=(cards("gray 2", "gray 0", "gray 1"), *state.decks[1:]))
    for seat in (0, 1, None):
        assert GAME.view(reordered, seat) == GAME.view(state, seat)


def test_views_hide_everything_hidden_all_game_long() -> None:
    # Checked after every action of a whole random game (the conformance leak check, plus
    # every seat and the spectator at every step).
    rnd = random.Random(3)
    state, log = play_random_game(HARNESS, 4, 3, check=False)
    state = GAME.new_game(4, None, 3)
    for seat, action in log:
        for viewer in (0, 1, 2, 3, None):
            assert GAME.view(permute_hidden(state, viewer, rnd), viewer) == GAME.view(state, viewer)
        state, _ = GAME.apply(state, seat, action)


def test_views_are_wire_clean_and_legal_view_matches_legal_actions() -> None:
    state, log = play_random_game(HARNESS, 3, 8, check=False)
    state = GAME.new_game(3, None, 8)
    for seat, action in log:
        view = GAME.view(state, seat)
        assert is_wire_clean(view)
        assert view["legal"] == [GAME.dump_action(a) for a in GAME.legal_actions(state, seat)]
        state, _ = GAME.apply(state, seat, action)


def test_events_name_only_cards_that_everyone_can_see() -> None:
    # A card in an event is one just played face up or a row that was on the table.
    state, log = play_random_game(HARNESS, 4, 21, check=False)
    state = GAME.new_game(4, None, 21)
    seen = set()
    for seat, action in log:
        before = state
        state, events = GAME.apply(state, seat, action)
        for event in events:
            seen.add(event["type"])
            if event["type"] == "pile_card":
                assert state.piles[event["pile"]][-1] == event["card"]
            elif event["type"] == "row_card":
                assert state.rows[seat][-1] == event["card"]
            elif event["type"] == "row_scored":
                assert event["cards"] == list(before.rows[seat])
            else:
                assert "card" not in event and "cards" not in event, event
    assert {"pile_card", "row_card", "row_scored", "drew", "deck_emptied"} <= seen


#: Every event type the game emits, with exactly the keys it may carry. A new key (card ids in
#: ``new_deck``, say) must be added here deliberately, after checking it hides nothing.
EVENT_KEYS = {
    "row_card": {"type", "seat", "card"},
    "row_scored": {"type", "seat", "cards"},
    "scored": {"type", "seat", "points", "reason", "score"},
    "game_won": {"type", "seat", "score"},
    "pile_card": {"type", "seat", "card", "pile", "rules", "bonus"},
    "drew": {"type", "seat", "count", "why"},
    "hand_emptied": {"type", "seat"},
    "rule_flipped": {"type", "seat", "rule", "side", "now", "name"},
    "step_ended": {"type", "seat", "step"},
    # R11: the points the emptied deck scored (15 or 0), and whether a new deck is a full 15.
    "deck_emptied": {"type", "seat", "bonus"},
    "new_deck": {"type", "seat", "size", "full"},
    "reserve_rebuilt": {"type", "size"},
    "turn_started": {"type", "seat"},
}


def test_every_event_carries_exactly_its_allowed_keys_all_game_long() -> None:
    seen = set()
    # Between them these games emit every event type (six seats rebuild the reserve, too).
    for seats, seed in ((6, 1), (2, 5)):
        _, log = play_random_game(HARNESS, seats, seed, check=False)
        state = GAME.new_game(seats, None, seed)
        for seat, action in log:
            state, events = GAME.apply(state, seat, action)
            for event in events:
                seen.add(event["type"])
                assert set(event) == EVENT_KEYS[event["type"]], event
    assert seen == set(EVENT_KEYS)


# -- the open view (docs/rules/warp99.md, "The open view") -------------------------------------


def test_the_open_view_carries_every_hand_as_in_the_state() -> None:
    state = position(hand=["red 4", "blue 2"], seats=3)
    view = GAME.open_view(state)
    assert view["hands"] == [list(hand) for hand in state.hands]
    assert view["hands"][0] == sorted(cards("red 4", "blue 2"))
    assert view["hand"] is None, "as for the spectator: no seat's own hand"


def test_the_open_view_is_the_spectator_view_plus_every_hand() -> None:
    state = position(hand=["red 4"], seats=3)
    view = GAME.open_view(state)
    assert (view["open"], view["seat"], view["legal"]) == (True, None, [])
    rest = {k: v for k, v in view.items() if k not in ("hands", "open")}
    assert rest == GAME.view(state, None)


def test_the_open_view_shows_no_deck_reserve_or_scored_card() -> None:
    # Chosen on the rules page: only what a seat holds is filled in; the rest stays counted.
    state = position(hand=["red 4"], deck=["gray 0", "gray 1", "gray 2"])
    reordered = replace(
        state,
        decks=(cards("gray 2", "gray 0", "gray 1"), *state.decks[1:]),
        reserve=tuple(reversed(state.reserve)),
    )
    assert GAME.open_view(reordered) == GAME.open_view(state)


def test_every_open_view_of_a_random_game_shows_each_hand_its_seat_sees() -> None:
    _, log = play_random_game(HARNESS, 4, 5, check=False)
    state = GAME.new_game(4, None, 5)
    for seat, action in [*log, (None, None)]:
        view = unpack(pack(GAME.open_view(state)))
        assert is_wire_clean(view)
        assert view["hands"] == [GAME.view(state, s)["hand"] for s in range(4)]
        assert view["hands"] == [list(hand) for hand in state.hands]
        if seat is not None:
            state, _ = GAME.apply(state, seat, action)

"""What each seat sees: its own hand, the others' sizes, the floor, and the compact legal form."""

import random

from rules.codec import is_wire_clean, pack, unpack
from rules.floor import GAME
from rules.floor.cards import DECK_SIZE
from rules.floor.state import Phase
from tests.rules.floor.helpers import (
    CIRCLE,
    SQUARE,
    STAR,
    TRIANGLE,
    act,
    add,
    freeze,
    num,
    position,
    power,
    sub,
    swap,
    take2,
)

KEYS = {
    "phase",
    "turn",
    "direction",
    "hand",
    "hand_sizes",
    "floor",
    "top",
    "pending",
    "opener_grabbable",
    "draw_size",
    "discard_size",
    "passes",
    # common keys added by the contract
    "game",
    "seat",
    "to_act",
    "legal",
    "over",
    "result",
}


def test_view_shows_own_hand_others_sizes_and_the_table() -> None:
    state = position(
        [[num(CIRCLE, 5), add()], [num(STAR, 1)], [num(STAR, 2), num(STAR, 3), swap()]],
        shape=CIRCLE,
        number=3,
        discard=[num(SQUARE, 1), num(CIRCLE, 3)],
        turn=1,
        direction=-1,
    )
    view = GAME.view(state, 0)
    assert set(view) == KEYS
    # A card is its id (docs/rules/floor.md, "The cards").
    assert view["hand"] == [num(CIRCLE, 5), add()]
    assert view["hand_sizes"] == [2, 1, 3]
    assert view["floor"] == {"shape": "circle", "number": 3}
    assert view["top"] == num(CIRCLE, 3)
    assert (view["turn"], view["direction"], view["to_act"]) == (1, -1, [1])
    assert view["draw_size"] == len(state.draw)
    assert view["discard_size"] == 2
    assert view["pending"] is None
    assert view["legal"] == [], "not this seat's turn"
    assert is_wire_clean(view)


def test_every_view_of_a_random_game_decodes_back_to_the_table() -> None:
    """Hand and top card as ids: they name exactly the cards the state holds there."""
    rnd = random.Random(4)
    state = GAME.new_game(8, None, 4)
    while GAME.result(state) is None:
        for viewer in (*range(8), None):
            view = unpack(pack(GAME.view(state, viewer)))
            hand = None if viewer is None else list(state.hands[viewer])
            assert view["hand"] == hand
            assert view["top"] == (state.discard[-1] if state.discard else None)
            assert view["hand_sizes"] == [len(h) for h in state.hands]
            assert all(type(c) is int and 0 <= c < DECK_SIZE for c in view["hand"] or [])
        seat = min(GAME.to_act(state))
        state, _ = GAME.apply(state, seat, rnd.choice(GAME.legal_actions(state, seat)))


def test_spectators_see_no_hand() -> None:
    state = position([[num(CIRCLE, 5)], [num(STAR, 1)]], shape=CIRCLE)
    view = GAME.view(state, None)
    assert view["hand"] is None and view["legal"] == []
    assert view["hand_sizes"] == [1, 1]


def test_open_floor_parts_are_none() -> None:
    state = position([[num(CIRCLE, 5)], [num(STAR, 1)]], shape=STAR)
    assert GAME.view(state, 0)["floor"] == {"shape": "star", "number": None}
    state = position([[num(CIRCLE, 5)], [num(STAR, 1)]], discard=[power()], opening=True)
    view = GAME.view(state, 0)
    assert view["floor"] == {"shape": None, "number": None}
    assert view["opener_grabbable"] is True
    assert {"type": "grab", "card": power()} in view["legal"]
    after, _ = act(state, 0, {"type": "grab"})
    assert GAME.view(after, 1)["top"] is None


def test_pending_freeze_take_and_charged_swap_say_who_must_answer() -> None:
    hands = [[num(CIRCLE, 5)], [num(STAR, 1), num(STAR, 2)], [num(STAR, 3)]]
    frozen = position(hands, shape=CIRCLE, phase=Phase.FREEZE, turn=1, by=0)
    assert GAME.view(frozen, 2)["pending"] == {"kind": "freeze", "seat": 1, "by": 0}
    taking = position(hands, shape=CIRCLE, phase=Phase.TAKE, turn=2, by=1, stack=3)
    assert GAME.view(taking, 0)["pending"] == {"kind": "take", "seat": 2, "by": 1, "stack": 3}
    charged = position(hands, shape=CIRCLE, phase=Phase.CHARGED, turn=1, by=0)
    assert GAME.view(charged, 0)["pending"] == {"kind": "charged_swap", "seat": 1, "by": 0}
    assert GAME.view(charged, 1)["legal"] == [{"type": "reverse_back"}, {"type": "let_stand"}]


def test_compact_legal_form_of_an_open_turn() -> None:
    hand = [
        num(CIRCLE, 5),
        num(STAR, 2),
        num(TRIANGLE, 1),
        add(),
        sub(),
        freeze(CIRCLE),
        take2(STAR),
        swap(),
        power(),
    ]
    state = position([hand, [num(STAR, 1)]], shape=CIRCLE, number=3)
    legal = GAME.view(state, 0)["legal"]
    assert legal == [
        {"type": "draw", "count": 1},
        {
            "type": "number",
            "plays": [
                {"cards": [num(CIRCLE, 5)], "shapes": ["circle"]},
                {"cards": [num(TRIANGLE, 1), num(STAR, 2)], "shapes": ["triangle", "star"]},
            ],
        },
        {
            "type": "operation",
            "floor": 3,
            "choices": [
                {
                    "op": "add",
                    "cards": [add()],
                    "operands": [
                        {"card": num(CIRCLE, 5), "shape": "circle", "result": 8},
                        {"card": num(TRIANGLE, 1), "shape": "triangle", "result": 4},
                        {"card": num(STAR, 2), "shape": "star", "result": 5},
                    ],
                },
                {
                    "op": "subtract",
                    "cards": [sub()],
                    "operands": [
                        {"card": num(CIRCLE, 5), "shape": "circle", "result": 8},
                        {"card": num(TRIANGLE, 1), "shape": "triangle", "result": 2},
                        {"card": num(STAR, 2), "shape": "star", "result": 1},
                    ],
                },
            ],
            "riders": {
                "1": [{"cards": [num(TRIANGLE, 1)], "shapes": ["triangle"]}],
                "2": [{"cards": [num(STAR, 2)], "shapes": ["star"]}],
                "4": [],
                "5": [{"cards": [num(CIRCLE, 5)], "shapes": ["circle"]}],
                "8": [],
            },
        },
        {"type": "freeze", "cards": [freeze(CIRCLE)]},
        {"type": "swap", "cards": [swap()]},
        {"type": "power", "cards": [power()], "shapes": ["circle", "triangle", "square", "star"]},
    ]
    assert is_wire_clean(legal)


def test_compact_legal_form_under_a_freeze() -> None:
    hand = [freeze(SQUARE), add(), add(1), num(CIRCLE, 1)]
    state = position(
        [[num(STAR, 1)], hand], shape=CIRCLE, number=3, phase=Phase.FREEZE, turn=1, by=0
    )
    assert GAME.view(state, 1)["legal"] == [
        {"type": "draw", "count": 1},
        {"type": "freeze", "cards": [freeze(SQUARE)]},
        {"type": "discard_operations", "sets": [[add(), add(1)]]},
    ]


# -- the open view (docs/rules/floor.md, "The open view") --------------------------------------


def test_the_open_view_carries_every_hand_as_in_the_state() -> None:
    state = position(
        [[num(CIRCLE, 5), add()], [num(STAR, 1)], [num(STAR, 2), num(STAR, 3), swap()]],
        shape=CIRCLE,
    )
    view = GAME.open_view(state)
    assert view["hands"] == [
        sorted([num(CIRCLE, 5), add()]),
        [num(STAR, 1)],
        sorted([num(STAR, 2), num(STAR, 3), swap()]),
    ]
    assert view["hand"] is None, "as for the spectator: no seat's own hand"


def test_the_open_view_is_the_spectator_view_plus_every_hand() -> None:
    state = position([[num(CIRCLE, 5)], [num(STAR, 1)]], shape=CIRCLE)
    view = GAME.open_view(state)
    assert set(view) == {*KEYS, "hands", "open"}
    assert (view["open"], view["seat"], view["legal"]) == (True, None, [])
    rest = {k: v for k, v in view.items() if k not in ("hands", "open")}
    assert rest == GAME.view(state, None)


def test_the_open_view_shows_no_pile_order() -> None:
    # Chosen on the rules page: only what a seat holds is filled in; the piles stay counted.
    hands = [[num(CIRCLE, 5)], [num(STAR, 1)]]
    draw = [num(SQUARE, 1), num(SQUARE, 2), num(SQUARE, 3)]
    state = position(hands, draw=draw, discard=[num(CIRCLE, 3)])
    reordered = position(hands, draw=draw[::-1], discard=[num(CIRCLE, 3)])
    assert GAME.open_view(reordered) == GAME.open_view(state)


def test_every_open_view_of_a_random_game_shows_each_hand_its_seat_sees() -> None:
    rnd = random.Random(6)
    state = GAME.new_game(5, None, 6)
    while True:
        view = unpack(pack(GAME.open_view(state)))
        assert is_wire_clean(view)
        assert view["hands"] == [GAME.view(state, s)["hand"] for s in range(5)]
        assert view["hands"] == [list(hand) for hand in state.hands]
        if GAME.result(state) is not None:
            return
        seat = min(GAME.to_act(state))
        state, _ = GAME.apply(state, seat, rnd.choice(GAME.legal_actions(state, seat)))

"""Rulings 1 and 2 and the opener (ruling 3): the deck, the deal, and how the first card acts."""

from collections import Counter

from rules.errors import IllegalAction
from rules.floor import GAME
from rules.floor.cards import CARDS, DECK, Kind, Op, Shape
from rules.floor.game import deal
from rules.floor.state import Phase
from tests.rules.floor.helpers import (
    CIRCLE,
    STAR,
    TRIANGLE,
    act,
    add,
    freeze,
    num,
    position,
    power,
    refused,
    swap,
    take2,
)


def _seed_with_opener(kind: Kind, seats: int = 4) -> int:
    """The first seed whose opener is a card of ``kind`` (so setup itself is under test)."""
    for seed in range(10_000):
        if CARDS[deal(seats, seed).discard[-1]].kind is kind:
            return seed
    raise AssertionError(f"no seed gives a {kind} opener")


def test_ruling_1_deck_has_112_cards_in_four_shapes() -> None:
    """R1: the 112 cards, by kind, shape and value."""
    assert len(DECK) == len(CARDS) == 112
    kinds = Counter(c.kind for c in CARDS)
    assert kinds == {
        Kind.NUMBER: 80,
        Kind.OPERATION: 12,
        Kind.FREEZE: 4,
        Kind.TAKE: 8,
        Kind.SWAP: 4,
        Kind.POWER: 4,
    }
    numbers = Counter((c.shape, c.value) for c in CARDS if c.kind is Kind.NUMBER)
    assert numbers == {(s, v): 2 for s in Shape for v in range(10)}
    assert Counter(c.op for c in CARDS if c.kind is Kind.OPERATION) == {op: 4 for op in Op}
    assert Counter(c.shape for c in CARDS if c.kind is Kind.FREEZE) == {s: 1 for s in Shape}
    takes = Counter((c.shape, c.value) for c in CARDS if c.kind is Kind.TAKE)
    assert takes == {(s, v): 1 for s in Shape for v in (1, 2)}
    unshaped = (Kind.OPERATION, Kind.SWAP, Kind.POWER)
    assert all(c.shape is None for c in CARDS if c.kind in unshaped)


def test_ruling_2_hands_of_seven_and_one_opener_turned_up() -> None:
    """R2: hands of 7 and one opener turned up."""
    for seats in range(2, 9):
        state = GAME.new_game(seats, None, seed=seats)
        assert [len(h) for h in state.hands] == [7] * seats
        assert len(state.discard) == 1
        assert len(state.draw) == 112 - 7 * seats - 1
        assert state.turn == 0 and state.direction == 1 and state.phase is Phase.PLAY


def test_ruling_2_deal_depends_on_the_seed() -> None:
    """R2: the deal is the seed's."""
    assert deal(4, 1).hands != deal(4, 2).hands
    assert deal(4, 1) == deal(4, 1)


def test_ruling_3_number_opener_sets_shape_and_number() -> None:
    """R3: a Number opener sets shape and number."""
    state = deal(4, _seed_with_opener(Kind.NUMBER))
    opener = CARDS[state.discard[-1]]
    assert (state.floor_shape, state.floor_number) == (opener.shape, opener.value)
    assert {"type": "grab"} not in [GAME.dump_action(a) for a in GAME.legal_actions(state, 0)]


def test_ruling_3_freeze_or_take_opener_sets_shape_only_and_hits_nobody() -> None:
    """R3: a Freeze or Take opener sets only the shape and hits nobody."""
    for kind in (Kind.FREEZE, Kind.TAKE):
        state = deal(4, _seed_with_opener(kind))
        opener = CARDS[state.discard[-1]]
        assert state.floor_shape is opener.shape
        assert state.floor_number is None
        assert state.phase is Phase.PLAY and state.stack == 0
        assert GAME.to_act(state) == {0}


def test_ruling_3_operation_power_or_swap_opener_leaves_the_floor_open() -> None:
    """R3: an Operation, Power or Swap opener leaves the floor open."""
    for kind in (Kind.OPERATION, Kind.POWER, Kind.SWAP):
        state = deal(4, _seed_with_opener(kind))
        assert state.floor_shape is None and state.floor_number is None
        grab = {"type": "grab"} in [GAME.dump_action(a) for a in GAME.legal_actions(state, 0)]
        assert grab is (kind is not Kind.OPERATION)


def test_ruling_3_power_or_swap_opener_can_be_grabbed_as_the_whole_first_action() -> None:
    """R3: a Power or Swap opener may be grabbed, as the whole first action."""
    for opener in (power(), swap()):
        state = position([[num(CIRCLE, 1)], [num(STAR, 2)]], discard=[opener], opening=True)
        after, events = act(state, 0, {"type": "grab"})
        assert opener in after.hands[0]
        assert after.discard == ()
        assert after.turn == 1, "grabbing is the whole action: the turn passes"
        assert after.floor_shape is None and after.floor_number is None
        assert events[0] == {"type": "grabbed", "seat": 0, "card": opener}


def test_ruling_3_grab_is_offered_only_as_the_first_action() -> None:
    """R3: only as the first action."""
    state = GAME.new_game(2, None, _seed_with_opener(Kind.POWER, seats=2))
    assert {"type": "grab"} in [GAME.dump_action(a) for a in GAME.legal_actions(state, 0)]
    after, _ = act(state, 0, {"type": "draw"})
    assert not after.opening
    refused(after, 1, {"type": "grab"}, IllegalAction, "first action")


def test_ruling_3_not_grabbed_power_leaves_floor_open_for_any_first_card() -> None:
    """R3: not grabbed, the floor stays open; the first Number sets it."""
    state = position(
        [[num(TRIANGLE, 4), num(CIRCLE, 1)], [num(STAR, 2)]], discard=[power()], opening=True
    )
    after, _ = act(state, 0, {"type": "number", "cards": [num(TRIANGLE, 4)]})
    assert (after.floor_shape, after.floor_number) == (TRIANGLE, 4)
    assert not after.opening


def test_not_allowed_grab_take_or_freeze_openers() -> None:
    """R3: a Freeze or Take opener cannot be grabbed."""
    for opener in (take2(STAR), freeze(CIRCLE)):
        state = position(
            [[num(STAR, 1), num(CIRCLE, 1)], [num(STAR, 2)]], discard=[opener], opening=True
        )
        refused(state, 0, {"type": "grab"}, IllegalAction, "cannot be grabbed", "Power or a Swap")


def test_ruling_3_operation_opener_cannot_be_grabbed() -> None:
    """R3: an Operation opener cannot be grabbed."""
    state = position(
        [[num(STAR, 1), num(CIRCLE, 1)], [num(STAR, 2)]], discard=[add()], opening=True
    )
    refused(state, 0, {"type": "grab"}, IllegalAction, "Add opener cannot be grabbed")


def test_ruling_3_open_floor_matches_anything_and_first_number_sets_it() -> None:
    """R3: an open floor matches anything; the first Number sets it."""
    state = position([[num(STAR, 6), num(CIRCLE, 1)], [num(STAR, 2)]], discard=[add()])
    actions = [GAME.dump_action(a) for a in GAME.legal_actions(state, 0)]
    assert {"type": "number", "cards": [num(STAR, 6)], "shape": "star"} in actions
    assert {"type": "number", "cards": [num(CIRCLE, 1)], "shape": "circle"} in actions
    after, _ = act(state, 0, {"type": "number", "cards": [num(STAR, 6)]})
    assert (after.floor_shape, after.floor_number) == (STAR, 6)

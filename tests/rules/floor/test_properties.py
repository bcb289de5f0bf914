"""Random-playout properties: conformance over 2..8 seats, the compact legal form, and the
promise that ``apply`` accepts exactly the actions ``legal_actions`` lists."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import InvalidAction, RulesError
from rules.floor import GAME
from rules.floor.cards import CARDS, SHAPES, Kind
from rules.floor.state import Phase, State
from rules.rng import Rng
from tests.rules.conformance import (
    check_ends_near_the_move_bound,
    check_state,
    play_random_game,
    replay,
)
from tests.rules.floor.client import expand_legal, pick_from_legal
from tests.rules.floor.helpers import HARNESS, cards

SEATS = st.integers(min_value=2, max_value=8)
SEEDS = st.integers(min_value=0, max_value=2**32)


def _key(action: dict[str, Any]) -> str:
    return json.dumps(action, sort_keys=True)


@pytest.mark.slow
@settings(max_examples=60)
@given(seats=SEATS, seed=SEEDS)
def test_random_games_conform(seats: int, seed: int) -> None:
    state, log = play_random_game(HARNESS, seats, seed)
    assert GAME.result(state) is not None
    assert replay(GAME, seats, seed, log) == state


def _walk(seats: int, seed: int, draw_bias: float = 0.0, limit: int = 20_000) -> list[State]:
    """A random game played through the compact form; returns every state on the way."""
    rnd = random.Random(seed)
    state = GAME.new_game(seats, None, seed)
    states = [state]
    for _ in range(limit):
        if GAME.result(state) is not None:
            return states
        seat = state.turn
        action = pick_from_legal(GAME.view(state, seat)["legal"], rnd, draw_bias)
        state, _ = GAME.apply(state, seat, action)
        states.append(state)
    raise AssertionError("game did not end")


@settings(max_examples=30)
@given(seats=SEATS, seed=SEEDS)
def test_compact_legal_form_says_exactly_what_legal_actions_says(seats: int, seed: int) -> None:
    for state in _walk(seats, seed)[::3]:
        for seat in range(seats):
            view = GAME.view(state, seat)
            full = sorted(_key(GAME.dump_action(a)) for a in GAME.legal_actions(state, seat))
            assert sorted(_key(a) for a in expand_legal(view["legal"])) == full


def _mutate(action: dict[str, Any], hand: list[int], rnd: random.Random) -> dict[str, Any]:
    """A legal action with one thing changed (which may or may not keep it legal)."""
    action = dict(action)
    field = rnd.choice([k for k in action if k != "type"] or ["type"])
    value = action.get(field)
    if field == "shape":
        action[field] = rnd.choice([*(s.value for s in SHAPES), None])
    elif isinstance(value, list):
        items = list(value)
        if items and rnd.random() < 0.5:
            items.pop(rnd.randrange(len(items)))
        else:
            items.append(rnd.choice(hand))
        action[field] = items
    elif isinstance(value, int):
        action[field] = rnd.choice(hand)
    return action


def _candidate(
    state: State, seat: int, rnd: random.Random, legal: list[dict[str, Any]]
) -> dict[str, Any]:
    """A random action, mostly naming cards from the hand, legal or not."""
    hand = list(state.hands[seat])
    if rnd.random() < 0.3:
        action = rnd.choice(legal)
        return action if rnd.random() < 0.3 else _mutate(action, hand, rnd)

    def card() -> int:
        return rnd.choice(hand) if hand and rnd.random() < 0.9 else rnd.randrange(112)

    def cards(low: int, high: int) -> list[int]:
        return [card() for _ in range(rnd.randint(low, high))]

    def shape() -> str | None:
        return rnd.choice([*(s.value for s in SHAPES), None])

    kind = rnd.choice(
        [
            *("draw", "pass", "grab", "reverse_back", "let_stand", "number", "number", "number"),
            *("operation", "operation", "freeze", "take", "swap", "burn", "power"),
            "discard_operations",
        ]
    )
    if kind == "number":
        return {"type": kind, "cards": cards(1, 4), "shape": shape()}
    if kind == "operation":
        ops = [c for c in hand if CARDS[c].kind is Kind.OPERATION] or [80]
        action: dict[str, Any] = {"type": kind, "card": rnd.choice(ops), "riders": cards(0, 3)}
        action["operand"] = card() if rnd.random() < 0.95 else None
        action["shape"] = shape()
        return action
    if kind in ("freeze", "take", "swap", "burn"):
        return {"type": kind, "card": card()}
    if kind == "power":
        return {"type": kind, "card": card(), "shape": shape()}
    if kind == "discard_operations":
        ops = [c for c in hand if CARDS[c].kind is Kind.OPERATION] or [80, 84]
        return {"type": kind, "cards": [rnd.choice(ops) for _ in range(rnd.randint(2, 3))]}
    return {"type": kind}


def _canonical(raw: dict[str, Any]) -> dict[str, Any] | None:
    """How ``legal_actions`` would spell the action (None if it is malformed)."""
    try:
        action = GAME.dump_action(GAME.parse_action(raw))
    except InvalidAction:
        return None
    if action["type"] in ("number", "operation") and action["shape"] is None:
        played = action.get("cards") or [action["operand"], *action["riders"]]
        shapes = {CARDS[c].shape for c in played if c is not None}
        if len(shapes) == 1 and None not in shapes:
            action["shape"] = shapes.pop().value  # type: ignore[union-attr]
    return action


@settings(max_examples=30)
@given(seats=SEATS, seed=SEEDS)
def test_apply_accepts_exactly_the_legal_actions(seats: int, seed: int) -> None:
    rnd = random.Random(seed)
    tried = accepted = 0
    for state in _walk(seats, seed)[::2]:
        if GAME.result(state) is not None:
            continue
        seat = state.turn
        listed = [GAME.dump_action(a) for a in GAME.legal_actions(state, seat)]
        legal = {_key(a) for a in listed}
        for _ in range(25):
            raw = _candidate(state, seat, rnd, listed)
            canonical = _canonical(raw)
            try:
                GAME.apply(state, seat, raw)
            except RulesError as error:
                assert canonical is None or _key(canonical) not in legal, (raw, error)
                assert error.message and error.message[0].isupper(), error.message
            else:
                assert canonical is not None and _key(canonical) in legal, raw
                accepted += 1
            tried += 1
    assert 0 < accepted < tried


def test_apply_accepts_every_listed_action_spelled_loosely() -> None:
    """Shapes may be left out when the played cards share one; cards may come in any order."""
    checked = 0
    for seed in range(6):
        for state in _walk(4, seed):
            if GAME.result(state) is not None:
                break
            for action in GAME.legal_actions(state, state.turn):
                raw = GAME.dump_action(action)
                if raw["type"] == "operation":
                    played = [raw["operand"], *raw["riders"]]
                    loose = {**raw, "riders": raw["riders"][::-1]}
                elif raw["type"] == "number":
                    played = raw["cards"]
                    loose = {**raw, "cards": raw["cards"][::-1]}
                else:
                    continue
                if len({CARDS[c].shape for c in played}) == 1:
                    del loose["shape"]
                assert GAME.apply(state, state.turn, loose) == GAME.apply(state, state.turn, raw)
                checked += 1
    assert checked > 100


def _dry_table(seats: int, rnd: random.Random) -> State:
    """A late-game table: a few cards in hands, nothing left to draw, a random floor."""
    deck = list(range(112))
    rnd.shuffle(deck)
    held = deck[: rnd.randint(seats, 3 * seats)]
    top = deck[len(held)]
    return State(
        seats=seats,
        rng=Rng.from_seed(rnd.randrange(2**32)),
        phase=Phase.PLAY,
        hands=tuple(tuple(sorted(held[s::seats])) for s in range(seats)),
        draw=(),
        discard=(top,),
        floor_shape=rnd.choice([*SHAPES, None]),
        floor_number=rnd.choice([*range(10), None]),
        turn=rnd.randrange(seats),
        direction=rnd.choice((1, -1)),
        stack=0,
        by=None,
        opening=False,
        passes=0,
        outcome=None,
    )


@settings(max_examples=100)
@given(seats=SEATS, seed=SEEDS)
def test_every_game_from_a_dry_table_ends(seats: int, seed: int) -> None:
    """With little left to play, random games end by a win or by the stalemate rule, and every
    step keeps the conformance invariants (with this table's cards as the whole deck)."""
    rnd = random.Random(seed)
    state = _dry_table(seats, rnd)
    held = cards(state)
    harness = replace(HARNESS, deck=lambda _state: held)
    for _ in range(2_000):
        check_state(harness, state, rnd)
        if GAME.result(state) is not None:
            return
        state, _ = GAME.apply(state, state.turn, rnd.choice(GAME.legal_actions(state, state.turn)))
    raise AssertionError("game did not end")


def test_dry_tables_do_reach_the_stalemate_ending() -> None:
    reasons = []
    for seed in range(40):
        rnd = random.Random(seed)
        state = _dry_table(2 + seed % 7, rnd)
        while GAME.result(state) is None:
            action = rnd.choice(GAME.legal_actions(state, state.turn))
            state, _ = GAME.apply(state, state.turn, action)
        result = GAME.result(state)
        assert result is not None
        reasons.append(result.reason.split(":")[0])
    assert "Stalemate" in reasons
    assert any(r.endswith("emptied their hand") for r in reasons)


@settings(max_examples=20)
@given(seats=st.integers(2, 8), seed=st.integers(0, 2**32), left=st.integers(1, 60))
def test_random_games_near_the_move_bound_end_by_it_at_the_latest(
    seats: int, seed: int, left: int
) -> None:
    """Platform ruling (move bound): see ``check_ends_near_the_move_bound``."""
    check_ends_near_the_move_bound(HARNESS, seats, seed, left)

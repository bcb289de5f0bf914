"""Determinism and a golden replay: the same seed and actions give the same game, byte for byte."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rules.codec import pack
from rules.warp99 import GAME
from tests.rules.conformance import play_random_game, replay
from tests.rules.warp99.helpers import HARNESS

GOLDEN = json.loads((Path(__file__).parent / "golden_3_seats.json").read_text())
GOLDEN_LOG = [(seat, action) for seat, action in GOLDEN["actions"]]


def test_the_same_seed_deals_the_same_game_and_another_seed_another() -> None:
    assert GAME.new_game(4, None, 99) == GAME.new_game(4, None, 99)
    assert GAME.new_game(4, None, 99).hands != GAME.new_game(4, None, 100).hands


def test_the_same_seed_and_actions_give_the_same_states_events_and_views() -> None:
    runs = []
    for _ in range(2):
        state = GAME.new_game(3, None, GOLDEN["seed"])
        trace = []
        for seat, action in GOLDEN_LOG[:120]:
            state, events = GAME.apply(state, seat, action)
            trace.append(
                pack([GAME.dump_state(state), events, [GAME.view(state, s) for s in (0, 1, 2)]])
            )
        runs.append(trace)
    assert runs[0] == runs[1]


def test_a_random_playout_is_reproducible_from_its_seed() -> None:
    _, log = play_random_game(HARNESS, 3, GOLDEN["seed"], check=False)
    assert log == GOLDEN_LOG


def test_golden_replay_gives_the_recorded_final_scores_and_views() -> None:
    state = replay(GAME, GOLDEN["seats"], GOLDEN["seed"], GOLDEN_LOG)
    assert len(GOLDEN_LOG) == 341
    assert state.scores == (98, 93, 107)
    assert state.winner == 2
    assert [list(row) for row in state.rows] == [[24, 58, 7, 87], [78, 93], []]
    assert [len(deck) for deck in state.decks] == [15, 2, 11]
    views = [GAME.view(state, s) for s in (0, 1, 2, None)]
    # Canonical JSON, so the digest pins content, not the order keys were inserted in.
    digest = hashlib.sha256(json.dumps(views, sort_keys=True).encode()).hexdigest()
    assert digest == "e68085fe05a33e52cddcb5d42d3aa37d0eb4451f9ae63da7f190c509cce78a41"
    state_digest = hashlib.sha256(pack(GAME.dump_state(state))).hexdigest()
    assert state_digest == "133950d1c726e1a0045dfb787b16d372458ece2f2d61acbc8a98493433ebd5ac"

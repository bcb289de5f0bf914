"""Golden replay and determinism: a fixed seed and action log always give the same game.

``golden_3_seats.json`` holds a recorded game (seed 13, three seats, 96 actions), its result,
the final views of every seat and the spectator, and a digest of every view along the way.
A change to the rules that alters any of these fails here; if the change is intended,
regenerate with ``python -m tests.rules.floor.test_golden`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from rules.floor import GAME
from tests.rules.conformance import play_random_game, replay
from tests.rules.floor.helpers import HARNESS

GOLDEN = Path(__file__).with_name("golden_3_seats.json")
SEATS, SEED = 3, 13


def _views(state: Any) -> list[dict[str, Any]]:
    return [GAME.view(state, seat) for seat in [*range(GAME.seat_count(state)), None]]


def _record(seats: int, seed: int, log: list[list[Any]]) -> dict[str, Any]:
    """Replay ``log`` and describe everything a client could have seen along the way."""
    state = GAME.new_game(seats, None, seed)
    digest = hashlib.sha256()
    events: list[dict[str, Any]] = []
    for seat, action in log:
        state, new_events = GAME.apply(state, seat, action)
        events.extend(new_events)
        digest.update(json.dumps(_views(state), sort_keys=True).encode())
    result = GAME.result(state)
    assert result is not None
    return {
        "seats": seats,
        "seed": seed,
        "log": log,
        "result": result.to_wire(),
        "event_types": sorted({e["type"] for e in events}),
        "final_views": _views(state),
        "views_sha256": digest.hexdigest(),
    }


def test_golden_replay_gives_the_recorded_result_and_views() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert _record(golden["seats"], golden["seed"], golden["log"]) == golden


def test_golden_game_covers_the_special_cards() -> None:
    golden = json.loads(GOLDEN.read_text())
    played = {action["type"] for _, action in golden["log"]}
    assert {"operation", "freeze", "take", "swap", "reverse_back", "power"} <= played


def test_same_seed_and_actions_give_the_same_game() -> None:
    first_state, first_log = play_random_game(HARNESS, 5, seed=99, check=False)
    second_state, second_log = play_random_game(HARNESS, 5, seed=99, check=False)
    assert first_log == second_log
    assert first_state == second_state
    assert replay(GAME, 5, 99, first_log) == first_state
    assert GAME.dump_state(first_state) == GAME.dump_state(second_state)


def test_different_seeds_give_different_games() -> None:
    assert GAME.new_game(4, None, 1) != GAME.new_game(4, None, 2)


def regenerate() -> None:
    _, log = play_random_game(HARNESS, SEATS, SEED, check=False)
    record = _record(SEATS, SEED, [[seat, action] for seat, action in log])
    GOLDEN.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    regenerate()

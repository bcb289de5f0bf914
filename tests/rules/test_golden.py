"""Golden replays and determinism, the same for every game.

Each game has a recorded game, ``tests/rules/<game>/golden_<n>_seats.json``: a random legal
game (its seats, seed, options and every action) and everything a client could have seen of
it: a digest of every event and of every seat's and the spectator's view after every action,
the final views, the result, and a digest of the final state. Replaying the log must give
that file again, byte for byte. A rules change that alters any of it fails here; if the change
is intended, regenerate with ``python -m tests.rules.test_golden`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rules.codec import pack
from tests.rules.conformance import Harness, play_random_game, replay
from tests.rules.floor.helpers import HARNESS as FLOOR
from tests.rules.numberswap.helpers import HARNESS as NUMBERSWAP
from tests.rules.warp99.helpers import HARNESS as WARP99

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Golden:
    harness: Harness
    path: Path
    seats: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    #: The state field that holds the dealt cards (which another seed must change).
    dealt: str = "hands"

    @property
    def game_id(self) -> str:
        return self.harness.game.id


GOLDENS = {
    g.game_id: g
    for g in (
        Golden(FLOOR, HERE / "floor" / "golden_3_seats.json", seats=3, seed=13),
        # A higher target than the default makes the random game last several rounds.
        Golden(
            NUMBERSWAP,
            HERE / "numberswap" / "golden_5_seats.json",
            seats=5,
            seed=20261129,
            options={"target_score": 300},
            dealt="grids",
        ),
        Golden(WARP99, HERE / "warp99" / "golden_3_seats.json", seats=3, seed=2024),
    )
}
games = pytest.mark.parametrize("golden", list(GOLDENS.values()), ids=list(GOLDENS))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canonical(obj: Any) -> bytes:
    """JSON with sorted keys: digests of it pin content, not the order keys were made in."""
    return json.dumps(obj, sort_keys=True).encode()


def _record(golden: Golden, log: list[list[Any]]) -> dict[str, Any]:
    """Replay ``log`` and describe everything a client could have seen along the way."""
    game = golden.harness.game
    state = game.new_game(golden.seats, golden.options, golden.seed)
    viewers = [*range(golden.seats), None]
    views = hashlib.sha256()
    events = hashlib.sha256()
    event_types: set[str] = set()
    for seat, action in log:
        state, new_events = game.apply(state, seat, action)
        event_types.update(e["type"] for e in new_events)
        events.update(_canonical(new_events))
        views.update(_canonical(game.views(state, viewers)))
    result = game.result(state)
    assert result is not None, "a golden game is played to the end"
    return {
        "game": game.id,
        "seats": golden.seats,
        "seed": golden.seed,
        "options": golden.options,
        "result": result.to_wire(),
        "event_types": sorted(event_types),
        "events_sha256": events.hexdigest(),
        "views_sha256": views.hexdigest(),
        "state_sha256": _sha256(pack(game.dump_state(state))),
        "final_views": game.views(state, viewers),
        "log": log,
    }


def _render(record: dict[str, Any]) -> str:
    """The file's text: one line per field, and one per action or view (short diffs)."""
    lines = []
    for key, value in record.items():
        if key in ("final_views", "log"):
            items = ",\n".join(f"  {json.dumps(item)}" for item in value)
            lines.append(f" {json.dumps(key)}: [\n{items}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _load(golden: Golden) -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads(golden.path.read_text())
    return recorded


@games
def test_golden_replay_gives_the_recorded_game_byte_for_byte(golden: Golden) -> None:
    recorded = _load(golden)
    record = _record(golden, recorded["log"])
    # Content first, for a readable failure; then the text, which also pins the key order of
    # the final views (what msgpack sends).
    assert record == recorded
    assert _render(record) == golden.path.read_text()


@games
def test_a_random_playout_is_reproducible_from_its_seed(golden: Golden) -> None:
    _, log = play_random_game(
        golden.harness, golden.seats, golden.seed, options=golden.options, check=False
    )
    assert [[seat, action] for seat, action in log] == _load(golden)["log"]


@games
def test_the_same_seed_deals_the_same_game_and_another_seed_another(golden: Golden) -> None:
    game = golden.harness.game
    for seed, other in ((1, 2), (99, 100)):
        assert game.new_game(4, None, seed) == game.new_game(4, None, seed)
        dealt = getattr(game.new_game(4, None, seed), golden.dealt)
        assert dealt != getattr(game.new_game(4, None, other), golden.dealt)


@games
def test_the_same_seed_and_actions_give_the_same_states_events_and_views(golden: Golden) -> None:
    game = golden.harness.game
    viewers = [*range(golden.seats), None]
    runs = []
    for _ in range(2):
        state = game.new_game(golden.seats, golden.options, golden.seed)
        trace = []
        for seat, action in _load(golden)["log"][:120]:
            state, events = game.apply(state, seat, action)
            trace.append(pack([game.dump_state(state), events, game.views(state, viewers)]))
        runs.append(trace)
    assert runs[0] == runs[1]


@games
def test_same_seed_and_random_actions_replay_to_the_same_game(golden: Golden) -> None:
    game = golden.harness.game
    first_state, first_log = play_random_game(golden.harness, 5, seed=99, check=False)
    second_state, second_log = play_random_game(golden.harness, 5, seed=99, check=False)
    assert first_log == second_log
    assert first_state == second_state
    assert replay(game, 5, 99, first_log) == first_state
    assert game.dump_state(first_state) == game.dump_state(second_state)


def _action_types(game_id: str) -> set[str]:
    return {action["type"] for _, action in _load(GOLDENS[game_id])["log"]}


def test_the_floor_golden_game_covers_the_special_cards() -> None:
    assert {"operation", "freeze", "take", "swap", "reverse_back", "power"} <= _action_types(
        "floor"
    )


def test_the_numberswap_golden_game_lasts_several_rounds() -> None:
    assert _load(GOLDENS["numberswap"])["final_views"][-1]["round"] >= 3
    assert "next_round" in _action_types("numberswap")


def test_the_warp99_golden_game_covers_every_action() -> None:
    assert _action_types("warp99") == {
        "score_row",
        "add_to_row",
        "play_to_pile",
        "flip_rule",
        "end_step",
    }


def regenerate() -> None:
    """Play each golden game again from its seed and write down what it gives now."""
    for golden in GOLDENS.values():
        _, log = play_random_game(
            golden.harness, golden.seats, golden.seed, options=golden.options, check=False
        )
        golden.path.write_text(_render(_record(golden, [[seat, a] for seat, a in log])))


if __name__ == "__main__":
    regenerate()

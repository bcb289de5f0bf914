"""Golden replay: a fixed seed and action list must keep giving the same game, byte for byte.

If a rules change alters this on purpose, regenerate with
``python -m tests.rules.numberswap.test_golden`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rules.codec import pack
from tests.rules.conformance import play_random_game, replay
from tests.rules.numberswap.helpers import GAME, HARNESS

GOLDEN = Path(__file__).with_name("golden_5_seats.json")
SEATS, SEED = 5, 20261129
# A higher target than the default makes the random game last several rounds.
OPTIONS = {"target_score": 300}


def fingerprint(state) -> dict:
    views = [GAME.view(state, seat) for seat in [*range(SEATS), None]]
    return {
        "totals": list(state.totals),
        "rounds": state.round,
        "views_sha256": hashlib.sha256(pack(views)).hexdigest(),
    }


def test_golden_replay_gives_the_recorded_totals_and_views():
    golden = json.loads(GOLDEN.read_text())
    assert golden["final"]["rounds"] >= 3
    log = [(seat, action) for seat, action in golden["actions"]]
    final = replay(GAME, SEATS, SEED, log, OPTIONS)
    assert fingerprint(final) == golden["final"]


if __name__ == "__main__":
    final, log = play_random_game(HARNESS, SEATS, SEED, options=OPTIONS, check=False)
    GOLDEN.write_text(json.dumps({"actions": log, "final": fingerprint(final)}) + "\n")
    print(fingerprint(final))

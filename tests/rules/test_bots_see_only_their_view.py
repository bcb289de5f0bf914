"""Every game's bots, at every level, decide from their seat's view only (the conformance
check :func:`tests.rules.conformance.check_bot_sees_only_its_view`): the one test of it, for
every game."""

from __future__ import annotations

import pytest

from rules.contract import BOT_LEVELS
from tests.rules.conformance import Harness, check_bot_sees_only_its_view
from tests.rules.floor.helpers import HARNESS as FLOOR
from tests.rules.numberswap.helpers import HARNESS as NUMBERSWAP
from tests.rules.warp99.helpers import HARNESS as WARP99

GAMES = {"numberswap": NUMBERSWAP, "warp99": WARP99, "floor": FLOOR}


@pytest.mark.parametrize("level", BOT_LEVELS)
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_bot_decides_from_its_view_only(game_id: str, level: str) -> None:
    harness: Harness = GAMES[game_id]
    checked = check_bot_sees_only_its_view(harness, level, range(6), 60)
    assert checked > 300, "enough positions, at several table sizes"


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_a_numberswap_bot_decides_from_its_view_only_by_text(level: str) -> None:
    """Number Swap played by text (ruling 11): its blind picks and the ender's opening pick
    too, over games long enough to reach later rounds."""
    checked = check_bot_sees_only_its_view(
        NUMBERSWAP, level, range(6), 300, options={"by_text": True}
    )
    assert checked > 1500, "enough positions, several rounds, at several table sizes"


def test_the_check_catches_a_bot_that_peeks() -> None:
    """A bot that chooses by the whole state (hidden cards included) fails the check."""
    import hashlib
    from dataclasses import replace
    from typing import Any

    from rules.codec import pack

    game = NUMBERSWAP.game

    class Peeking(type(game)):  # type: ignore[misc]
        def bot_action(self, state: Any, seat: int, rng: Any, level: str = "normal") -> Any:
            legal = self.legal_actions(state, seat)
            digest = hashlib.sha256(pack(self.dump_state(state))).digest()
            return legal[digest[0] % len(legal)]

    with pytest.raises(AssertionError):
        check_bot_sees_only_its_view(replace(NUMBERSWAP, game=Peeking()), "normal", range(2), 30)

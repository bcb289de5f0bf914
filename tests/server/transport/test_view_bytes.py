"""State messages stay small (issue 15): every game's mean state message at its largest table,
measured as bench/view_bytes.py measures it (rooms driven by the server's own commands, every
seat's message encoded as the hub encodes it), is at most 1 KB. Byte counts of seeded games are
exact, so this pins the compact wire forms (docs/protocol.md, docs/rules/*.md)."""

from __future__ import annotations

import pytest

from bench.view_bytes import measure
from rules import get_game
from server.transport.wire import Format

#: A kilobyte (1 KiB): the issue asks for at most 1.2 KB for Number Swap at 8 seats, and for
#: every other view over 1 KB to be made compact too.
CEILING = 1_024


@pytest.mark.parametrize("players", ["random", "bot"])
@pytest.mark.parametrize("game_id", ["numberswap", "warp99", "floor"])
def test_the_mean_state_message_at_the_largest_table_is_at_most_a_kilobyte(
    game_id: str, players: str
) -> None:
    seats = get_game(game_id).max_seats
    sizes = measure(game_id, seats, games=2, seed=1, players=players, fmt=Format.MSGPACK, cap=5000)
    assert len(sizes.frames) > 20 * seats, "whole games were played"
    assert sizes.mean <= CEILING, f"{game_id}: mean {sizes.mean:.0f} B"

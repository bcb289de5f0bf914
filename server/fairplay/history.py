"""What happened in a game, in public: every move's seat, who made it and its public events,
from the room's archive (docs/protocol.md, "Game history").

Unlike a record, this holds nothing secret (no seeds, no actions, which may name a hidden
card): events are public by the rules' contract. So it is served while the game is played,
and a page rebuilds its game log from it after a reload, on a new device, or to tell a player
who comes back what happened while they were away.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The most moves one answer holds (the latest ones; ``from`` pages further back).
PAGE_MAX = 2000


class NoGame(Exception):
    """The archive holds no deal of that game."""


def game_events(entries: Iterable[Any], number: int, since: int = 0) -> dict[str, Any]:
    """Game ``number``'s moves made after room version ``since``, oldest first, from the
    room's archive entries (decoded, oldest first; server/fairplay/records.py describes them): the
    version the game was dealt at, whether it is over, and each move as
    ``{version, seat, by, events}`` (``by`` as in a record). At most :data:`PAGE_MAX` moves,
    the latest; ``complete`` says whether every move after ``since`` is there."""
    dealt: int | None = None
    over = False
    moves: list[dict[str, Any]] = []
    for entry in entries:
        if isinstance(entry, dict):
            if entry.get("round") != number:
                continue
            if entry.get("k") == "deal":
                dealt, over, moves = entry["version"], False, []
            elif entry.get("k") == "end":
                over = True
        elif entry[0] == number and entry[1] > since:
            _, version, seat, by, _action, events = entry
            moves.append({"version": version, "seat": seat, "by": by, "events": events})
    if dealt is None:
        raise NoGame(f"no deal of game {number} is kept")
    complete = len(moves) <= PAGE_MAX
    return {
        "game": number,
        "dealt": dealt,
        "over": over,
        "complete": complete,
        "moves": moves[-PAGE_MAX:],
    }

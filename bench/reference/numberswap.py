"""Number Swap's reference casual player (issue 31), written from ``docs/rules/numberswap.md``
and the rulings list alone, before reading the bots' code.

How a decent person plays after reading the rules page, with no card counting and no
look-ahead: it decides only from what its seat sees (``game.view``: every grid's face-up cards,
the discard top, the drawn card) and the moves the rules allow (``game.legal_actions``). A
face-down card is reckoned at 5, about the deck's average.

* Opening flips (and by-text picks): two cards in one row of two different columns.
* Take the discard when it is low (3 or less) or completes a column of equal face-up values,
  swapping it for the card it improves most (the highest known card, or a face-down one).
* Otherwise draw; keep the drawn card if it completes a column, or is low (3 or less), or is
  clearly better (3 or more lower) than the highest known card, swapping it for that card;
  else throw it away and turn up a face-down card.
* Go out (turn up or swap away the last face-down card) only when its known total is clearly
  the lowest (5 under everyone else's estimate); otherwise it keeps the last card down.
* Never undoes.

Ties are broken with ``rnd``, so a game replays from its seed.
"""

from __future__ import annotations

import random
from typing import Any

#: What a face-down card is reckoned to be worth (the deck averages about 5).
UNKNOWN = 5
#: A card this low is worth taking.
LOW = 3
#: How much lower than a known card a drawn card must be to be "clearly better".
CLEARLY = 3
#: How far under everyone else a player must be before going out.
MARGIN = 5


def _down(cell: Any) -> bool:
    return cell is None


def _known(cell: Any) -> bool:
    return isinstance(cell, int) and not isinstance(cell, bool)


def _estimate(grid: list[Any]) -> int:
    return sum(c if _known(c) else UNKNOWN for c in grid if _known(c) or _down(c))


def _completes(grid: list[Any], pos: int, value: int) -> bool:
    col = pos // 3
    others = [grid[p] for p in range(col * 3, col * 3 + 3) if p != pos]
    return all(_known(c) and c == value for c in others)


def _gain(grid: list[Any], pos: int, value: int) -> float:
    """How much putting ``value`` at ``pos`` lowers the estimated total."""
    cell = grid[pos]
    if not (_known(cell) or _down(cell)):
        return -999
    if _completes(grid, pos, value):
        col = pos // 3
        rest: int = sum(grid[p] for p in range(col * 3, col * 3 + 3) if p != pos)
        return float(rest + (cell if _known(cell) else UNKNOWN))
    return float((cell if _known(cell) else UNKNOWN) - value)


def _best(grid: list[Any], positions: list[int], value: int, rnd: random.Random) -> int:
    top = max(_gain(grid, p, value) for p in positions)
    return rnd.choice([p for p in positions if _gain(grid, p, value) == top])


def _clearly_lowest(view: dict[str, Any], seat: int, grid_after: list[Any]) -> bool:
    mine = _estimate(grid_after)
    others = [_estimate(g) for i, g in enumerate(view["grids"]) if i != seat]
    return not others or mine + MARGIN <= min(others)


def choose(game: Any, state: Any, seat: int, rnd: random.Random) -> Any:
    legal = [a for a in game.legal_actions(state, seat) if a.type != "undo"]
    if not legal:
        return None
    view = game.view(state, seat)
    flips = [a for a in legal if a.type in ("flip_initial", "pick_flips")]
    if flips:
        for want in ((0, 3), (1, 4), (2, 5), (6, 9)):
            for a in flips:
                if tuple(a.positions) == want:
                    return a
        return rnd.choice(flips)
    grid = list(view["grids"][seat])
    down = [p for p in range(12) if _down(grid[p])]
    takes = {a.position: a for a in legal if a.type == "take_discard"}
    swaps = {a.position: a for a in legal if a.type == "swap_drawn"}
    throws = {a.flip: a for a in legal if a.type == "discard_drawn"}
    draw = [a for a in legal if a.type == "draw"]

    def goes_out(pos: int, value: int) -> bool:
        return down == [pos]

    def ok_to_end(pos: int, value: int) -> bool:
        after = list(grid)
        after[pos] = value
        return _clearly_lowest(view, seat, after)

    def keep(value: int, options: dict[int, Any]) -> Any:
        """The swap to make with ``value``, or None if it is not worth keeping."""
        positions = [p for p in options if not goes_out(p, value) or ok_to_end(p, value)]
        if not positions:
            return None
        pos = _best(grid, positions, value, rnd)
        gain = _gain(grid, pos, value)
        if gain <= 0:
            return None
        if _completes(grid, pos, value):
            return options[pos]
        known = [grid[p] for p in positions if _known(grid[p])]
        highest = max(known) if known else UNKNOWN
        if value <= LOW or value + CLEARLY <= highest:
            # Replace the highest known card if that is where it helps; else the best spot.
            high = [p for p in positions if _known(grid[p]) and grid[p] == highest]
            if high and highest - value >= gain - 0.5:
                return options[rnd.choice(high)]
            return options[pos]
        return None

    if view.get("drawn") is not None and (swaps or throws):
        value = view["drawn"]
        chosen = keep(value, swaps)
        if chosen is not None:
            return chosen
        safe = [p for p in throws if not (goes_out(p, value) and not ok_to_end(p, UNKNOWN))]
        if safe:
            return throws[rnd.choice(sorted(safe))]
        # Only the last face-down card is left and going out is not safe: park the drawn card
        # on the highest known card if it helps, else turn the last card up anyway.
        known = [p for p in swaps if _known(grid[p]) and grid[p] > value]
        if known:
            top = max(grid[p] for p in known)
            return swaps[rnd.choice([p for p in known if grid[p] == top])]
        if throws:
            return throws[rnd.choice(sorted(throws))]
        return rnd.choice(list(swaps.values()))
    if takes:
        top = view.get("discard_top")
        if top is not None:
            completes = any(_completes(grid, p, top) for p in takes)
            if top <= LOW or completes:
                chosen = keep(top, takes)
                if chosen is not None:
                    return chosen
    if draw:
        return draw[0]
    return rnd.choice(legal)

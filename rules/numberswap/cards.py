"""Number Swap's deck and grid geometry."""

from __future__ import annotations

# R1: the 150-card deck, as how many copies of each value it holds.
DECK_COUNTS: dict[int, int] = {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}
DECK: tuple[int, ...] = tuple(v for v, n in sorted(DECK_COUNTS.items()) for _ in range(n))
assert len(DECK) == 150

# R1: each grid is 4 columns x 3 rows.
COLUMNS = 4
ROWS = 3
GRID_SIZE = COLUMNS * ROWS


def column_of(position: int) -> int:
    """Positions run down each column: 0-2 are column 0, 3-5 column 1, ..."""
    return position // ROWS


def column_positions(column: int) -> range:
    return range(column * ROWS, column * ROWS + ROWS)

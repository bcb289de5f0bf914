"""A simple Number Swap bot: keep low cards, hunt column clears, reveal when in doubt."""

from __future__ import annotations

from rules.numberswap.actions import (
    AnyAction,
    DiscardDrawn,
    Draw,
    FlipInitial,
    NextRound,
    SwapDrawn,
    TakeDiscard,
)
from rules.numberswap.cards import ROWS, column_of
from rules.numberswap.state import Grid, Phase, State, to_act
from rules.rng import Rng

#: A card at or below this is worth keeping in place of an unknown face-down card.
KEEP = 4


def _best_target(grid: Grid, card: int) -> int | None:
    """Where placing ``card`` helps most, or None if nowhere is clearly better."""
    best: tuple[float, int] | None = None
    for p, c in enumerate(grid.cards):
        if c is None:
            continue
        if grid.up[p]:
            gain = float(c - card)
            # Completing a column of three equal values is worth the whole column.
            column = [
                grid.cards[q]
                for q in range(column_of(p) * ROWS, column_of(p) * ROWS + ROWS)
                if q != p
            ]
            ups = [
                grid.up[q] for q in range(column_of(p) * ROWS, column_of(p) * ROWS + ROWS) if q != p
            ]
            if all(ups) and all(v == card for v in column):
                gain += 2 * card + 10
        else:
            gain = 5.0 - card if card <= KEEP else -1.0  # an unknown card averages about 5
        if gain > 0 and (best is None or gain > best[0]):
            best = (gain, p)
    return None if best is None else best[1]


def choose(state: State, seat: int, rng: Rng) -> AnyAction | None:
    if seat not in to_act(state):
        raise ValueError("seat may not act")
    if state.phase is Phase.ROUND_END:
        # A bot has nothing to read: it is ready at once (the server paces it).
        return NextRound()
    grid = state.grids[seat]
    if state.phase is Phase.CHOOSE:
        down = grid.face_down()
        first, rng = rng.below(len(down))
        second, rng = rng.below(len(down) - 1)
        second += second >= first
        return FlipInitial(positions=(down[first], down[second]))
    if seat != state.current:
        # Only an undo is open to this seat; a bot never takes its moves back.
        return None
    if state.drawn is None:
        target = _best_target(grid, state.discard[-1])
        return TakeDiscard(position=target) if target is not None else Draw()
    target = _best_target(grid, state.drawn)
    if target is not None:
        return SwapDrawn(position=target)
    down = grid.face_down()
    if down:
        return DiscardDrawn(flip=down[0])
    highest = max(
        (p for p, c in enumerate(grid.cards) if c is not None), key=lambda p: grid.cards[p] or 0
    )
    return SwapDrawn(position=highest)

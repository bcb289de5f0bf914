"""Number Swap's immutable state."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.rng import Rng


class Phase(StrEnum):
    #: Everyone turns up two cards at once; no turn starts until all have chosen.
    CHOOSE = "choose"
    #: Ordinary turns (and, once someone has ended the round, everyone's last turns).
    TURN = "turn"
    #: A round has been scored and the game goes on: every grid is shown revealed until each
    #: seat has said it is ready (``next_round``); the last one deals the next round.
    ROUND_END = "round_end"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Grid:
    """One player's 4x3 grid. ``cards[p] is None`` means the slot's column was cleared."""

    cards: tuple[int | None, ...]
    up: tuple[bool, ...]

    def face_down(self) -> tuple[int, ...]:
        return tuple(p for p, c in enumerate(self.cards) if c is not None and not self.up[p])

    def face_down_count(self) -> int:
        return sum(1 for p, c in enumerate(self.cards) if c is not None and not self.up[p])

    def total(self) -> int:
        return sum(c for c in self.cards if c is not None)


@dataclass(frozen=True, slots=True)
class Undo:
    """What the last undoable action changed, so it can be taken back."""

    seat: int
    grid: Grid
    discard: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """The end of a round, kept for the results screen."""

    round: int
    ender: int
    grids: tuple[Grid, ...]
    raw_scores: tuple[int, ...]
    scores: tuple[int, ...]
    doubled: bool


@dataclass(frozen=True, slots=True)
class State:
    seats: int
    target: int
    rng: Rng
    round: int
    phase: Phase
    grids: tuple[Grid, ...]
    #: Top of each pile is the last element.
    draw: tuple[int, ...]
    discard: tuple[int, ...]
    #: Per seat: has it turned up its two cards this round.
    chosen: tuple[bool, ...]
    #: Whose turn it is (None during the choose phase and after the game).
    current: int | None
    #: The card drawn from the pile this turn, visible to all, until it is swapped or discarded.
    drawn: int | None
    #: Who ended this round by having no face-down card left (None until someone does).
    ender: int | None
    #: Who ended the previous round: they start the next one.
    starter: int | None
    totals: tuple[int, ...]
    #: Round scores (after doubling), one tuple per finished round.
    history: tuple[tuple[int, ...], ...]
    last_round: RoundSummary | None
    undo: Undo | None
    #: Actions applied so far, undos included (the move bound counts them).
    moves: int = 0
    #: Per seat, in the round_end phase: has it said it is ready for the next round. Empty in
    #: every other phase (so a state stored before the phase existed loads unchanged).
    ready: tuple[bool, ...] = ()


def is_ready(state: State, seat: int) -> bool:
    return bool(state.ready) and state.ready[seat]


def to_act(state: State) -> frozenset[int]:
    """The seats that may act: everyone yet to choose, or the current seat (and an undoer)."""
    if state.phase is Phase.CHOOSE:
        # R2: the opening flips are simultaneous: every seat that has not chosen yet.
        return frozenset(s for s in range(state.seats) if not state.chosen[s])
    if state.phase is Phase.ROUND_END:
        # (ours) The revealed round stays on the table until every seat is ready.
        return frozenset(s for s in range(state.seats) if not is_ready(state, s))
    if state.phase is Phase.TURN:
        assert state.current is not None
        if state.undo is not None:
            # R10: the undo stays open to its seat until someone else acts.
            return frozenset((state.current, state.undo.seat))
        return frozenset((state.current,))
    return frozenset()

"""Number Swap's immutable state."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import Field

from rules.rng import Rng

#: Two grid positions a seat picked to turn up (sorted, distinct, 0..11).
Pick = tuple[int, int]


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
    #: R11: played by text (a turn-based room): later rounds' opening cards are picked blind
    #: on each seat's last turn instead of turned up together. The two fields below are left
    #: out of the dump while they hold their defaults, so a live game's record is the bytes
    #: it was before they existed, and a state stored then loads unchanged.
    by_text: Annotated[bool, Field(exclude_if=lambda v: not v)] = False
    #: R11, by text only (else empty): per seat, the two positions it picked on its last turn
    #: of this round, to be turned up when the next round is dealt (None: not picked yet).
    picks: Annotated[tuple[Pick | None, ...], Field(exclude_if=lambda v: not v)] = ()


def is_ready(state: State, seat: int) -> bool:
    return bool(state.ready) and state.ready[seat]


def must_pick(state: State) -> bool:
    """R11: the current seat's next action is ``pick_flips``: its blind pick on its last turn
    of the round, or (the last round's ender, first thing in the new round) its opening pair."""
    if not state.by_text or state.phase is not Phase.TURN or state.current is None:
        return False
    seat = state.current
    if not state.chosen[seat]:
        return True
    return state.ender is not None and state.picks[seat] is None


def picks_up(state: State) -> bool:
    """R11: whether the current seat's pick turns its cards up now (the ender's, at the start
    of a round) rather than naming them blind for the next deal (a last turn's)."""
    return state.current is not None and not state.chosen[state.current]


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

"""Warp 99's immutable state, its options and its fixed numbers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import Field

from rules.contract import GameOptions
from rules.rng import Rng

# R2: a personal deck of 15 and a hand of 6 from it (R7: refills go back up to 6).
HAND_SIZE = 6
DECK_SIZE = 15
# R8: points for emptying a personal deck (R11: only one dealt as a full deck of 15).
DECK_POINTS = 15
# R9: the score that ends the game at once.
TARGET = 99
#: Platform ruling (move bound): a game still running after this many actions (every A, B and C
#: step counts) ends, the highest score winning. Seven times the longest measured game (686
#: actions, six random players).
MOVE_BOUND = 5_000


class Warp99Options(GameOptions):
    # R2: the printed variant, as an option.
    random_start_sides: bool = Field(
        default=False,
        description="Pro variant: each rule card starts on a random side instead of side 1",
    )


class Step(StrEnum):
    #: Optionally score the row, then place exactly one card in it.
    A = "A"
    #: Play cards onto the two shared piles; maybe flip a rule card when stuck.
    B = "B"
    #: Draw back up to six; the turn then passes.
    C = "C"


@dataclass(frozen=True, slots=True)
class State:
    seats: int
    rng: Rng
    #: Whose turn it is (seats from 0, in ascending order) and which step they are in.
    turn: int
    step: Step
    scores: tuple[int, ...]
    #: Per seat. Decks, the reserve and the piles have their top card last; hands are sorted.
    decks: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]
    #: Per seat, left to right: increasing values, no colour twice.
    rows: tuple[tuple[int, ...], ...]
    #: The two shared discard piles.
    piles: tuple[tuple[int, ...], tuple[int, ...]]
    reserve: tuple[int, ...]
    #: Scored rows, face up beside the reserve until the reserve is rebuilt.
    scored: tuple[int, ...]
    #: The face-up side (1 or 2) of each of the three rule cards.
    sides: tuple[int, int, int]
    #: The stuck-flip has been used this turn (it stays used if A-B-C repeats).
    flip_used: bool
    #: A card has gone onto a pile since the last Action A (the stuck-flip is then too late).
    played_to_pile: bool
    winner: int | None
    #: Actions applied so far (the move bound counts them).
    moves: int = 0
    #: R11: the seats whose current personal deck was dealt short (fewer than 15 cards, the
    #: supply being dry), so it scores nothing when it runs out; sorted. Almost always empty,
    #: so it costs nothing in the stored state. States stored before R11 lack it: every deck
    #: they hold then counts as a full one (what was played at the time).
    short_decks: tuple[int, ...] = ()


def is_over(state: State) -> bool:
    """Someone has reached the target, or (platform ruling, move bound) the bound is reached."""
    return state.winner is not None or state.moves >= MOVE_BOUND

"""Floor's immutable state, and the small pure helpers every move uses to change it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rules.contract import Result
from rules.evolve import replace
from rules.floor.cards import SHAPES, Shape
from rules.rng import Rng


class Phase(StrEnum):
    #: ``turn`` plays a card or draws (an ordinary turn).
    PLAY = "play"
    #: ``turn`` has been frozen by ``by`` and must answer.
    FREEZE = "freeze"
    #: A stack of ``stack`` Takes lies on ``turn``, who must stack another Take or draw it.
    TAKE = "take"
    #: ``by`` played a charged Swap; ``turn`` (who holds exactly 2 cards) decides at once
    #: whether to reverse it back.
    CHARGED = "charged"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class State:
    seats: int
    rng: Rng
    phase: Phase
    #: Each hand sorted by card id.
    hands: tuple[tuple[int, ...], ...]
    #: Top of each pile is the last element; the draw pile's bottom card is ``draw[0]``.
    draw: tuple[int, ...]
    discard: tuple[int, ...]
    #: None = open: matches anything until a card sets it (R2: either part may be open; R3).
    floor_shape: Shape | None
    floor_number: int | None
    #: The seat that acts now (in every phase but OVER).
    turn: int
    #: +1: play goes to the next higher seat; -1: to the next lower one.
    direction: int
    #: Cards the pending Take stack makes ``turn`` draw (0 when no stack is pending).
    stack: int
    #: Who played the pending Freeze, the last Take of the stack, or the charged Swap.
    by: int | None
    #: No action has been taken yet (a Power or Swap opener may still be grabbed).
    opening: bool
    #: Consecutive turns in open play on which the seat could neither play nor draw.
    passes: int
    outcome: Result | None
    #: Fingerprints of the positions reached with an empty draw pile, in order (see
    #: :func:`fingerprint` and :func:`rules.floor.table.settle`).
    seen: tuple[int, ...] = ()
    #: ``seen[forced_from:]`` are those reached since the last action taken with a real choice,
    #: by forced moves only.
    forced_from: int = 0
    #: Actions applied so far (the move bound counts them; see :mod:`rules.floor.table`).
    moves: int = 0


_PHASES = tuple(Phase)


def fingerprint(state: State) -> int:
    """A stable 64-bit digest of the position: everything but the RNG and the history.

    Used only for positions with an empty draw pile: every endless game passes through such
    positions again and again (hands only grow by drawing, and a spent draw pile comes back
    only through a reshuffle), so repeating one of them is how a live-lock shows (a game
    whose reshuffles keep giving new orders may never repeat one: the move bound ends it). It covers
    everything the next moves depend on: the floor, whose turn it is, the direction, the
    phase with its stack and ``by``, the run of passes, the opener flag, every hand and both
    piles in order.
    """
    shape = 4 if state.floor_shape is None else SHAPES.index(state.floor_shape)
    number = 10 if state.floor_number is None else state.floor_number
    head = (
        shape,
        number,
        state.turn,
        state.direction + 1,
        _PHASES.index(state.phase),
        state.stack,
        255 if state.by is None else state.by,
        state.passes,
        int(state.opening),
    )
    data = bytearray(head)
    for hand in state.hands:
        data.append(255)
        data.extend(hand)
    data.append(255)
    data.extend(state.discard)
    data.append(255)
    data.extend(state.draw)
    return int.from_bytes(hashlib.blake2b(bytes(data), digest_size=8).digest(), "big")


def next_seat(state: State, seat: int, direction: int | None = None) -> int:
    step = state.direction if direction is None else direction
    return (seat + step) % state.seats


def drawable(state: State) -> int:
    """How many cards could be drawn now, counting a reshuffle of the discard pile."""
    return len(state.draw) + max(len(state.discard) - 1, 0)


def hidden_from(state: State, seat: int | None) -> list[int]:
    """The cards ``seat`` cannot see (None: a spectator), in a fixed order: every other hand,
    then the draw pile, then the discard pile under its top card."""
    hidden = [c for s, hand in enumerate(state.hands) if s != seat for c in hand]
    hidden.extend(state.draw)
    hidden.extend(state.discard[:-1])
    return hidden


def redeal(state: State, seat: int | None, cards: Sequence[int]) -> State:
    """``state`` with the cards hidden from ``seat`` replaced by ``cards``, laid out in
    :func:`hidden_from`'s order (hands sorted, as the rules keep them); nothing else changes."""
    rest = iter(cards)
    hands = tuple(
        hand if s == seat else tuple(sorted(next(rest) for _ in hand))
        for s, hand in enumerate(state.hands)
    )
    draw = tuple(next(rest) for _ in state.draw)
    under = tuple(next(rest) for _ in state.discard[:-1])
    return replace(state, hands=hands, draw=draw, discard=(*under, *state.discard[-1:]))


def replace_at(
    items: tuple[tuple[int, ...], ...], index: int, value: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    return (*items[:index], value, *items[index + 1 :])


def without(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    gone = set(cards)
    return tuple(c for c in hand if c not in gone)


def with_cards(hand: tuple[int, ...], cards: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    return tuple(sorted((*hand, *cards)))

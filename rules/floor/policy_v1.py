"""Today's floor bot, frozen as the bot ladder's named baseline ``v1`` (bench/ladder.py).

It was: A simple Floor bot: shed as many cards as possible, hit back at once, keep Powers for last.
Do not improve it: new bots are measured against it.
"""

from __future__ import annotations

from collections import Counter

from rules.floor.actions import (
    AnyAction,
    BurnSwap,
    DiscardOperations,
    Draw,
    Grab,
    Pass,
    PlayFreeze,
    PlayNumbers,
    PlayOperation,
    PlayPower,
    PlaySwap,
    PlayTake,
    ReverseBack,
)
from rules.floor.cards import CARDS, SHAPES, Shape
from rules.floor.options import NumberSet, Options, options, shapes_of
from rules.floor.state import Phase, State, next_seat
from rules.rng import Rng

#: An attack card (Freeze, Take) is worth playing over a bigger shed when the next player is
#: down to this many cards.
THREATENED = 3


def _shape_for(hand: tuple[int, ...], played: tuple[int, ...], allowed: tuple[Shape, ...]) -> Shape:
    """The allowed shape the rest of the hand holds most of (so the next turn can follow it)."""
    left = Counter(CARDS[c].shape for c in hand if c not in played)
    return max(allowed, key=lambda s: (left[s], -SHAPES.index(s)))


def _best_operation(opts: Options) -> tuple[int, int, tuple[int, ...]] | None:
    """The Operation move shedding the most Numbers: (operation, operand, riders)."""
    riders = dict(opts.riders)
    best: tuple[int, int, tuple[int, ...]] | None = None
    for choice in opts.operations:
        for x, result in choice.operands:
            sets = [r.cards for r in riders[result] if x not in r.cards]
            ride = max(sets, key=len, default=())
            if best is None or len(ride) > len(best[2]):
                best = (choice.cards[0], x, ride)
    return best


def choose(state: State, seat: int, rng: Rng) -> AnyAction:
    # ``rng`` is part of every policy's signature; this bot needs no chance.
    opts = options(state, seat)
    if opts.charged:
        # Reversing back costs nothing and gives this seat the next move.
        return ReverseBack()
    if opts.passing:
        return Pass()
    if state.phase is Phase.FREEZE:
        if opts.freezes:
            return PlayFreeze(card=opts.freezes[0])
        if opts.discards:
            return DiscardOperations(cards=max(opts.discards, key=len))
        return Draw()
    if state.phase is Phase.TAKE:
        if opts.takes:
            return PlayTake(card=max(opts.takes, key=lambda c: CARDS[c].value or 0))
        return Draw()
    return _open_play(state, seat, opts)


def _open_play(state: State, seat: int, opts: Options) -> AnyAction:
    hand = state.hands[seat]
    # (cards shed, preference, action): Numbers and Operations first, Swap last, Power kept.
    moves: list[tuple[int, int, AnyAction]] = []
    if opts.numbers:
        play: NumberSet = max(opts.numbers, key=lambda p: len(p.cards))
        shape = _shape_for(hand, play.cards, shapes_of(play.cards))
        moves.append((len(play.cards), 3, PlayNumbers(cards=play.cards, shape=shape)))
    operation = _best_operation(opts)
    if operation is not None:
        card, operand, riders = operation
        played = (operand, *riders)
        shape = _shape_for(hand, (card, *played), shapes_of(played))
        action = PlayOperation(card=card, operand=operand, riders=riders, shape=shape)
        moves.append((1 + len(played), 2, action))
    threatened = len(state.hands[next_seat(state, seat)]) <= THREATENED
    attack = 9 if threatened else 1
    for take in sorted(opts.takes, key=lambda c: -(CARDS[c].value or 0))[:1]:
        moves.append((1, attack, PlayTake(card=take)))
    for freeze in opts.freezes[:1]:
        moves.append((1, attack, PlayFreeze(card=freeze)))
    for swap in opts.swaps[:1]:
        moves.append((1, 0, PlaySwap(card=swap)))
    if moves:
        # An attack on a nearly-finished player comes first; otherwise shed the most cards.
        return max(moves, key=lambda m: (m[1] == 9, m[0], m[1]))[2]
    # A Power is kept for the end: it can always be the winning card.
    if opts.powers and (len(hand) == 1 or not opts.draw):
        return PlayPower(card=opts.powers[0], shape=_shape_for(hand, opts.powers[:1], SHAPES))
    if opts.burns:
        return BurnSwap(card=opts.burns[0])
    if opts.draw:
        return Draw()
    # Not passing, so something is open to this seat: only the opener is left.
    return Grab()

"""What a seat may do now, computed once and shown two ways.

:func:`options` works out the choices in a compact form: which cards can start which kind of
play, the sets of Numbers that reach a target, the shapes each play may name. From it,
:func:`expand` builds the complete list of actions (for bots and the conformance checks) and
:func:`to_wire` the compact form a client reads (documented in ``docs/rules/floor.md``).
The compact form never multiplies choices out, so it stays small for big hands.

This module only offers moves; :mod:`rules.floor.moves` checks any action on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product
from typing import Any

from rules.contract import ActionModel
from rules.floor.actions import (
    BurnSwap,
    DiscardOperations,
    Draw,
    Grab,
    LetStand,
    Pass,
    PlayFreeze,
    PlayNumbers,
    PlayOperation,
    PlayPower,
    PlaySwap,
    PlayTake,
    ReverseBack,
)
from rules.floor.cards import CARDS, OPS, SHAPES, Kind, Op, Shape, operate
from rules.floor.state import Phase, State, drawable

# Flat lookup tables: enumeration is on the hot path. ``_SHAPE`` and ``_VALUE`` are only read
# for cards that have a shape or a value (the fill-ins are never used).
_KIND = tuple(card.kind for card in CARDS)
_SHAPE: tuple[Shape, ...] = tuple(card.shape or Shape.CIRCLE for card in CARDS)
_VALUE: tuple[int, ...] = tuple(card.value or 0 for card in CARDS)
_OP = tuple(card.op for card in CARDS)


@dataclass(frozen=True, slots=True)
class NumberSet:
    """Numbers played together, and the shapes the player may name as the new Floor Shape."""

    cards: tuple[int, ...]
    shapes: tuple[Shape, ...]


@dataclass(frozen=True, slots=True)
class Operand:
    """A Number that resolves an Operation to ``result``, and what may ride along with it.

    ``riders[i].shapes`` already include the operand's own shape.
    """

    card: int
    result: int
    riders: tuple[NumberSet, ...]


@dataclass(frozen=True, slots=True)
class OperationChoice:
    """Every Operation card of one kind in hand, and the Numbers that can resolve it."""

    op: Op
    cards: tuple[int, ...]
    operands: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class Options:
    #: How many cards a draw would take; 0 = drawing is not possible.
    draw: int = 0
    #: Nothing to play and nothing to draw: the only move is to pass.
    passing: bool = False
    grab: int | None = None
    numbers: tuple[NumberSet, ...] = ()
    operations: tuple[OperationChoice, ...] = ()
    freezes: tuple[int, ...] = ()
    takes: tuple[int, ...] = ()
    swaps: tuple[int, ...] = ()
    burns: tuple[int, ...] = ()
    powers: tuple[int, ...] = ()
    discards: tuple[tuple[int, ...], ...] = ()
    #: Hit by a charged Swap: reverse it back or let it stand.
    charged: bool = False


NONE = Options()


def shapes_of(cards: tuple[int, ...]) -> tuple[Shape, ...]:
    present = {_SHAPE[c] for c in cards}
    return tuple(s for s in SHAPES if s in present)


def _buckets(numbers: list[int]) -> dict[int, list[int]]:
    buckets: dict[int, list[int]] = {}
    for c in numbers:
        buckets.setdefault(_VALUE[c], []).append(c)
    return buckets


def pairs_summing(buckets: dict[int, list[int]], target: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for a in sorted(buckets):
        b = target - a
        if b < a:
            break
        if b not in buckets:
            continue
        if a == b:
            out.extend(combinations(buckets[a], 2))
        else:
            out.extend(tuple(sorted(p)) for p in product(buckets[a], buckets[b]))
    return out


def triples_summing(buckets: dict[int, list[int]], target: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    values = sorted(buckets)
    for i, a in enumerate(values):
        for b in values[i:]:
            c = target - a - b
            if c < b:
                break
            if c not in buckets:
                continue
            if a == b == c:
                out.extend(combinations(buckets[a], 3))
            elif a == b:
                out.extend(
                    tuple(sorted((*p, z))) for p in combinations(buckets[a], 2) for z in buckets[c]
                )
            elif b == c:
                out.extend(
                    tuple(sorted((x, *p))) for x in buckets[a] for p in combinations(buckets[b], 2)
                )
            else:
                out.extend(tuple(sorted(t)) for t in product(buckets[a], buckets[b], buckets[c]))
    return out


def _operations(hand: tuple[int, ...], numbers: list[int], floor: int) -> list[OperationChoice]:
    by_op: dict[Op, list[int]] = {}
    for c in hand:
        op = _OP[c]
        if op is not None:
            by_op.setdefault(op, []).append(c)
    if not by_op or not numbers:
        return []
    buckets = _buckets(numbers)
    # Riders reaching each result, computed once per result and filtered per operand.
    riders_for: dict[int, tuple[list[tuple[int, ...]], list[tuple[int, ...]]]] = {}
    choices = []
    for op in OPS:
        if op not in by_op:
            continue
        operands = []
        for x in numbers:
            result = operate(op, floor, _VALUE[x])
            if result not in riders_for:
                riders_for[result] = (
                    [(m,) for m in buckets.get(result, ())],
                    pairs_summing(buckets, result),
                )
            singles, pairs = riders_for[result]
            riders = [NumberSet((), (_SHAPE[x],))]
            for rider in (*singles, *pairs):
                if x not in rider:
                    riders.append(NumberSet(rider, shapes_of((x, *rider))))
            operands.append(Operand(x, result, tuple(riders)))
        choices.append(OperationChoice(op, tuple(by_op[op]), tuple(operands)))
    return choices


def _discards(hand: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Operations that break a Freeze without emptying the hand."""
    by_op: dict[Op, list[int]] = {}
    for c in hand:
        op = _OP[c]
        if op is not None:
            by_op.setdefault(op, []).append(c)
    out: list[tuple[int, ...]] = []
    if len(hand) > 2:
        for op in OPS:
            out.extend(combinations(by_op.get(op, ()), 2))
    if len(hand) > 3 and len(by_op) == len(OPS):
        out.extend(tuple(sorted(t)) for t in product(*(by_op[op] for op in OPS)))
    return out


def options(state: State, seat: int) -> Options:
    if state.phase is Phase.OVER or seat != state.turn:
        return NONE
    if state.phase is Phase.CHARGED:
        return Options(charged=True)
    hand = state.hands[seat]
    can_draw = drawable(state)
    if state.phase is Phase.FREEZE:
        freezes = tuple(c for c in hand if _KIND[c] is Kind.FREEZE)
        discards = tuple(_discards(hand))
        draw = 1 if can_draw else 0
        return Options(
            draw=draw,
            freezes=freezes,
            discards=discards,
            passing=not (draw or freezes or discards),
        )
    if state.phase is Phase.TAKE:
        takes = tuple(c for c in hand if _KIND[c] is Kind.TAKE)
        draw = min(state.stack, can_draw)
        return Options(draw=draw, takes=takes, passing=not (draw or takes))
    return _open_play(state, hand, can_draw)


def _open_play(state: State, hand: tuple[int, ...], can_draw: int) -> Options:
    floor_shape = state.floor_shape
    floor = state.floor_number
    numbers = [c for c in hand if _KIND[c] is Kind.NUMBER]

    def matches(c: int) -> bool:
        return floor_shape is None or CARDS[c].shape is floor_shape

    plays = [NumberSet((c,), (_SHAPE[c],)) for c in numbers if matches(c)]
    operations: list[OperationChoice] = []
    if floor is not None and numbers:
        buckets = _buckets(numbers)
        for cards in (*pairs_summing(buckets, floor), *triples_summing(buckets, floor)):
            plays.append(NumberSet(cards, shapes_of(cards)))
        operations = _operations(hand, numbers, floor)
    swaps = tuple(c for c in hand if _KIND[c] is Kind.SWAP)
    burns: tuple[int, ...] = ()
    if len(hand) == 1:
        # A Swap can never be the last card; burning it needs a card to draw (after the burnt
        # Swap lands on the discard pile, the whole old discard pile can be reshuffled).
        burns = swaps if len(state.draw) + len(state.discard) >= 1 else ()
        swaps = ()
    opts = Options(
        draw=1 if can_draw else 0,
        grab=state.discard[-1] if state.grab else None,
        numbers=tuple(plays),
        operations=tuple(operations),
        freezes=tuple(c for c in hand if _KIND[c] is Kind.FREEZE and matches(c)),
        takes=tuple(c for c in hand if _KIND[c] is Kind.TAKE and matches(c)),
        swaps=swaps,
        burns=burns,
        powers=tuple(c for c in hand if _KIND[c] is Kind.POWER),
    )
    if not (
        opts.draw
        or opts.grab is not None
        or opts.numbers
        or opts.operations
        or opts.freezes
        or opts.takes
        or opts.swaps
        or opts.burns
        or opts.powers
    ):
        return Options(passing=True)
    return opts


def expand(opts: Options) -> list[ActionModel]:
    """Every action the options allow, each spelled one way (cards sorted, shape named)."""
    out: list[ActionModel] = []
    if opts.charged:
        return [ReverseBack(), LetStand()]
    if opts.passing:
        return [Pass()]
    if opts.grab is not None:
        out.append(Grab())
    if opts.draw:
        out.append(Draw())
    for play in opts.numbers:
        out.extend(PlayNumbers(cards=play.cards, shape=shape) for shape in play.shapes)
    for choice in opts.operations:
        for operand in choice.operands:
            for rider in operand.riders:
                for shape in rider.shapes:
                    out.extend(
                        PlayOperation(
                            card=card, operand=operand.card, riders=rider.cards, shape=shape
                        )
                        for card in choice.cards
                    )
    out.extend(PlayFreeze(card=c) for c in opts.freezes)
    out.extend(PlayTake(card=c) for c in opts.takes)
    out.extend(PlaySwap(card=c) for c in opts.swaps)
    out.extend(BurnSwap(card=c) for c in opts.burns)
    out.extend(PlayPower(card=c, shape=shape) for c in opts.powers for shape in SHAPES)
    out.extend(DiscardOperations(cards=cards) for cards in opts.discards)
    return out


def _set_wire(play: NumberSet) -> dict[str, Any]:
    return {"cards": list(play.cards), "shapes": [s.value for s in play.shapes]}


def to_wire(opts: Options, floor: int | None) -> list[dict[str, Any]]:
    """The compact legal form of the view; see "Legal actions in the view" in the docs."""
    if opts.charged:
        return [{"type": "reverse_back"}, {"type": "let_stand"}]
    if opts.passing:
        return [{"type": "pass"}]
    out: list[dict[str, Any]] = []
    if opts.grab is not None:
        out.append({"type": "grab", "card": opts.grab})
    if opts.draw:
        out.append({"type": "draw", "count": opts.draw})
    if opts.numbers:
        out.append({"type": "number", "plays": [_set_wire(p) for p in opts.numbers]})
    if opts.operations:
        out.append(
            {
                "type": "operation",
                "floor": floor,
                "choices": [
                    {
                        "op": choice.op.value,
                        "cards": list(choice.cards),
                        "operands": [
                            {
                                "card": operand.card,
                                "result": operand.result,
                                "riders": [_set_wire(r) for r in operand.riders],
                            }
                            for operand in choice.operands
                        ],
                    }
                    for choice in opts.operations
                ],
            }
        )
    for kind, cards in (
        ("freeze", opts.freezes),
        ("take", opts.takes),
        ("swap", opts.swaps),
        ("burn", opts.burns),
    ):
        if cards:
            out.append({"type": kind, "cards": list(cards)})
    if opts.powers:
        out.append(
            {"type": "power", "cards": list(opts.powers), "shapes": [s.value for s in SHAPES]}
        )
    if opts.discards:
        out.append({"type": "discard_operations", "sets": [list(d) for d in opts.discards]})
    return out

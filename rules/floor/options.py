"""What a seat may do now, computed once and shown two ways.

:func:`options` works out the choices in a compact form: which cards can start which kind of
play, the sets of Numbers that reach a target, the shapes each play may name. From it,
:func:`expand` builds the complete list of actions (for bots and the conformance checks) and
:func:`to_wire` the compact form a client reads (documented in ``docs/rules/floor.md``).
The compact form never multiplies choices out, so it stays small for big hands.

This module only offers moves; :mod:`rules.floor.moves` checks any action on its own, and the
property tests keep the two in step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, islice, product
from typing import Any, NamedTuple

from rules.floor.actions import (
    AnyAction,
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
    trusted,
)
from rules.floor.cards import CARDS, OPS, SHAPES, Kind, Op, Shape, operate
from rules.floor.state import Phase, State, drawable

# Flat lookup tables: enumeration is on the hot path. ``_VALUE`` is only read for Numbers.
_KIND = tuple(card.kind for card in CARDS)
_VALUE: tuple[int, ...] = tuple(card.value or 0 for card in CARDS)
_OP = tuple(card.op for card in CARDS)
#: A set of shapes is a 4-bit mask (bit i = SHAPES[i]); a card without a shape has mask 0.
_MASK = tuple(0 if c.shape is None else 1 << SHAPES.index(c.shape) for c in CARDS)
_SHAPES: tuple[tuple[Shape, ...], ...] = tuple(
    tuple(s for i, s in enumerate(SHAPES) if m >> i & 1) for m in range(16)
)
_SHAPE_NAMES: tuple[tuple[str, ...], ...] = tuple(tuple(s.value for s in t) for t in _SHAPES)


class NumberSet(NamedTuple):
    """Numbers played together; ``shapes`` (a mask) are those the player may name."""

    cards: tuple[int, ...]
    shapes: int


class Operand(NamedTuple):
    """A Number that can resolve an Operation, and the result it gives."""

    card: int
    result: int


class OperationChoice(NamedTuple):
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
    #: For each result an operand can give: the sets of one or two Numbers adding up to it,
    #: which may ride along (any set that does not hold the operand itself).
    riders: tuple[tuple[int, tuple[NumberSet, ...]], ...] = ()
    freezes: tuple[int, ...] = ()
    takes: tuple[int, ...] = ()
    swaps: tuple[int, ...] = ()
    burns: tuple[int, ...] = ()
    powers: tuple[int, ...] = ()
    discards: tuple[tuple[int, ...], ...] = ()
    #: Hit by a charged Swap: reverse it back or let it stand.
    charged: bool = False


NONE = Options()


def grabbable(card: int) -> bool:
    """Only a Power or a Swap opener can be grabbed (and only as the first action)."""
    # R3: what may be grabbed.
    return _KIND[card] in (Kind.POWER, Kind.SWAP)


def shapes_of(cards: tuple[int, ...]) -> tuple[Shape, ...]:
    """The distinct shapes among ``cards``, in the order of :data:`SHAPES`."""
    mask = 0
    for c in cards:
        mask |= _MASK[c]
    return _SHAPES[mask]


def _mask(cards: tuple[int, ...]) -> int:
    mask = 0
    for c in cards:
        mask |= _MASK[c]
    return mask


def _buckets(numbers: list[int]) -> dict[int, list[int]]:
    buckets: dict[int, list[int]] = {}
    for c in numbers:
        buckets.setdefault(_VALUE[c], []).append(c)
    return buckets


def pairs_summing(buckets: dict[int, list[int]], target: int) -> list[tuple[int, ...]]:
    """Every pair of the bucketed Numbers whose values add up to ``target`` (ids sorted)."""
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
            out.extend((x, y) if x < y else (y, x) for x in buckets[a] for y in buckets[b])
    return out


def triples_summing(buckets: dict[int, list[int]], target: int) -> list[tuple[int, ...]]:
    """Every triple of the bucketed Numbers whose values add up to ``target`` (ids sorted)."""
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


def _by_op(hand: tuple[int, ...]) -> dict[Op, list[int]]:
    by_op: dict[Op, list[int]] = {}
    for c in hand:
        op = _OP[c]
        if op is not None:
            by_op.setdefault(op, []).append(c)
    return by_op


def _operations(
    hand: tuple[int, ...], numbers: list[int], buckets: dict[int, list[int]], floor: int
) -> tuple[list[OperationChoice], list[tuple[int, tuple[NumberSet, ...]]]]:
    # R7: an Operation with its operand (any Number) and the riders that add up to its result.
    by_op = _by_op(hand)
    if not by_op:
        return [], []
    choices = []
    results: set[int] = set()
    for op in OPS:
        if op in by_op:
            operands = tuple(Operand(x, operate(op, floor, _VALUE[x])) for x in numbers)
            results.update(o.result for o in operands)
            choices.append(OperationChoice(op, tuple(by_op[op]), operands))
    riders = []
    for result in sorted(results):
        sets = [(m,) for m in buckets.get(result, ())] + pairs_summing(buckets, result)
        riders.append((result, tuple(NumberSet(r, _mask(r)) for r in sets)))
    return choices, riders


def _discards(hand: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Operations that break a Freeze without emptying the hand."""
    # R8: two of a kind or three different, never the whole hand.
    by_op = _by_op(hand)
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
    # R8, R9: a Freeze or a Take is answered only as its ruling says (R12: no Swap, Power or
    # Operation), by a card of any shape.
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
    floor = state.floor_number
    # Mask of the shapes a card must have to match the floor; 15 (all) while it is open (R3).
    # R5: a single Number must match it; R8, R9: a Freeze or a Take too.
    wanted = 15 if state.floor_shape is None else 1 << SHAPES.index(state.floor_shape)
    numbers = [c for c in hand if _KIND[c] is Kind.NUMBER]
    plays = [NumberSet((c,), _MASK[c]) for c in numbers if _MASK[c] & wanted]
    operations: list[OperationChoice] = []
    riders: list[tuple[int, tuple[NumberSet, ...]]] = []
    if floor is not None and numbers:
        buckets = _buckets(numbers)
        # R6: two or three Numbers of any shapes whose values sum exactly to the Floor Number;
        # R7: Operations need a Floor Number too.
        for cards in (*pairs_summing(buckets, floor), *triples_summing(buckets, floor)):
            plays.append(NumberSet(cards, _mask(cards)))
        operations, riders = _operations(hand, numbers, buckets, floor)
    swaps = tuple(c for c in hand if _KIND[c] is Kind.SWAP)
    burns: tuple[int, ...] = ()
    if len(hand) == 1:
        # R10: a Swap can never be the last card, but may be burnt; burning needs a card to
        # draw (after the burnt Swap lands on the discard pile, the whole old discard pile can
        # be reshuffled).
        burns = swaps if len(state.draw) + len(state.discard) >= 1 else ()
        swaps = ()
    # R4: play, or draw 1 (always allowed while there is a card to draw). R12: Swap, Power
    # and Operations follow no shape.
    opts = Options(
        draw=1 if can_draw else 0,
        grab=state.discard[-1] if state.opening and grabbable(state.discard[-1]) else None,
        numbers=tuple(plays),
        operations=tuple(operations),
        riders=tuple(riders),
        freezes=tuple(c for c in hand if _KIND[c] is Kind.FREEZE and _MASK[c] & wanted),
        takes=tuple(c for c in hand if _KIND[c] is Kind.TAKE and _MASK[c] & wanted),
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


def expand(opts: Options) -> list[AnyAction]:
    """Every action the options allow, each spelled one way (cards sorted, shape named)."""
    return list(_actions(opts))


def forced(opts: Options) -> bool:
    """Whether the options allow exactly one action, so the seat has no real choice.

    Only the first two actions are built, so this is cheap even for a big hand.
    """
    return len(list(islice(_actions(opts), 2))) == 1


def _actions(opts: Options) -> Iterator[AnyAction]:
    if opts.charged:
        yield from (ReverseBack(), LetStand())
        return
    if opts.passing:
        yield Pass()
        return
    if opts.grab is not None:
        yield Grab()
    if opts.draw:
        yield Draw()
    for play in opts.numbers:
        yield from (
            trusted(PlayNumbers, cards=play.cards, shape=shape) for shape in _SHAPES[play.shapes]
        )
    riders = dict(opts.riders)
    for choice in opts.operations:
        for x, result in choice.operands:
            own = _MASK[x]
            for rider in (NumberSet((), 0), *riders[result]):
                if x in rider.cards:
                    continue
                for shape in _SHAPES[own | rider.shapes]:
                    yield from (
                        trusted(
                            PlayOperation, card=card, operand=x, riders=rider.cards, shape=shape
                        )
                        for card in choice.cards
                    )
    yield from (PlayFreeze(card=c) for c in opts.freezes)
    yield from (PlayTake(card=c) for c in opts.takes)
    yield from (PlaySwap(card=c) for c in opts.swaps)
    yield from (BurnSwap(card=c) for c in opts.burns)
    yield from (PlayPower(card=c, shape=shape) for c in opts.powers for shape in SHAPES)
    yield from (DiscardOperations(cards=cards) for cards in opts.discards)


def _set_wire(play: NumberSet) -> dict[str, Any]:
    return {"cards": list(play.cards), "shapes": list(_SHAPE_NAMES[play.shapes])}


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
                            {"card": x, "shape": _SHAPE_NAMES[_MASK[x]][0], "result": result}
                            for x, result in choice.operands
                        ],
                    }
                    for choice in opts.operations
                ],
                "riders": {
                    str(result): [_set_wire(r) for r in sets] for result, sets in opts.riders
                },
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
        out.append({"type": "power", "cards": list(opts.powers), "shapes": list(_SHAPE_NAMES[15])})
    if opts.discards:
        out.append({"type": "discard_operations", "sets": [list(d) for d in opts.discards]})
    return out

"""Floor's 112-card deck: what each card id (0..111) is, and how a card looks on the wire.

Ids are fixed so that actions, logs and tests can name cards:

* 0..79    Numbers: ``shape * 20 + value * 2 + copy`` (two of each value 0..9 per shape);
* 80..91   Operations: Add 80..83, Subtract 84..87, Multiply 88..91;
* 92..95   Freeze, 96..99 Take1, 100..103 Take2 (one per shape, in shape order);
* 104..107 Swap, 108..111 Power.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Shape(StrEnum):
    CIRCLE = "circle"
    TRIANGLE = "triangle"
    SQUARE = "square"
    STAR = "star"


SHAPES: tuple[Shape, ...] = tuple(Shape)


class Kind(StrEnum):
    NUMBER = "number"
    OPERATION = "operation"
    FREEZE = "freeze"
    TAKE = "take"
    SWAP = "swap"
    POWER = "power"


class Op(StrEnum):
    ADD = "add"
    SUBTRACT = "subtract"
    MULTIPLY = "multiply"


OPS: tuple[Op, ...] = tuple(Op)


def operate(op: Op, floor: int, operand: int) -> int:
    """The Operation's result: the ones digit, never negative (3 - 8 gives 5)."""
    # R7: R = (Floor op n) mod 10.
    if op is Op.ADD:
        return (floor + operand) % 10
    if op is Op.SUBTRACT:
        return (floor - operand) % 10
    return (floor * operand) % 10


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    kind: Kind
    #: Numbers, Freezes and Takes have a shape; Operations, Swaps and Powers do not.
    shape: Shape | None = None
    #: A Number's value, or how many cards a Take makes the next player draw.
    value: int | None = None
    op: Op | None = None

    def describe(self) -> str:
        """The card in words, for messages."""
        if self.kind is Kind.NUMBER:
            return f"{self.shape} {self.value}"
        if self.kind is Kind.OPERATION:
            assert self.op is not None
            return self.op.value.capitalize()
        if self.kind is Kind.TAKE:
            return f"{self.shape} Take{self.value}"
        if self.kind is Kind.FREEZE:
            return f"{self.shape} Freeze"
        return self.kind.value.capitalize()


def _build() -> tuple[Card, ...]:
    # R1: the 112-card deck.
    cards: list[Card] = []
    for shape in SHAPES:
        for value in range(10):
            for _copy in range(2):
                cards.append(Card(len(cards), Kind.NUMBER, shape=shape, value=value))
    for op in OPS:
        for _copy in range(4):
            cards.append(Card(len(cards), Kind.OPERATION, op=op))
    for shape in SHAPES:
        cards.append(Card(len(cards), Kind.FREEZE, shape=shape))
    for value in (1, 2):
        for shape in SHAPES:
            cards.append(Card(len(cards), Kind.TAKE, shape=shape, value=value))
    for kind in (Kind.SWAP, Kind.POWER):
        for _copy in range(4):
            cards.append(Card(len(cards), kind))
    return tuple(cards)


CARDS: tuple[Card, ...] = _build()
DECK_SIZE = len(CARDS)
DECK: tuple[int, ...] = tuple(range(DECK_SIZE))
assert DECK_SIZE == 112


def number_id(shape: Shape, value: int, copy: int = 0) -> int:
    """The id of a Number card (handy for tests and tools)."""
    return SHAPES.index(shape) * 20 + value * 2 + copy


def op_id(op: Op, copy: int = 0) -> int:
    return 80 + OPS.index(op) * 4 + copy


def freeze_id(shape: Shape) -> int:
    return 92 + SHAPES.index(shape)


def take_id(shape: Shape, value: int) -> int:
    return 96 + (value - 1) * 4 + SHAPES.index(shape)


def swap_id(copy: int = 0) -> int:
    return 104 + copy


def power_id(copy: int = 0) -> int:
    return 108 + copy

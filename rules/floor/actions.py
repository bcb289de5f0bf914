"""Floor's actions: a tagged union on ``type``; cards are named by id (see :mod:`.cards`).

The models check only the form of an action (ids in range, no card named twice). Whether the
rules allow it is decided by :mod:`rules.floor.moves`, which explains every refusal.
Lists of cards are kept sorted, so two spellings of the same move are equal.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import Field, field_validator, model_validator

from rules.contract import ActionModel
from rules.floor.cards import DECK_SIZE, Shape

# Strict: a JSON ``true`` or ``"3"`` is not a card.
CardId = Annotated[int, Field(strict=True, ge=0, lt=DECK_SIZE)]
# Generous bounds: the rules, not the form, say how many cards a move may hold.
CardList = Annotated[tuple[CardId, ...], Field(max_length=8)]


def _sorted_distinct(cards: tuple[int, ...]) -> tuple[int, ...]:
    if len(set(cards)) != len(cards):
        raise ValueError("a card is named more than once")
    return tuple(sorted(cards))


class Grab(ActionModel):
    """First action of the game only: take the Power or Swap opener into your hand."""

    type: Literal["grab"] = "grab"


class Draw(ActionModel):
    """Draw 1 and end the turn; answering a Freeze: draw 1; under a Take stack: draw it all."""

    type: Literal["draw"] = "draw"


class Pass(ActionModel):
    """Only when there is nothing to play and nothing to draw: lose the turn."""

    type: Literal["pass"] = "pass"


class PlayNumbers(ActionModel):
    """One Number of the Floor Shape, or two or three adding up to the Floor Number.

    ``shape`` names the new Floor Shape among the played cards' shapes; it may be left out
    when they all share one shape.
    """

    type: Literal["number"] = "number"
    cards: CardList
    shape: Shape | None = None

    _sorted = field_validator("cards")(_sorted_distinct)


class PlayOperation(ActionModel):
    """An Operation (``card``) resolved at once by the Number ``operand``.

    ``riders``: none, or one or two more Numbers adding up to the result. ``shape`` names the
    new Floor Shape among the shapes of the operand and riders.
    """

    type: Literal["operation"] = "operation"
    card: CardId
    operand: CardId | None = None
    riders: CardList = ()
    shape: Shape | None = None

    _sorted = field_validator("riders")(_sorted_distinct)

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        named = [self.card, *self.riders]
        if self.operand is not None:
            named.append(self.operand)
        if len(set(named)) != len(named):
            raise ValueError("a card is named more than once")
        return self


class PlayFreeze(ActionModel):
    type: Literal["freeze"] = "freeze"
    card: CardId


class PlayTake(ActionModel):
    type: Literal["take"] = "take"
    card: CardId


class PlaySwap(ActionModel):
    type: Literal["swap"] = "swap"
    card: CardId


class PlayPower(ActionModel):
    type: Literal["power"] = "power"
    card: CardId
    shape: Shape | None = None


class BurnSwap(ActionModel):
    """Holding only a Swap: discard it and draw the bottom card of the draw pile."""

    type: Literal["burn"] = "burn"
    card: CardId


class DiscardOperations(ActionModel):
    """Answer a Freeze: two Operations of one kind, or three of different kinds."""

    type: Literal["discard_operations"] = "discard_operations"
    cards: CardList

    _sorted = field_validator("cards")(_sorted_distinct)


class ReverseBack(ActionModel):
    """Hit by a charged Swap: reverse it back, and move next."""

    type: Literal["reverse_back"] = "reverse_back"


class LetStand(ActionModel):
    """Hit by a charged Swap: leave the new direction as it is."""

    type: Literal["let_stand"] = "let_stand"


AnyAction = (
    Grab
    | Draw
    | Pass
    | PlayNumbers
    | PlayOperation
    | PlayFreeze
    | PlayTake
    | PlaySwap
    | PlayPower
    | BurnSwap
    | DiscardOperations
    | ReverseBack
    | LetStand
)

Action = Annotated[AnyAction, Field(discriminator="type")]

M = TypeVar("M", bound=ActionModel)

# Each action class's field defaults, so that ``trusted`` does not walk ``model_fields``.
_DEFAULTS: dict[type[ActionModel], dict[str, Any]] = {
    cls: {name: info.default for name, info in cls.model_fields.items()}
    for cls in (
        Grab,
        Draw,
        Pass,
        PlayNumbers,
        PlayOperation,
        PlayFreeze,
        PlayTake,
        PlaySwap,
        PlayPower,
        BurnSwap,
        DiscardOperations,
        ReverseBack,
        LetStand,
    )
}


_new = object.__new__
_set = object.__setattr__


def trusted(cls: type[M], **fields: Any) -> M:
    """An action built by the rules themselves, skipping validation.

    Listing every legal action of a big hand builds thousands of models, and validation is
    most of their cost (``model_construct`` is slower still). Only for values that are valid
    and canonical by construction (ids in range, lists sorted, no card twice): a test checks
    that the result equals the validated model.
    """
    obj = _new(cls)
    values = _DEFAULTS[cls].copy()
    values.update(fields)
    _set(obj, "__dict__", values)
    # Exactly what validation records: the fields given, not the defaults filled in.
    _set(obj, "__pydantic_fields_set__", set(fields))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj

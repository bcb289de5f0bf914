"""Number Swap's actions: a tagged union on ``type``. Positions are 0..11, down each column."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt, field_validator

from rules.contract import ActionModel

# Strict: "3", 3.0 or true from the network are malformed, not position 3.
Position = Annotated[StrictInt, Field(ge=0, le=11)]


def _two_cards(value: tuple[int, int]) -> tuple[int, int]:
    """Two different positions, in order (so one choice has one form)."""
    if value[0] == value[1]:
        raise ValueError("choose two different cards")
    return (min(value), max(value))


class FlipInitial(ActionModel):
    """Round start: turn up two cards of your choice."""

    type: Literal["flip_initial"] = "flip_initial"
    positions: tuple[Position, Position]

    @field_validator("positions")
    @classmethod
    def _distinct(cls, value: tuple[int, int]) -> tuple[int, int]:
        return _two_cards(value)


class PickFlips(ActionModel):
    """Played by text (R11): on your last turn of a round, the two positions to turn up when
    the next round is dealt (blind); as the last round's ender, first thing in the new round,
    the two cards to turn up now."""

    type: Literal["pick_flips"] = "pick_flips"
    positions: tuple[Position, Position]

    @field_validator("positions")
    @classmethod
    def _distinct(cls, value: tuple[int, int]) -> tuple[int, int]:
        return _two_cards(value)


class TakeDiscard(ActionModel):
    """Take the top discard and swap it with the card at ``position``."""

    type: Literal["take_discard"] = "take_discard"
    position: Position


class Draw(ActionModel):
    """Draw the top card of the draw pile (everyone sees it)."""

    type: Literal["draw"] = "draw"


class SwapDrawn(ActionModel):
    """Swap the drawn card with the card at ``position``."""

    type: Literal["swap_drawn"] = "swap_drawn"
    position: Position


class DiscardDrawn(ActionModel):
    """Throw the drawn card away and turn up the face-down card at ``flip``."""

    type: Literal["discard_drawn"] = "discard_drawn"
    flip: Position


class UndoLast(ActionModel):
    """Take back your last action (only while allowed, see the rules page)."""

    type: Literal["undo"] = "undo"


class NextRound(ActionModel):
    """After a round is scored: you have seen the revealed grids, deal the next round."""

    type: Literal["next_round"] = "next_round"


AnyAction = (
    FlipInitial | TakeDiscard | Draw | SwapDrawn | DiscardDrawn | UndoLast | NextRound | PickFlips
)

Action = Annotated[AnyAction, Field(discriminator="type")]

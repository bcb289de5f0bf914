"""Warp 99's actions: a tagged union on ``type``. Cards are ids 0..109 (see ``cards.py``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt

from rules.contract import ActionModel

# Strict: "3", 3.0 or true from the network are malformed, not card 3 (or 1).
CardId = Annotated[StrictInt, Field(ge=0, le=109)]


class ScoreRow(ActionModel):
    """Action A: score and clear your row before placing (forced when no card fits)."""

    type: Literal["score_row"] = "score_row"


class AddToRow(ActionModel):
    """Action A: place a hand card at the right end of your row."""

    type: Literal["add_to_row"] = "add_to_row"
    card: CardId


class PlayToPile(ActionModel):
    """Action B: play a hand card onto shared pile 0 or 1."""

    type: Literal["play_to_pile"] = "play_to_pile"
    card: CardId
    pile: Annotated[StrictInt, Field(ge=0, le=1)]


class FlipRule(ActionModel):
    """Action B, when stuck right after Action A: turn rule card 0, 1 or 2 over."""

    type: Literal["flip_rule"] = "flip_rule"
    rule: Annotated[StrictInt, Field(ge=0, le=2)]


class EndStep(ActionModel):
    """Finish the current step: B → C, and C (drawing back up to six) → next player."""

    type: Literal["end_step"] = "end_step"


AnyAction = ScoreRow | AddToRow | PlayToPile | FlipRule | EndStep

Action = Annotated[AnyAction, Field(discriminator="type")]

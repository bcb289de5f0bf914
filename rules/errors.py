"""The rules layer's one exception tree.

Every refusal of the rules is a :class:`RulesError` with a stable ``code`` (which the server
turns into a wire error code unchanged) and a message a player can read.
"""

from __future__ import annotations


class RulesError(Exception):
    """Base of every refusal by the rules. ``code`` is stable; ``message`` is for people."""

    code = "rules_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class InvalidAction(RulesError):
    """The action is malformed: unknown type, missing or mistyped fields."""

    code = "invalid_action"


class InvalidOptions(RulesError):
    """Game options that do not validate."""

    code = "invalid_options"


class InvalidSeatCount(RulesError):
    """A seat count outside the game's range."""

    code = "invalid_seat_count"


class NotYourTurn(RulesError):
    """The seat may not act now."""

    code = "not_your_turn"


class WrongPhase(RulesError):
    """The action exists but not in the current phase of the game."""

    code = "wrong_phase"


class GameOver(WrongPhase):
    """The game has ended; no more actions are taken."""

    code = "game_over"


class IllegalAction(RulesError):
    """Well-formed and in turn, but the rules forbid it."""

    code = "illegal_action"

"""Pure, synchronous game rules for Parlor: the contract, the registry and one package per game.

Nothing here does I/O, reads a clock or uses global randomness.
"""

from rules.contract import ActionModel, Event, Game, GameOptions, Result, View
from rules.errors import (
    GameOver,
    IllegalAction,
    InvalidAction,
    InvalidOptions,
    InvalidSeatCount,
    NotYourTurn,
    RulesError,
    WrongPhase,
)
from rules.registry import all_games, get_game, register
from rules.rng import Rng

__all__ = [
    "ActionModel",
    "Event",
    "Game",
    "GameOptions",
    "GameOver",
    "IllegalAction",
    "InvalidAction",
    "InvalidOptions",
    "InvalidSeatCount",
    "NotYourTurn",
    "Result",
    "Rng",
    "RulesError",
    "View",
    "WrongPhase",
    "all_games",
    "get_game",
    "register",
]

"""Number Swap: a 4x3 grid of cards each; swap to keep your total low over several rounds."""

from rules.numberswap.game import NumberSwap
from rules.registry import register

GAME = register(NumberSwap())

__all__ = ["GAME", "NumberSwap"]

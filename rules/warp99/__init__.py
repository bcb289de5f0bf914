"""Warp 99: race to 99 points with a rising personal row and two shared piles under rule cards."""

from rules.registry import register
from rules.warp99.game import Warp99

GAME = register(Warp99())

__all__ = ["GAME", "Warp99"]

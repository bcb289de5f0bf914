"""Floor: shed your hand onto a floor of shapes and numbers (2 to 8 players)."""

from rules.floor.game import Floor
from rules.registry import register

GAME = register(Floor())

__all__ = ["GAME", "Floor"]

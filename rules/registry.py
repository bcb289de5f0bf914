"""Maps game ids to game instances. The server reaches games only through here."""

from __future__ import annotations

from typing import Any

from rules.contract import Game

_GAMES: dict[str, Game[Any, Any]] = {}


def register(game: Game[Any, Any]) -> Game[Any, Any]:
    if game.id in _GAMES:
        raise ValueError(f"game id {game.id!r} registered twice")
    _GAMES[game.id] = game
    return game


def unregister(game_id: str) -> None:
    """Remove a game that :func:`register` added (tests register games of their own)."""
    try:
        del _GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}") from None


def get_game(game_id: str) -> Game[Any, Any]:
    _load_builtin()
    try:
        return _GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}") from None


def all_games() -> dict[str, Game[Any, Any]]:
    _load_builtin()
    return dict(_GAMES)


_loaded = False


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for module in _BUILTIN:
        importlib.import_module(module)


# Each module registers its game on import.
_BUILTIN: tuple[str, ...] = ("rules.numberswap", "rules.warp99", "rules.floor")

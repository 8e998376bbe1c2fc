"""Pure game rules for the card table: every game behind one contract (docs/ENGINE_CONTRACT.md).

    from engine import GAMES, get_game, CHANCE, IllegalAction

Each game is a subpackage of `engine.games` whose `__init__` exposes `GAME`; the registry finds
them, so adding a game touches nothing outside its own folder. `game_module(game_id, name)` is
the one way from a game id to its other modules (`bot`, `hidden`, `options`, …), and
`engine._mode.COMPILED` takes in a new game's modules by its rule.
"""

from __future__ import annotations

import importlib
import pkgutil

from engine import _mode  # noqa: F401  (first: chooses compiled or pure Python modules)
from engine import games as _games_pkg
from engine.core import (
    CHANCE,
    GAMES_PACKAGE,
    TAKE_BACK,
    Action,
    Event,
    Game,
    GameOptions,
    IllegalAction,
    Match,
    effective_log,
    game_module,
    unknown_field,
)


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(_games_pkg.__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{GAMES_PACKAGE}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found[game.id] = game
    return found


GAMES: dict[str, Game] = _discover()
"""Every registered game by id, e.g. GAMES["holy-grail"]."""


def get_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(sorted(GAMES))}") from None


__all__ = [
    "CHANCE",
    "GAMES",
    "TAKE_BACK",
    "Action",
    "Event",
    "Game",
    "GameOptions",
    "IllegalAction",
    "Match",
    "effective_log",
    "game_module",
    "get_game",
    "unknown_field",
]

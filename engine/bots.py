"""Bots: one per game, living beside its rules in `engine/games/<id>/bot.py`.

A bot sees a match only through the contract: `match.view(seat)` and
`match.legal_actions(seat)` (it never reads other seats' hands). Each game's bot module
defines `choose(view, legal, rng) -> action`.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

from engine.core import Action, IllegalAction, Match

Chooser = Callable[[dict[str, Any], list[Action], random.Random], Action]


def get_chooser(game_id: str) -> Chooser:
    module = importlib.import_module(f"engine.games.{game_id.replace('-', '_')}.bot")
    return module.choose


def bot_action(match: Match, seat: int, rng: random.Random) -> Action:
    """The action the game's bot picks for `seat` now, from that seat's view only."""
    legal = match.legal_actions(seat)
    if not legal:
        raise IllegalAction(f"seat {seat} has nothing to do")
    return get_chooser(match.game.id)(match.view(seat), legal, rng)

"""Fairy Five Hundred (`fairy-500`): see `rules.py` for the actions, the deal, the phases and the views."""

from engine.games.fairy_500.rules import FairyFiveHundredGame

GAME = FairyFiveHundredGame()

__all__ = ["GAME"]

"""Get the Holy Grail! (`holy-grail`): see `rules.py` for the actions, the deal and the views."""

from engine.games.holy_grail.rules import HolyGrailGame

GAME = HolyGrailGame()

__all__ = ["GAME"]

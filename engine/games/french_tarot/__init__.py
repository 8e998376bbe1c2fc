"""French Tarot (`french-tarot`, フレンチタロット): 3–5 players, bids, the dog, poignées, slams and
the excuse; see `rules.py` for the actions, the deal, the phases and the views."""

from engine.games.french_tarot.rules import FrenchTarotGame

GAME = FrenchTarotGame()

__all__ = ["GAME"]

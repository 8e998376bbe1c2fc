"""Yaya Fugou (`yaya-fugou`): see `rules.py` for the actions, the deal, the phases and the views."""

from engine.games.yaya_fugou.rules import YayaFugouGame

GAME = YayaFugouGame()

__all__ = ["GAME"]

"""French Tarot (フレンチタロット): 3–5 players, bids, the dog, poignées, slams and the excuse."""

from __future__ import annotations

from pydantic import Field

from engine.core import Game, GameOptions, IllegalAction

from .rules import FrenchTarotMatch


class FrenchTarotOptions(GameOptions):
    """Table options. The defaults are the seed's table: one hand per player, petit sec allowed."""

    petit_sec: bool = Field(default=True, title="Petit sec may cancel the deal / プチ・セックで配り直し可")
    """A player whose only trump is the 1 (without the excuse) may have the deal cancelled."""


class FrenchTarot(Game):
    id = "french-tarot"
    names = {"en": "French Tarot", "ja": "フレンチタロット"}
    min_players = 3
    max_players = 5
    Options = FrenchTarotOptions
    match_class = FrenchTarotMatch

    def check_options(self, options: GameOptions, players: int) -> None:
        super().check_options(options, players)
        if options.hands is not None and options.hands > 100:
            raise IllegalAction("a match has at most 100 hands", "1試合は100ハンドまでです")


GAME = FrenchTarot()

__all__ = ["GAME", "FrenchTarot", "FrenchTarotOptions"]

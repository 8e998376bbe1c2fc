"""Familia (ファミリア): a trick-taking game for 2–10 people in male and female roles, who win or
dodge face cards turned up as each trick's prize. Two people play the four-seat table, each
holding both seats of a man/woman pair."""

from __future__ import annotations

from typing import Any

from engine.core import Game, GameOptions, IllegalAction

from .config import Options, resolve
from .rules import FamiliaMatch


class FamiliaGame(Game):
    id = "familia"
    names = {"en": "Familia", "ja": "ファミリア"}
    min_players = 3
    """Seats, not people: two people play the four-seat table holding two seats each."""
    max_players = 10
    Options = Options
    match_class = FamiliaMatch

    def check_options(self, options: GameOptions, players: int) -> None:
        super().check_options(options, players)
        if not isinstance(options, Options):
            raise IllegalAction("these are not Familia options", "ファミリアの設定ではありません")
        resolve(options, players)

    def default_options(self, players: int) -> dict[str, Any]:
        """The seed's standard table. Seat-count dependent settings stay null ("the standard for
        the seat count", see config.resolve) so that a room changing its seat count keeps a valid
        table instead of carrying, say, four seats' teams into a six-seat room."""
        return Options().model_dump()


GAME = FamiliaGame()

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
            raise IllegalAction("these are not Familia options")
        resolve(options, players)

    def default_options(self, players: int) -> dict[str, Any]:
        """The seed's standard table for this seat count, every default spelt out."""
        table = resolve(Options(), players)
        return Options(
            teams=list(table.teams),
            roles=list(table.roles),  # type: ignore[arg-type]
            deals=table.deals,
            face_sets=table.face_sets,
            tricks=table.tricks,  # type: ignore[arg-type]
            hand_size=table.hand_size,
            hand_jokers=table.hand_jokers,
        ).model_dump()


GAME = FamiliaGame()

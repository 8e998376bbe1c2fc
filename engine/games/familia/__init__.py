"""Familia (`familia`, ファミリア): a trick-taking game for 2–10 people in male and female roles,
who win or dodge face cards turned up as each trick's prize; see `rules.py` for the actions, the
deal, the phases and the views."""

from engine.games.familia.rules import FamiliaGame

GAME = FamiliaGame()

__all__ = ["GAME"]

"""A game with no rules, timed by bench/peers.py as the floor under every game of this contract.

One shuffle, then `PLAYS` plays of one of seven listed actions, seats in turn, and the match ends
after one hand per player, as Holy Grail's does (a match that never ended would grow its log
without bound and time the garbage collector walking it): whatever a real game does costs on top
of this. It lives in the engine (not in bench/) so that `engine.build`
compiles it with the engine's base class, as the real games are compiled; it is not registered
in `engine.GAMES` (it is not a game anyone plays)."""

from __future__ import annotations

import random

from engine.cards import play_one
from engine.core import CHANCE, Action, Event, Game, Match
from engine.options import GameOptions

PLAYS = 112
"""Plays a hand: Holy Grail 4p's 112 cards (with one chance action a hand, as Holy Grail)."""

_ACTIONS = [play_one(card) for card in ("H1", "H2", "H3", "H4", "H5", "H6", "H7")]


class NoRulesMatch(Match):
    """Every hook does the least the contract allows."""

    PHASES = {"deal": "_apply_deal"}
    played: int

    def _setup(self) -> None:
        self.phase = "deal"
        self.played = 0

    def _to_act(self) -> list[int]:
        if self.phase == "play":
            return [self.played % self.players]
        return [CHANCE] if self.phase == "deal" else []

    def _legal_actions(self, seat: int) -> list[Action]:
        return list(_ACTIONS)

    def random_chance_action(self, rng: random.Random) -> Action:
        return {"type": "shuffle"}

    def _apply_deal(self, seat: int, action: Action) -> list[Event]:
        self.phase = "play"
        return []

    def _perform(self, seat: int, action: Action) -> list[Event]:
        self.played += 1
        if self.played == PLAYS:
            self.played = 0
            self.hands.append({"scores": [0] * self.players})
            self.phase = "deal" if len(self.hands) < self.players else "match_over"
        return [{"type": "play", "seat": seat, "card": action["cards"][0]}]


class NoRulesGame(Game):
    id = "no-rules"
    names = {"en": "No rules"}
    min_players = 4
    max_players = 4
    Options = GameOptions
    match_class = NoRulesMatch

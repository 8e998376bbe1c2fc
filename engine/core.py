"""The engine contract's base classes: a `Game` describes one card game, a `Match` is one
table's play of it from the first shuffle to the end of the last hand.

Everything here is pure: no I/O, no clock, no global state. A match changes only through
`apply`, and every applied action (chance included) is appended to `log`, so
`Game.replay(players, options, log)` rebuilds the exact same match.

A game subclasses both classes. The subclass of `Match` implements the `_`-prefixed hooks;
its `_apply` must validate completely before it mutates anything, so that an `IllegalAction`
leaves the match untouched.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

CHANCE = -1
"""The seat of chance: shuffles (and other random draws) are actions of this seat."""

Action = dict[str, Any]
Event = dict[str, Any]


class IllegalAction(ValueError):
    """Raised by `Match.apply` for any action the rules or the seat do not allow."""

    def __init__(self, reason: str, ja: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        # The same reason in Japanese, where the engine has one (option checks); None otherwise.
        self.ja = ja


class GameOptions(BaseModel):
    """Base of every game's `Options`: immutable, and strict about unknown keys so that a
    misspelt option is an error rather than a silently ignored setting."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hands: int | None = None
    """Hands in a match; None means the game's default (usually one per player)."""


class Match:
    """One play of a game. Subclasses implement the hooks below."""

    game: Game

    def __init__(self, game: Game, players: int, options: GameOptions, seed: int | None = None) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.rng = random.Random(seed)
        self.log: list[tuple[int, Action]] = []
        self.hands: list[dict[str, Any]] = []
        self.scores: list[int | float] = [0] * players
        self._setup()

    # ---- hooks for each game -------------------------------------------------------------
    def _setup(self) -> None:
        """Initialise the state before the first action (usually: await a CHANCE shuffle)."""
        raise NotImplementedError

    def to_act(self) -> list[int]:
        """Seats (or CHANCE) whose decision is awaited; [] when the match is over."""
        raise NotImplementedError

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of `seat` now (empty when it is not that seat's turn)."""
        raise NotImplementedError

    def _apply(self, seat: int, action: Action) -> list[Event]:
        """Validate, then perform `action`; raise IllegalAction before mutating anything."""
        raise NotImplementedError

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator). Never another seat's hidden cards."""
        raise NotImplementedError

    def random_chance_action(self, rng: random.Random) -> Action:
        """The chance action (usually a shuffle) the match awaits, drawn from `rng`."""
        raise NotImplementedError

    @property
    def teams(self) -> list[int] | None:
        """Team number per seat when seats share one score (each such seat's `scores` entry is
        the team's total), or None when every seat plays for itself. Leaderboards use it to
        credit a person holding several seats of one team only once."""
        return None

    # ---- shared behaviour -----------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return not self.to_act()

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one action of `seat`; the match is unchanged if it raises IllegalAction."""
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise IllegalAction("an action must be an object with a string 'type'")
        if seat not in self.to_act():
            if self.is_over:
                raise IllegalAction("the match is over")
            raise IllegalAction(f"it is not seat {seat}'s turn")
        events = self._apply(seat, dict(action))
        self.log.append((seat, dict(action)))
        return events

    def deal_random(self, rng: random.Random | None = None) -> list[Event]:
        """Build the awaited chance action from `rng` (default: the match's seeded RNG) and apply it."""
        if CHANCE not in self.to_act():
            raise IllegalAction("no chance action is awaited")
        return self.apply(CHANCE, self.random_chance_action(rng or self.rng))

    # ---- search support (contract extension; the work lives in engine/infoset.py) ------------------
    def clone(self) -> Match:
        """An independent copy to try actions on; the original is untouched."""
        from engine.infoset import clone

        return clone(self)

    def determinize(self, seat: int, rng: random.Random) -> Match:
        """A full match consistent with everything `seat` has seen, the unseen cards drawn from
        `rng`: `view(seat)` is unchanged and its log replays legally. Raises
        `engine.infoset.DeterminizeFailed` when no such deal is found in reasonable time."""
        from engine.infoset import determinize

        return determinize(self, seat, rng)


class Game:
    """One card game: its identity, player counts and options, and a factory for matches."""

    id: ClassVar[str]
    names: ClassVar[dict[str, str]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Options: ClassVar[type[GameOptions]]
    match_class: ClassVar[type[Match]]

    def parse_options(self, options: Mapping[str, Any] | GameOptions | None, players: int) -> GameOptions:
        """Validate options for a table of `players`; raises IllegalAction with a readable reason."""
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction(
                f"{self.names['en']} is for {self.min_players}–{self.max_players} players, not {players}",
                f"{self.names.get('ja', self.names['en'])}は{self.min_players}〜{self.max_players}人用です"
                f"（{players}人では遊べません）",
            )
        if isinstance(options, GameOptions):
            parsed = options
        else:
            try:
                parsed = self.Options.model_validate(dict(options or {}))
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}"
                    for err in exc.errors()
                )
                raise IllegalAction(
                    f"invalid options: {problems}", f"設定の値が正しくありません（{problems}）"
                ) from None
        self.check_options(parsed, players)
        return parsed

    def check_options(self, options: GameOptions, players: int) -> None:
        """Reject option combinations the rules do not allow for this player count."""
        if options.hands is not None and options.hands < 1:
            raise IllegalAction("a match needs at least one hand", "1ハンド以上を指定してください")

    def new_match(
        self, players: int, options: Mapping[str, Any] | GameOptions | None = None, seed: int | None = None
    ) -> Match:
        return self.match_class(self, players, self.parse_options(options, players), seed)

    def replay(
        self, players: int, options: Mapping[str, Any] | GameOptions | None, log: list[tuple[int, Action]]
    ) -> Match:
        """Rebuild a match from its log; the result is the same match, state for state."""
        match = self.new_match(players, options)
        for seat, action in log:
            match.apply(int(seat), action)
        return match

    def default_options(self, players: int) -> dict[str, Any]:
        """The seed's default table for this player count, JSON-ready."""
        return self.Options().model_dump()

    def __repr__(self) -> str:
        return f"<Game {self.id}>"

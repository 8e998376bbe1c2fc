"""Bots: one per game, living beside its rules in `engine/games/<id>/bot.py`, at two levels.

A bot sees a match only through the contract: `match.view(seat)` and
`match.legal_actions(seat)` (it never reads other seats' hands). Each game's bot module
defines `choose(view, legal, rng) -> action`: that is the `basic` level. The `strong` level
searches (engine/search.py) over deals consistent with the seat's view (engine/infoset.py),
with the basic bots playing the hands out, within a time budget per decision.

This module is the one place a clock is read: the search itself is deterministic and only
asks `should_stop()`, which the budget turns into a deadline here.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, Literal

from engine.core import Action, IllegalAction, Match, game_module
from engine.infoset import clone
from engine.search import search_action

Chooser = Callable[[dict[str, Any], list[Action], random.Random], Action]
Level = Literal["basic", "strong"]
LEVELS: tuple[str, ...] = ("basic", "strong")

DEFAULT_BUDGET = 0.2
"""Seconds a strong bot thinks per decision unless told otherwise."""

MAX_BUDGET = 0.5
"""Hard limit: a larger budget is cut to this, so a table never waits longer on a bot."""


def get_chooser(game_id: str) -> Chooser:
    module = game_module(game_id, "bot")
    if module is None:
        raise KeyError(f"the game {game_id!r} has no bot module")
    return module.choose


Clock = Literal["wall", "cpu"]
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""How a budget is counted: wall-clock time (the table waits on it: the default), or this
process's CPU time (a benchmark on a shared, loaded machine, so that load does not weaken the
bot being measured)."""


def bot_action(
    match: Match,
    seat: int,
    rng: random.Random,
    level: Level = "basic",
    budget: float = DEFAULT_BUDGET,
    clock: Clock = "wall",
) -> Action:
    """The action the game's bot picks for `seat` now, from that seat's view only.

    `level="strong"` searches for up to `budget` seconds (at most MAX_BUDGET) of `clock`."""
    legal = match.legal_actions(seat)
    if not legal:
        raise IllegalAction(f"seat {seat} has nothing to do")
    choose = get_chooser(match.game.id)
    if level == "basic" or len(legal) == 1:
        return choose(match.view(seat), legal, rng)
    if level != "strong":
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}")
    now = CLOCKS.get(clock)
    if now is None:
        raise ValueError(f"unknown clock {clock!r}; known: {', '.join(CLOCKS)}")
    deadline = now() + min(max(budget, 0.0), MAX_BUDGET)
    return search_action(match, seat, rng, choose, should_stop=lambda: now() >= deadline)


def suggestion(
    match: Match,
    seat: int,
    rng: random.Random,
    budget: float = DEFAULT_BUDGET,
    iterations: int | None = None,
    clock: Clock = "wall",
) -> list[Action]:
    """A hint: the strong bot's choice for `seat` now, from that seat's view and what it has
    seen only (the search draws the other hands anew, engine/infoset.py), with `iterations`
    guesses per action when given (the same answer for the same seat's knowledge and `rng`),
    else `budget` seconds of `clock` per action. A set the game takes one card per action
    (French Tarot's discard: the seat's face-down actions of one type in a row) comes whole, as
    those actions in order; any other choice is one action. `match` is left unchanged."""
    legal = match.legal_actions(seat)
    if not legal:
        raise IllegalAction(f"seat {seat} has nothing to do")
    trial = clone(match)
    choose = get_chooser(match.game.id)
    chosen: list[Action] = []
    while True:
        legal = trial.legal_actions(seat)
        if len(legal) == 1:
            action = legal[0]
        elif iterations is not None:
            action = search_action(trial, seat, rng, choose, iterations=iterations)
        else:
            action = search_action(trial, seat, rng, choose, should_stop=_deadline(budget, clock))
        chosen.append(action)
        kind = action.get("type")
        if kind not in trial.FACE_DOWN_ACTIONS or not isinstance(action.get("cards"), list):
            return chosen
        trial.apply(seat, action)
        if seat not in trial.to_act() or not any(a.get("type") == kind for a in trial.legal_actions(seat)):
            return chosen


def _deadline(budget: float, clock: Clock) -> Callable[[], bool]:
    """A `should_stop` that turns true `budget` seconds (at most MAX_BUDGET) of `clock` from now."""
    now = CLOCKS[clock]
    deadline = now() + min(max(budget, 0.0), MAX_BUDGET)
    return lambda: now() >= deadline

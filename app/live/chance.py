"""Chance for live matches: fresh randomness, or a same-deal rematch's planned deals.

Every shuffle and draw a live match awaits is settled here as soon as it is due, right after the
action that made it due and before the commit, so a chance action never waits for a turn of
its own. A rematch with `same_deals_as` deals its source match's chance actions in log order
(the plan is a pure function of the source's stored log: app/store/rematch.py); where the plan runs
out or the engine refuses a planned action (the options changed since), fresh cards are dealt.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from typing import Any

from app.store.matches import MatchStore
from app.store.rematch import DealPlan, PlanCache, plan_deals
from engine import CHANCE, IllegalAction, Match, get_game

log = logging.getLogger(__name__)


def chance_rng() -> random.Random:
    """A generator nobody can predict (seeded from `secrets`), for shuffles and bots alike."""
    return random.Random(secrets.randbits(128))


class Randomness:
    """Where chance and bots get their random numbers: fresh ones, or with a `deal_seed`
    (CARDTABLE_DEAL_SEED, for tests and demonstrations) ones fixed by the seed and the match's
    game, seats and log length, so the same seed deals the same cards (and basic bots play
    alike) whenever the move is made."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def for_match(self, match: Match, fresh: random.Random | None = None) -> random.Random:
        """The generator for the match's next chance action or bot move: `fresh` (or a new one)."""
        if self.seed is None:
            return fresh or chance_rng()
        return random.Random(f"{self.seed}:{match.game.id}:{match.players}:{len(match.log)}")


def settle_chance(
    match: Match, deals: DealPlan | None = None, randomness: Randomness | None = None
) -> list[dict[str, Any]]:
    """Apply every chance action the match awaits (shuffles, draws): the planned one of a
    same-deal rematch while its plan lasts and the engine accepts it, else random cards from
    `randomness` (fresh ones by default)."""
    events: list[dict[str, Any]] = []
    rng: random.Random | None = None
    while CHANCE in match.to_act():
        planned = deals.next_action(match) if deals is not None else None
        if planned is not None:
            try:
                events.extend(match.apply(CHANCE, planned))
                continue
            except IllegalAction as exc:  # e.g. the options changed since: deal fresh cards
                log.info("planned deal refused (%s); dealing at random", exc.reason)
        rng = (randomness or Randomness()).for_match(match, rng)
        events.extend(match.deal_random(rng))
    return events


class DealPlans:
    """The plans of recently used source matches, built from their stored logs on first use."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self._plans = PlanCache()

    async def plan(self, source_id: int, rotate: bool) -> DealPlan:
        """The chance actions of finished match `source_id` (rotated one seat when asked)."""
        plan = self._plans.get(source_id, rotate)
        if plan is None:
            source = await self.store.load(source_id)
            game = get_game(source.game_id)
            actions = await asyncio.to_thread(
                plan_deals, game, source.players, source.options, source.log, rotate
            )
            plan = DealPlan(source_id=source_id, rotate=rotate, actions=tuple(actions))
            self._plans.put(plan)
        return plan

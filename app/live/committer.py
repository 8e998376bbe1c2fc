"""One table's commits: an action applied to the live match, then written to the log before
anyone hears of it.

Processing one action (the table's lock held by the caller):
1. the engine validates and applies it on the live match (`IllegalAction` leaves it untouched),
2. any chance actions the match now awaits are drawn from a fresh `secrets`-seeded RNG and applied
   (a same-deal rematch takes them from its source match's log instead: app/live/chance.py),
3. the new log rows (plus finished hands and final results) are committed in one transaction
   by `MatchStore.append`; if that fails the commit raises `Unsaved` and the table drops its
   cached match, to rebuild it from the log,
4. the shared snapshot of the new version is rebuilt once (app/live/snapshots.py) and the turn
   timers follow the new turns (app/live/deadlines.py). Publishing is the table's next step.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from app.live.chance import settle_chance
from app.live.hand_log import auto_mark
from app.live.live_match import LiveMatch
from app.live.races import log_commit_failure
from app.live.refusals import ActionRejected
from app.store.matches import Controller, HandRecord, SeatNotHeld, SeatResult
from engine import CHANCE, IllegalAction, Match

if TYPE_CHECKING:
    from app.live.tables import TableService

log = logging.getLogger("app.live.tables")


class Unsaved(ActionRejected):
    """A refusal after which the cached match cannot be trusted (nothing was written, but the
    engine or the commit may have changed it): the table rebuilds it from the log."""


def final_ranks(match: Match) -> list[int]:
    """Rank per seat (1 = best, ties share a rank). A game may define `final_ranks()` itself
    (e.g. tie-breaks from its rules); otherwise the higher cumulative score ranks first."""
    custom = getattr(match, "final_ranks", None)
    if callable(custom):
        return [int(r) for r in custom()]
    scores = list(match.scores)
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


class Committer:
    """Moves one table's live match forward by committed steps; the table calls it under its
    lock. Shared things (the store, randomness, metrics, the deadline clock) come from the
    registry, read at each call since the app sets some of them after start-up."""

    def __init__(self, tables: TableService) -> None:
        self.tables = tables

    async def apply_and_commit(
        self, live: LiveMatch, seat: int, action: dict[str, Any], auto: str | None = None
    ) -> None:
        """Apply `action` (and any chance that follows) and commit it; see the module docstring.
        `auto` ("time" or "away") marks a bot's move for a person's seat (app/live/hand_log.py)."""
        before = live.version
        try:
            events = live.match.apply(seat, action)
            if auto is not None:
                events = [auto_mark(seat, auto, before + 1, len(events)), *events]
        except IllegalAction as exc:
            raise ActionRejected("illegal", exc.reason) from None
        except Exception:
            # The contract says bad input raises IllegalAction; anything else is an engine bug
            # that may have left the match half-changed, so rebuild it from the log.
            log.exception("engine error on match %s for %r", live.match_id, action)
            raise Unsaved("illegal", "the game could not apply this action") from None
        events.extend(settle_chance(live.match, live.deals, self.tables.randomness))
        refusal = "the action could not be saved; the table was reloaded"
        if auto is not None:  # before the commit: a reader connecting right after it sees the mark
            live.auto_moves[before + 1] = (seat, auto)
        try:
            await self.commit_or_refuse(live, before, events, refusal)
        except ActionRejected:
            live.auto_moves.pop(before + 1, None)
            raise

    async def apply_chance(self, live: LiveMatch) -> None:
        """Deal (or draw) what chance must, and commit it."""
        before = live.version
        events = settle_chance(live.match, live.deals, self.tables.randomness)
        await self.commit_or_refuse(live, before, events, "the shuffle could not be saved")

    async def commit_or_refuse(
        self, live: LiveMatch, before: int, events: list[dict[str, Any]], refusal: str
    ) -> None:
        """Commit the entries after `before`; `Unsaved` when the database refused them."""
        started = time.perf_counter()
        try:
            await self.commit(live, before)
        except SeatNotHeld:
            # The database says someone else holds the seat now: nothing was written.
            raise Unsaved("forbidden", "this seat is no longer yours; the table was reloaded") from None
        except Exception as exc:
            log_commit_failure(log, exc, "could not commit match %s at version %s", live.match_id, before)
            raise Unsaved("stale", refusal) from None
        committed = time.perf_counter()
        live.now_committed(events)
        live.current_snapshot()  # rebuild what readers of the last version look at, once
        metrics = self.tables.metrics
        if metrics is not None:
            built = time.perf_counter()
            metrics.committed(live.version - before, committed - started, built - committed)
        await self.turns_changed(live, before)

    async def turns_changed(self, live: LiveMatch, before: int) -> None:
        """Turn timers follow the committed turns (app/live/deadlines.py); the action is committed
        already, so a failure here is logged, never reported as a refusal."""
        clock = self.tables.clock
        if live.turn_timer is None or clock is None:
            return
        try:
            await clock.turns_changed(live, before)
        except Exception:
            log.exception("could not update the turn timers of match %s", live.match_id)

    async def commit(self, live: LiveMatch, before: int) -> None:
        """One transaction: the new log rows, finished hands, and at the end the results."""
        match = live.match
        finished = match.hands[live.hands_stored :] if match.hands_done > live.hands_stored else []
        hands = [
            HandRecord(
                hand_no=int(hand.get("hand_no", index + 1)),
                scores=list(hand["scores"]),
                details={k: v for k, v in hand.items() if k != "scores"},
            )
            for index, hand in enumerate(finished, start=live.hands_stored)
        ]
        final = None
        if match.is_over:
            final = [
                SeatResult(seat=seat, score=float(score), rank=rank)
                for seat, (score, rank) in enumerate(zip(match.scores, final_ranks(match), strict=True))
            ]
        actor = match.log[before][0] if len(match.log) > before else CHANCE
        holder = None if actor == CHANCE else live.controllers.get(actor, Controller(kind="empty"))
        mark = live.auto_moves.get(before + 1)  # a bot's move for a person: stored with the action
        auto = mark[1] if mark is not None else None
        await self.tables.store.append(
            live.match_id, before, match.log[before:], hands, final, match.teams, holder, auto
        )
        live.hands_stored = match.hands_done
        live.finished = match.is_over
        if final is not None and self.tables.match_ended is not None:
            self.tables.match_ended(live.match_id)

"""One table's automatic seats: chance, bots, and a person's seat that a bot plays for (a
"stand-in" while they are away, or one move when their turn timer ran out).

One background task per table plays them, bots after `bot_delay` seconds so people can follow
the play. A strong bot thinks in a worker process (app/live/bot_pool.py) during that delay,
without holding the table's lock; its answer counts only if the match has not moved meanwhile.
A bot playing for a person always plays at the strong level, whatever the server's default:
a person's stand-in must play at least as well as the room's strong bot.

That task runs in the process that last had reason to start it (a person's action, a start, a
seat change, a restart). Any other process serving the match's room watches it: when a reader
there is sent a state whose next move is automatic and no automation of its own runs, and the
match has not moved `bot_delay + TAKEOVER_AFTER` seconds after its last commit (the database's
clock: `MatchStore.quiet_for`), it starts its own (the owner died). Should the owner only have
been slow, both play until the next person's turn; the version check of every commit keeps that
to one move per turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import TYPE_CHECKING, Any

from app.live.chance import chance_rng
from app.live.live_match import LiveMatch
from app.live.refusals import ActionRejected
from engine import CHANCE, IllegalAction
from engine.bots import get_chooser

if TYPE_CHECKING:
    from app.live.table import Table

log = logging.getLogger("app.live.tables")

SLOW_BOT_SECONDS = 0.002
"""A game whose bot once took longer than this to decide thinks in a worker thread from then on,
so it cannot stall every other table; quicker bots run in the event loop (a thread hand-off
costs more than their whole decision)."""
TAKEOVER_AFTER = 1.5
"""Seconds beyond the bot delay that an automatic move may be late, counted from its table's
last commit, before another process that serves the room plays it (a strong bot's search, 0.5 s
at most, runs within the delay). An owner that was only slow costs a duplicate attempt, which
the commit's version check refuses."""


class Automation:
    """The automatic seats of one table: the task that plays them (`task`), the person seats a
    bot plays for while their person is away (`stand_ins`), the seats whose turn timer ran out
    with the version of that one move (`timed_out`), and the task that takes the automation over
    if the process playing it stays silent (`watch`). All of it outlives a rebuilt cache."""

    __slots__ = ("stand_ins", "table", "task", "timed_out", "watch")

    def __init__(self, table: Table) -> None:
        self.table = table
        self.task: asyncio.Task[None] | None = None
        self.watch: asyncio.Task[None] | None = None
        self.stand_ins: set[int] = set()
        self.timed_out: dict[int, int] = {}

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def idle(self) -> bool:
        """No task runs for the table."""
        return all(task is None or task.done() for task in (self.task, self.watch))

    # ---- who plays next ---------------------------------------------------------------------------
    def automatic_seat(self, live: LiveMatch) -> int | None:
        """The seat the automation plays next: chance, a bot, or a person's seat that a bot
        plays for (its person is away, or its turn timer ran out at this version)."""
        if live.finished:
            return None
        acting = live.match.to_act()
        if CHANCE in acting:
            return CHANCE
        for seat in acting:
            controller = live.controllers.get(seat)
            if controller is None:
                continue
            if controller.kind == "bot":
                return seat
            if seat in self.stand_ins or self.timed_out_at(live, seat):
                return seat
        return None

    def settled_for_people(self) -> bool:
        """Whether the cached match, with no commit in flight and its seating known, awaits only
        people: the automation would start, find nothing to play and stop. At a table of four
        people that was a task, a lock and a fresh RNG per move for nothing (docs/BENCHMARKS.md)."""
        live = self.table.live
        if live is None or live.seats_stale or live.committed != live.version:
            return False
        return self.automatic_seat(live) is None

    def timed_out_at(self, live: LiveMatch, seat: int) -> bool:
        return self.timed_out.get(seat) == live.version

    def stands_in(self, live: LiveMatch, seat: int) -> bool:
        """Whether the automation plays this person's seat because they are away (not a timer)."""
        controller = live.controllers.get(seat)
        return (
            controller is not None
            and controller.kind == "person"
            and seat in self.stand_ins
            and not self.timed_out_at(live, seat)
        )

    def auto_reason(self, live: LiveMatch, seat: int) -> str | None:
        """Why the automation moves this seat: "time" (its turn timer ran out), "away" (a bot
        stands in for its person), or None for a bot's own seat."""
        controller = live.controllers.get(seat)
        if controller is None or controller.kind != "person":
            return None
        return "time" if self.timed_out_at(live, seat) else "away"

    def time_out(self, seat: int, version: int) -> None:
        """The seat's turn timer ran out at `version`: the automation plays that one move."""
        for stale in [s for s, v in self.timed_out.items() if v != version]:
            del self.timed_out[stale]
        self.timed_out[seat] = version

    # ---- the tasks -------------------------------------------------------------------------------
    def kick(self) -> None:
        """Make sure a task plays this table's bots and chance if any are to act."""
        if self.table.tables.closed or self.running or self.settled_for_people():
            return
        self.task = asyncio.create_task(self.run(), name=f"bots-{self.table.match_id}")

    def watch_owner(self, live: LiveMatch) -> None:
        """A reader here was sent this match's committed state: if an automatic move is due and
        no automation of this process plays the match, make sure one will if nobody else does."""
        if self.table.tables.closed or self.watch is not None or live.committed != live.version:
            return
        if self.running or self.automatic_seat(live) is None:
            return
        self.watch = asyncio.create_task(
            self._take_over_if_silent(live.committed), name=f"watch-{live.match_id}"
        )

    async def _take_over_if_silent(self, version: int) -> None:
        """Start this process's automation of the match if it is still at `version` once its
        owner had time to move: the owner died (or hangs), so nobody else will. While the bus
        tells of newer commits with automatic moves still due, it keeps watching.

        The first wait counts from when `version` was committed, not from now: a process that
        has just loaded the match (its person reconnected here after the owner died) may find
        the table silent for a while already."""
        table, tables = self.table, self.table.tables
        match_id = table.match_id
        patience = tables.bot_delay + TAKEOVER_AFTER
        try:
            wait = patience - await tables.store.quiet_for(match_id, version)
            while True:
                await asyncio.sleep(max(0.0, wait))
                wait = patience
                live = table.live
                if live is None or live.committed == version:
                    if await tables.store.version(match_id) == version:
                        log.info("match %s stayed at version %s: this process plays it", match_id, version)
                        self.kick()
                    return
                if live.committed != live.version or self.running:
                    return
                if tables.closed or self.automatic_seat(live) is None:
                    return
                version = live.committed  # the owner moved; watch its next move
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not check whether match %s is still played", match_id)
        finally:
            if self.watch is asyncio.current_task():
                self.watch = None

    async def close(self) -> None:
        """Stop both tasks (the process is shutting down)."""
        tasks = [task for task in (self.task, self.watch) if task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.task = self.watch = None

    # ---- deciding --------------------------------------------------------------------------------
    @staticmethod
    def _bot_action(live: LiveMatch, seat: int, rng: random.Random) -> dict[str, Any]:
        """The game's basic bot for `seat`, given its view and the legal actions already computed."""
        legal = live.legal(seat) or live.match.legal_actions(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} has nothing to do")
        return get_chooser(live.game.id)(live.match.view(seat), legal, rng)

    async def _decide(self, live: LiveMatch, seat: int, rng: random.Random) -> dict[str, Any]:
        """The basic bot's action (call with the lock held), in a thread for games with slow bots."""
        tables = self.table.tables
        if live.game.id in tables.slow_bots:
            live.busy = True
            try:
                return await asyncio.to_thread(self._bot_action, live, seat, rng)
            finally:
                live.busy = False
        started = time.perf_counter()
        action = self._bot_action(live, seat, rng)
        seconds = time.perf_counter() - started
        if seconds > SLOW_BOT_SECONDS:
            tables.slow_bots.add(live.game.id)
        if tables.metrics is not None:
            tables.metrics.bot_decided("basic", seconds)
        return action

    def level(self, live: LiveMatch, seat: int) -> str:
        """The level the bot that moves `seat` plays at: a seated bot's own (or the server's
        default), and always the strong one for a person's seat (a stand-in or a timed-out move)."""
        controller = live.controllers.get(seat)
        if controller is not None and controller.kind == "person":
            return "strong"
        return (controller.level if controller is not None else None) or self.table.tables.bot_level

    def _searches(self, live: LiveMatch, seat: int) -> bool:
        """Whether this seat's bot thinks in a worker: a strong bot with a real choice to make."""
        return self.level(live, seat) == "strong" and live.legal_count(seat) > 1

    async def _thought(self, thinking: asyncio.Future[dict[str, Any]]) -> dict[str, Any] | None:
        """A worker's answer, or None (the basic bot then plays) if the worker failed."""
        try:
            return await thinking
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("strong bot of match %s failed; the basic bot plays this move", self.table.match_id)
            return None

    async def run(self) -> None:
        """Play chance at once and bots after `bot_delay`, until a person is to act or it ends.

        A strong bot thinks in a worker process during the delay (not under the lock, so people
        and readers never wait for it); its answer is used only if the match is still at the
        version it thought about, else it thinks again.
        A commit that fails (e.g. another server process wrote first) only costs a retry from the
        rebuilt match; a bot proposing an illegal action is a bug and stops the loop loudly."""
        table, tables = self.table, self.table.tables
        rng = chance_rng()
        failures = 0
        loop = asyncio.get_running_loop()
        try:
            while True:
                thinking: asyncio.Future[dict[str, Any]] | None = None
                async with table.lock:
                    live = await table.seated()
                    seat = self.automatic_seat(live)
                    if seat is None:
                        # Leave under the lock, so a later kick() always sees this task gone.
                        self.task = None
                        return
                    thought_at = live.version
                    if seat != CHANCE and self._searches(live, seat):
                        seed = tables.randomness.for_match(live.match, rng).getrandbits(64)
                        thinking = tables.bots.decide(table.match_id, live.match, seat, seed)
                started = loop.time()
                action = await self._thought(thinking) if thinking is not None else None
                if action is not None and tables.metrics is not None:
                    tables.metrics.bot_decided("strong", loop.time() - started)
                if seat != CHANCE and tables.bot_delay > 0:
                    await asyncio.sleep(max(0.0, tables.bot_delay - (loop.time() - started)))
                try:
                    async with tables.bot_turns, table.lock:
                        live = await table.seated()
                        if self.automatic_seat(live) != seat:
                            continue
                        if thinking is not None and live.version != thought_at:
                            continue  # the match moved while the bot thought: think again
                        if self.stands_in(live, seat) and not await self._still_away(live, seat):
                            self.stand_ins.discard(seat)
                            continue  # the person came back (perhaps to another process)
                        if seat == CHANCE:
                            await table.commit_chance(live)
                        else:
                            if action is None:
                                action = await self._decide(
                                    live, seat, tables.randomness.for_match(live.match, rng)
                                )
                            await table.commit(live, seat, action, self.auto_reason(live, seat))
                except ActionRejected as rejected:
                    failures += 1
                    # "forbidden": the seat changed hands meanwhile; the reloaded table decides
                    if rejected.code not in ("stale", "forbidden") or failures >= 5:
                        raise
                    await asyncio.sleep(0.05 * failures)
                    continue
                failures = 0
                await table.publish()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("automatic play of match %s stopped", table.match_id)
            self.task = None

    async def _still_away(self, live: LiveMatch, seat: int) -> bool:
        clock = self.table.tables.clock
        if clock is None:
            return False
        controller = live.controllers.get(seat)
        return bool(await clock.standing_in(live.room_id, seat, controller.person_id if controller else None))

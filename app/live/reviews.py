"""Match reviews run in the background, in worker processes, never on the event loop.

When a match ends, the transaction that finishes it queues its review (app/store/analyses.py)
and the table service wakes this process's `Reviews`; every process also looks for waiting
reviews at start-up and every `analysis_poll` seconds, so a review queued by another process, or
left by one that died (its lease runs out), is picked up. Each process runs at most
`analysis_workers` reviews at once (1 by default), each in a process of its own pool: a sibling of
the strong bots' pool (app/live/bot_pool.py: forked by the same forkserver, ended with the server
by a pidfd however it dies) at the lowest CPU priority (niceness 19, the bots' workers have 10)
in a scheduling group of its own, so live tables and bots are served first when the cores are
busy (docs/BENCHMARKS.md, "Live tables while reviews run").

The worker (`analyse_job`, in app/live/review_worker.py) replays the log with engine/analysis.py
at the configured budget, the match id as its random seed (a redone job finds the same numbers)
and the moves the server made for people (`match_actions.auto`) marked, so that they are kept
out of the people's figures,
and writes to PostgreSQL itself on its own connection: the progress with a lease renewal every
`analysis_beat` seconds (through the analysis's `progress` and `should_stop` hooks, so also inside
a long decision), and at the end the whole result in one statement, only if the job is still its
own. If its lease was taken over meanwhile (this process looked dead), it stops and stores nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app.live.bot_pool import kill_workers, start_workers
from app.live.review_worker import WORKER_NICENESS, Job, analyse_job
from app.metrics import Metrics
from app.store import analyses as store
from app.store.db import REVIEW, Database
from app.store.matches import MatchStore
from engine.analysis import Budget

log = logging.getLogger(__name__)


class Reviews:
    """This process's share of the review jobs (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        matches: MatchStore,
        owner: str,
        *,
        workers: int,
        budget: Budget,
        lease: float,
        beat: float,
        poll: float,
        metrics: Metrics | None = None,
    ) -> None:
        self.db = db
        self.matches = matches
        self.owner = owner
        self.workers = workers
        self.budget = budget
        self.lease = lease
        self.beat = beat
        self.poll = poll
        self.metrics = metrics
        self.running: dict[int, asyncio.Task[None]] = {}
        """Jobs of this process now, by match id."""
        self.finished: list[tuple[int, str]] = []
        """(match id, outcome) of this process's jobs so far (tests and operators read it)."""
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._starting: asyncio.Future[ProcessPoolExecutor] | None = None

    async def start(self) -> None:
        if self.workers > 0:
            self._loop_task = asyncio.create_task(self._run(), name="reviews")

    def kick(self) -> None:
        """Look for waiting reviews now (a match ended here, or someone asked for a review)."""
        self._wake.set()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self._fill()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database may be restarting; the next look tries again
                log.warning("looking for match reviews failed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll)

    async def _fill(self) -> None:
        """Claim waiting jobs while this process has a free worker."""
        while len(self.running) < self.workers:
            async with self.db.session() as session:
                claim = await store.claim(session, self.owner, self.lease)
                if self.metrics is not None:
                    self.metrics.analyses_queued(*await store.counts(session))
            if claim is None:
                return
            self.running[claim.match_id] = asyncio.create_task(
                self._analyse(claim), name=f"review-{claim.match_id}"
            )

    async def _analyse(self, claim: store.Claim) -> None:
        started = time.perf_counter()
        outcome = "redone"
        try:
            stored = await self.matches.load(claim.match_id)
            job = Job(
                database=self.db.conninfo(REVIEW), owner=self.owner, lease=self.lease, beat=self.beat,
                match_id=claim.match_id, seats=claim.seats, game_id=stored.game_id, players=stored.players,
                options=stored.options, log=stored.log, budget=self.budget.as_dict(),
                auto={version: reason for version, (_, reason) in stored.auto_moves.items()},
            )  # fmt: skip
            executor = await self._executor()
            try:
                result = await asyncio.get_running_loop().run_in_executor(executor, analyse_job, job)
            except BrokenProcessPool:  # the worker died (killed, out of memory): a fresh pool next time
                self._retire(executor)
                raise
            outcome = {"done": "ok", "failed": "failed"}.get(result.status, "redone")
            if self.metrics is not None:
                self.metrics.analysis_finished(outcome, time.perf_counter() - started, result.cpu_seconds)
            log.info(
                "review of match %s (attempt %s): %s, %.1f CPU s",
                claim.match_id, claim.attempt, result.status, result.cpu_seconds,
            )  # fmt: skip
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the review of match %s could not run; it goes back to the queue", claim.match_id)
            if self.metrics is not None:
                self.metrics.analysis_finished(outcome, time.perf_counter() - started, None)
            with contextlib.suppress(Exception):
                async with self.db.session() as session:
                    await store.release(session, self.owner, claim.match_id)
        finally:
            self.running.pop(claim.match_id, None)
            self.finished.append((claim.match_id, outcome))
            self.kick()

    async def _executor(self) -> ProcessPoolExecutor:
        if self._starting is None:
            self._starting = asyncio.ensure_future(
                asyncio.to_thread(start_workers, self.workers, WORKER_NICENESS, True)
            )
        return await asyncio.shield(self._starting)

    def _retire(self, executor: ProcessPoolExecutor) -> None:
        """A broken pool (a worker died) is let go; the next job starts a fresh one."""
        starting = self._starting
        if starting is not None and starting.done() and starting.result() is executor:
            self._starting = None
        executor.shutdown(wait=False, cancel_futures=True)

    def running_count(self) -> int:
        return len(self.running)

    async def close(self) -> None:
        """Stop at once: the workers are killed (a review may have a minute to go) and this
        process's claims handed back uncounted, so another process takes them over now."""
        tasks = [task for task in (self._loop_task, *self.running.values()) if task is not None]
        starting, self._starting = self._starting, None
        if starting is not None:
            with contextlib.suppress(Exception):
                kill_workers(await starting)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            async with self.db.session() as session:
                await store.release(session, self.owner, forgiven=True)

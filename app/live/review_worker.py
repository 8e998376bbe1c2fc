"""The worker side of a match review: what runs in a review's worker process.

Kept apart from app/live/reviews.py (the server's side: claims, the pool, metrics) so that the
forkserver, which imports a worker's modules once before forking any (app/live/bot_pool.py),
loads only what a worker runs: the engine, psycopg and the review statements. Importing the
server's side as well (SQLAlchemy, prometheus_client, the match store) cost each forkserver
about 0.45 s more CPU at its start, before the first strong decision or review of a process.

`analyse_job` replays the log with engine/analysis.py at the job's budget, the match id as its
random seed, and writes to PostgreSQL on its own connection: progress with a lease renewal every
`beat` seconds, then the whole result in one statement, only while the job is still its own.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import psycopg

from app.store import analyses as store
from engine import get_game
from engine.analysis import Budget, analyse_match

log = logging.getLogger(__name__)

WORKER_NICENESS = 19
"""Reviews wait for everything else: the server (0) and the strong bots' workers (10) go first."""


@dataclass(frozen=True)
class Job:
    """What a worker needs for one review: the claim, the match's replayable facts, and where and
    how to report."""

    database: str
    owner: str
    lease: float
    beat: float
    match_id: int
    seats: list[int]
    game_id: str
    players: int
    options: dict[str, Any]
    log: list[tuple[int, dict[str, Any]]]
    budget: dict[str, Any]
    """`Budget.as_dict()`: the compiled engine's frozen Budget does not unpickle in the worker."""
    auto: dict[int, str] | None = None
    """The moves the server made for a person (version -> "time" | "away"): marked in the review
    and left out of the person's figures."""


@dataclass(frozen=True)
class Outcome:
    """How a job ended in the worker: "done", "failed" or "lost" (the job is no longer its own),
    with the worker's CPU seconds for it."""

    status: str
    cpu_seconds: float


class _Heartbeat:
    """The worker's link to its row: progress and lease renewal every `beat` seconds."""

    def __init__(self, conn: psycopg.Connection[Any], job: Job) -> None:
        self.conn = conn
        self.job = job
        self.done = 0
        self.total = 0
        self.lost = False
        self.last = 0.0

    def _write(self) -> None:
        job = self.job
        self.last = time.monotonic()
        if not store.beat(self.conn, job.match_id, job.owner, job.lease, self.done, self.total):
            self.lost = True

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if done == 0 or time.monotonic() - self.last >= self.job.beat:
            self._write()

    def should_stop(self) -> bool:
        if not self.lost and time.monotonic() - self.last >= self.job.beat:
            self._write()
        return self.lost


def analyse_job(job: Job) -> Outcome:
    """Runs in a worker: one review from the replay to the stored result (see the module
    docstring)."""
    started = time.process_time()
    with psycopg.connect(job.database, autocommit=True) as conn:
        heartbeat = _Heartbeat(conn, job)
        try:
            analysis = analyse_match(
                get_game(job.game_id), job.players, job.options, job.log,
                seats=job.seats, budget=Budget(**job.budget), rng_seed=job.match_id,
                should_stop=heartbeat.should_stop, progress=heartbeat.progress, auto=job.auto,
            )  # fmt: skip
        except Exception as exc:
            log.exception("the review of match %s failed", job.match_id)
            cpu = time.process_time() - started
            failed = store.fail(conn, job.match_id, job.owner, f"{type(exc).__name__}: {exc}", cpu)
            return Outcome("failed" if failed else "lost", cpu)
        cpu = time.process_time() - started
        if not analysis.complete:
            return Outcome("lost", cpu)
        whole = analysis.as_dict()
        result = {
            "decisions": whole["decisions"],
            "summaries": whole["summaries"],
            "revision": whole["revision"],
        }
        stored = store.finish(conn, job.match_id, job.owner, result, whole["budget"], cpu)
        return Outcome("done" if stored else "lost", cpu)

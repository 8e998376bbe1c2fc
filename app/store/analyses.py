"""Match reviews in PostgreSQL (`match_analyses`, migration 0012): every statement about them.

A row is queued in the transaction that finishes the match (`ENQUEUE`, run by
app/store/matches.py), or when someone first asks for the review of a match that ended before
reviews existed. Matches nobody reviews (abandoned ones, those only bots played) get a `done`
row with nothing in it at once.

A job goes `queued` → `running` → `done` or `failed`:
- `claim` takes the oldest waiting row, queued or running under a lease that ran out (its process
  died), with `FOR UPDATE SKIP LOCKED` and one `UPDATE … RETURNING`: two processes never get the
  same row, and a dead process's job is redone from the start by whoever claims it next.
- The worker doing it (app/live/reviews.py) renews the lease with its progress (`beat`) and
  writes the result with `status = 'done'` in one statement (`finish`), only while it still owns
  the row; a CHECK constraint keeps a result off every row that is not done.
- A job is tried `MAX_ATTEMPTS` times (a claim counts one; a clean shutdown hands its claim back
  uncounted), then `give_up` marks it failed.

Statements are in psycopg's `%(name)s` style: the async functions run them through SQLAlchemy's
driver-level `exec_driver_sql`, the worker's functions on a plain psycopg connection, and
`ENQUEUE` on the match store's connection inside its transaction. Refusals are domain errors.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from psycopg import Connection

from engine.analysis import REVISION

if TYPE_CHECKING:  # the server's functions take sessions; a review worker imports only the rest
    from sqlalchemy.ext.asyncio import AsyncSession

MAX_ATTEMPTS = 3
"""Claims of one job before it is given up (a job that kills its worker every time)."""

ENQUEUE = """
INSERT INTO match_analyses (match_id, status, seats, result, finished_at)
SELECT m.id,
       CASE WHEN nothing THEN 'done' ELSE 'queued' END,
       CASE WHEN nothing THEN '[]'::jsonb ELSE wanted.seats END,
       CASE WHEN nothing THEN '{"decisions": [], "summaries": {}}'::jsonb END,
       CASE WHEN nothing THEN now() END
FROM matches m
CROSS JOIN LATERAL (
    SELECT coalesce(jsonb_agg(s.n ORDER BY s.n), '[]'::jsonb) AS seats
    FROM match_seats s WHERE s.match_id = m.id AND s.person_id IS NOT NULL
) wanted
CROSS JOIN LATERAL (SELECT m.abandoned OR wanted.seats = '[]'::jsonb AS nothing) empty
WHERE m.id = %(match_id)s AND m.status = 'finished'
ON CONFLICT (match_id) DO NOTHING
"""
"""Queue the review of a finished match (once: a second call changes nothing). Its seats are the
ones credited to a person; an abandoned match or one with no person is done with nothing."""

REQUEUE = """
UPDATE match_analyses
SET status = 'queued', result = NULL, budget = NULL, done = 0, total = NULL, attempts = 0,
    owner = NULL, lease_until = NULL, started_at = NULL, finished_at = NULL, error = NULL
WHERE match_id = %(match_id)s AND status = 'done' AND seats <> '[]'::jsonb
  AND coalesce((result ->> 'revision')::int, 1) < %(revision)s
"""
"""Queue again a finished review of an older revision of the analysis (engine/analysis.py
`REVISION`): its figures are not those a review gives now."""

READ = """
SELECT status, done, total, budget, result FROM match_analyses WHERE match_id = %(match_id)s
"""

CLAIM = """
UPDATE match_analyses a
SET status = 'running', owner = %(owner)s, lease_until = now() + make_interval(secs => %(lease)s),
    started_at = now(), attempts = a.attempts + 1, done = 0
FROM (
    SELECT match_id FROM match_analyses
    WHERE (status = 'queued' OR (status = 'running' AND lease_until < now())) AND attempts < %(attempts)s
    ORDER BY queued_at, match_id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
) waiting
WHERE a.match_id = waiting.match_id
RETURNING a.match_id, a.seats, a.attempts
"""

GIVE_UP = """
UPDATE match_analyses
SET status = 'failed', owner = NULL, lease_until = NULL, finished_at = now(),
    error = coalesce(error, 'given up after ' || attempts || ' attempts')
WHERE attempts >= %(attempts)s AND (status = 'queued' OR (status = 'running' AND lease_until < now()))
"""

RELEASE = """
UPDATE match_analyses
SET status = 'queued', owner = NULL, lease_until = NULL, done = 0, attempts = attempts - %(forgiven)s
WHERE owner = %(owner)s AND status = 'running' AND (%(match_id)s::bigint IS NULL OR match_id = %(match_id)s)
"""
"""Hand a claim back: all of a process's (at a clean shutdown, the attempt forgiven) or one job's."""

COUNT = """
SELECT count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'running')
FROM match_analyses
"""

BEAT = """
UPDATE match_analyses
SET done = %(done)s, total = %(total)s, lease_until = now() + make_interval(secs => %(lease)s)
WHERE match_id = %(match_id)s AND owner = %(owner)s AND status = 'running'
"""

FINISH = """
UPDATE match_analyses
SET status = 'done', result = %(result)s::jsonb, budget = %(budget)s::jsonb, cpu_seconds = %(cpu)s,
    done = %(done)s, total = %(done)s, finished_at = now(), lease_until = NULL, error = NULL
WHERE match_id = %(match_id)s AND owner = %(owner)s AND status = 'running'
"""

FAIL = """
UPDATE match_analyses
SET status = 'failed', error = %(error)s, cpu_seconds = %(cpu)s, finished_at = now(), lease_until = NULL
WHERE match_id = %(match_id)s AND owner = %(owner)s AND status = 'running'
"""


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass(frozen=True)
class Claim:
    """A job this process now runs: the match, the seats to analyse, and which attempt it is."""

    match_id: int
    seats: list[int]
    attempt: int


@dataclass(frozen=True)
class Review:
    """What a reader is told: the state, the progress, and (when done) the stored result."""

    status: str
    done: int
    total: int | None
    budget: dict[str, Any] | None = None
    result: dict[str, Any] | None = None


# ---- the server's side (async, SQLAlchemy sessions) -------------------------------------------
async def _execute(session: AsyncSession, statement: str, params: dict[str, Any]) -> Any:
    connection = await session.connection()
    return await connection.exec_driver_sql(statement, params)


async def enqueue(session: AsyncSession, match_id: int) -> None:
    await _execute(session, ENQUEUE, {"match_id": match_id})


async def review(session: AsyncSession, match_id: int) -> Review:
    """The review of a finished match, queued now if it never was (a match that ended before
    reviews existed) or was analysed by an older revision of the analysis. The caller has checked
    who may read it (app/store/history.py)."""
    await _execute(session, REQUEUE, {"match_id": match_id, "revision": REVISION})
    row = (await _execute(session, READ, {"match_id": match_id})).first()
    if row is None:
        await enqueue(session, match_id)
        row = (await _execute(session, READ, {"match_id": match_id})).one()
    status, done, total, budget, result = row
    return Review(status, done, total, budget, result)


async def claim(session: AsyncSession, owner: str, lease: float) -> Claim | None:
    """The oldest waiting job, now this process's (None: nothing waits); jobs tried too often
    are given up first."""
    await _execute(session, GIVE_UP, {"attempts": MAX_ATTEMPTS})
    row = (await _execute(session, CLAIM, {"owner": owner, "lease": lease, "attempts": MAX_ATTEMPTS})).first()
    return None if row is None else Claim(int(row[0]), [int(seat) for seat in row[1]], int(row[2]))


async def release(
    session: AsyncSession, owner: str, match_id: int | None = None, forgiven: bool = False
) -> int:
    """Hand back `owner`'s running jobs (or only `match_id`), to be claimed again at once; with
    `forgiven` the attempt does not count (a clean shutdown, not a failure). Returns how many."""
    params = {"owner": owner, "match_id": match_id, "forgiven": int(forgiven)}
    return int((await _execute(session, RELEASE, params)).rowcount)


async def counts(session: AsyncSession) -> tuple[int, int]:
    """Jobs queued and running, across every process."""
    queued, running = (await _execute(session, COUNT, {})).one()
    return int(queued), int(running)


# ---- the worker's side (a plain psycopg connection, autocommit) -------------------------------
def beat(conn: Connection[Any], match_id: int, owner: str, lease: float, done: int, total: int) -> bool:
    """Record progress and renew the lease; False when the job is no longer this owner's."""
    params = {"match_id": match_id, "owner": owner, "lease": lease, "done": done, "total": total}
    return conn.execute(BEAT, params).rowcount == 1


def finish(
    conn: Connection[Any],
    match_id: int,
    owner: str,
    result: dict[str, Any],
    budget: dict[str, Any],
    cpu: float,
) -> bool:
    """Store the complete result (and mark the job done) if the job is still this owner's."""
    params = {
        "match_id": match_id, "owner": owner, "result": _json(result), "budget": _json(budget),
        "cpu": cpu, "done": len(result["decisions"]),
    }  # fmt: skip
    return conn.execute(FINISH, params).rowcount == 1


def fail(conn: Connection[Any], match_id: int, owner: str, error: str, cpu: float) -> bool:
    """Mark the job failed, with the error for the operator, if it is still this owner's."""
    params = {"match_id": match_id, "owner": owner, "error": error[:2000], "cpu": cpu}
    return conn.execute(FAIL, params).rowcount == 1

"""Group commit: the log extensions of many matches in one statement.

At tables of four people most of a move's server CPU and much of PostgreSQL's was the commit
itself: a pooled connection, one statement through psycopg, one transaction (and one WAL flush)
per move (docs/BENCHMARKS.md). Extensions that wait while the writers are busy are therefore
written together: `Extensions.commit` queues an extension, and at most `writers` flushers each
take everything queued so far (up to `MOST`) and write it in one statement, `EXTEND_MANY`. With
a single extension waiting it is written alone by `EXTEND`, so an idle table pays no batching
delay.

Every extension keeps its own checks (the version it starts from, the seat held), evaluated row
by row inside the one statement, and its caller learns only its own outcome. A statement that
fails as a whole (a deadlock with another process's batch) is retried one extension at a time,
so one bad extension never refuses the others and nothing is written twice: an extension that
did reach the database fails the retry's version check, and its caller reloads the match as
after any version conflict. An extension is acknowledged only once its statement has committed.

A connection that dies under a batch (the database restarted, the backend was ended) is left for
the pool to replace, and the extensions it did not answer are tried once more on another
connection, by the same rule: each is then either written or refused, never waited on for ever.
The statements go through psycopg's `execute` with `prepare=True`: parsed and planned once per
connection, then sent by name.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from psycopg import AsyncConnection as PgConnection
from psycopg import AsyncCursor as PgCursor

EXTEND = """
WITH held AS (
    SELECT %(seat)s::int IS NULL OR EXISTS (
        SELECT 1 FROM match_seats
        WHERE match_id = %(match_id)s::bigint AND n = %(seat)s::int AND kind = %(kind)s::text
          AND (kind = 'bot' OR person_id = %(person_id)s::bigint)
    ) AS ok
), bumped AS (
    UPDATE matches SET version = %(after)s::int
    WHERE id = %(match_id)s::bigint AND version = %(before)s::int AND status = 'running'
      AND (SELECT ok FROM held)
    RETURNING id
), logged AS (
    INSERT INTO match_actions (match_id, seq, seat, action, auto)
    SELECT bumped.id, %(before)s::int + entry.ord::int - 1, (entry.item->>0)::int, entry.item->1,
        entry.item->>2
    FROM bumped, jsonb_array_elements(%(entries)s::jsonb) WITH ORDINALITY AS entry(item, ord)
    RETURNING 1
)
SELECT (SELECT count(*) FROM bumped) = 1, (SELECT ok FROM held)
"""
"""Extend one match's log from `before` to `after` if nobody else did and the acting seat is
still held as the caller believes (`seat` NULL: chance acts, nobody holds it): one atomic
statement. Each entry is `[seat, action]`, or `[seat, action, auto]` for a bot's move for a
person's seat. Answers (whether it was extended, whether the seat was held)."""

EXTEND_MANY = """
WITH asked AS (
    SELECT * FROM jsonb_to_recordset(%s::jsonb) AS asked(
        i int, match_id bigint, before int, after int, seat int, kind text, person_id bigint,
        entries jsonb)
), held AS (
    SELECT asked.i, asked.seat IS NULL OR EXISTS (
        SELECT 1 FROM match_seats s
        WHERE s.match_id = asked.match_id AND s.n = asked.seat AND s.kind = asked.kind
          AND (s.kind = 'bot' OR s.person_id = asked.person_id)
    ) AS ok
    FROM asked
), bumped AS (
    UPDATE matches m SET version = asked.after
    FROM asked JOIN held ON held.i = asked.i
    WHERE m.id = asked.match_id AND m.version = asked.before AND m.status = 'running' AND held.ok
    RETURNING asked.i
), logged AS (
    INSERT INTO match_actions (match_id, seq, seat, action, auto)
    SELECT asked.match_id, asked.before + entry.ord::int - 1, (entry.item->>0)::int, entry.item->1,
        entry.item->>2
    FROM bumped JOIN asked ON asked.i = bumped.i,
        jsonb_array_elements(asked.entries) WITH ORDINALITY AS entry(item, ord)
    RETURNING 1
)
SELECT held.i, EXISTS (SELECT 1 FROM bumped WHERE bumped.i = held.i), held.ok FROM held
"""
"""`EXTEND` for many matches at once, each asked extension numbered `i` and checked on its own;
one row per extension: (i, whether it was extended, whether the seat was held). The extensions are
sorted by match, the order in which the join usually takes the rows' locks, so that two
processes' batches seldom wait on each other crosswise; a deadlock that happens all the same
fails the statement as a whole, and its extensions are written again one at a time."""

EXTEND_PARAMETERS = ("after", "match_id", "before", "entries", "seat", "kind", "person_id")
"""`EXTEND`'s parameters by name."""

WRITERS = 2
"""Statements of queued extensions in flight at once. Fewer means larger batches. At 50 tables
of four people, in alternating runs: two writers cost 0.47-0.54 ms of server CPU and 0.16-0.19 ms
of PostgreSQL's per move, one writer 0.48-0.55 and 0.15-0.16, and one statement per move (before
this module) 0.71-0.81 and 0.37-0.44 (docs/BENCHMARKS.md). Two keep a statement going while the
other waits on the disk."""

LINGER = 2.0
"""Seconds an idle flusher keeps its connection for the next commit."""

MOST = 64
"""Extensions written by one statement at most (a bound on one statement's size and time)."""

Outcome = tuple[bool, bool]
"""(extended, seat held) for one extension."""

Batch = list[tuple[dict[str, Any], asyncio.Future[Outcome]]]
"""Queued extensions, each with the future its caller awaits."""


class Extensions:
    """Queues log extensions and writes them in as few statements as the load allows."""

    def __init__(
        self,
        connection: Callable[[], contextlib.AbstractAsyncContextManager[PgConnection[Any]]],
        writers: int,
    ) -> None:
        self._connection = connection
        self._writers = writers
        self._queue: Batch = []
        self._flushing = 0
        self._flushers: set[asyncio.Task[None]] = set()  # referenced until done
        self._idle: list[asyncio.Future[bool]] = []  # flushers waiting for work, newest last
        self._closed = False

    async def commit(self, params: dict[str, Any]) -> Outcome:
        """Write one extension (`EXTEND`'s parameters, `entries` as JSON text) and tell whether
        it was made and whether the seat was held; raises what the database raised if it
        could not be written at all."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Outcome] = loop.create_future()
        self._queue.append((params, done))
        if self._idle:
            _wake(self._idle.pop(), True)
        elif self._flushing < self._writers:
            self._flushing += 1
            flusher = loop.create_task(self._flush(), name="commit-flusher")
            self._flushers.add(flusher)
            flusher.add_done_callback(self._flushers.discard)
        return await done

    async def close(self) -> None:
        """Let idle flushers give their connections back (before the pool closes)."""
        self._closed = True
        for idle in self._idle:
            _wake(idle, False)
        self._idle.clear()
        if self._flushers:
            await asyncio.wait(list(self._flushers))

    async def _flush(self) -> None:
        """Write queued extensions one batch at a time on one connection, and keep it while
        moves keep coming: an idle flusher waits up to `LINGER` seconds for the next commit
        before it gives the connection back and ends. Taking a connection from the pool per batch
        was about 3% of the server's CPU samples at 50 tables of four people, plus a task per
        batch (docs/BENCHMARKS.md). A connection that dies is given back at once (the pool
        replaces it), and the next batch takes another one."""
        batch: Batch = []
        try:
            while self._queue:
                connected = False
                outcomes: list[Outcome | Exception] = []
                try:
                    async with self._connection() as conn:
                        connected = True
                        cursor = conn.cursor()  # one for every batch: a third less CPU than one each
                        while self._queue or await self._more():
                            batch = self._take()
                            outcomes = await self._write(cursor, batch)
                            if conn.closed:
                                break
                            _settle(batch, outcomes)
                            batch = []
                except Exception as exc:
                    if not connected:  # no connection to be had: the next batch fails with it
                        batch = self._take()
                    _settle(batch, [exc] * len(batch))
                    batch = []
                if batch:
                    await self._again(batch, outcomes)
                    batch = []
        except BaseException:
            _settle(batch, [ConnectionError("the commit was interrupted")] * len(batch))
            raise
        finally:
            self._flushing -= 1

    async def _again(self, batch: Batch, outcomes: list[Outcome | Exception]) -> None:
        """The connection died under `batch`: the extensions it answered are settled, and the
        others written once more on another connection (each is then written, or refused as a
        version conflict if it had reached the database after all, or refused with the error)."""
        answered = [
            (item, o) for item, o in zip(batch, outcomes, strict=True) if not isinstance(o, Exception)
        ]
        _settle([item for item, _ in answered], [outcome for _, outcome in answered])
        unanswered = [
            item for item, outcome in zip(batch, outcomes, strict=True) if isinstance(outcome, Exception)
        ]
        try:
            async with self._connection() as conn:
                again = await self._write(conn.cursor(), unanswered)
        except Exception as exc:
            again = [exc] * len(unanswered)
        _settle(unanswered, again)

    async def _more(self) -> bool:
        """Wait for the next commit while holding the connection: True when one came, False
        after `LINGER` seconds without one (or when the store closes)."""
        if self._closed:
            return False
        loop = asyncio.get_running_loop()
        idle: asyncio.Future[bool] = loop.create_future()
        self._idle.append(idle)
        timer = loop.call_later(LINGER, _wake, idle, False)
        try:
            return await idle and bool(self._queue)
        finally:
            timer.cancel()
            if idle in self._idle:
                self._idle.remove(idle)

    def _take(self) -> Batch:
        """The next batch: the oldest `MOST` queued extensions, out of the queue."""
        batch, self._queue = self._queue[:MOST], self._queue[MOST:]
        return batch

    async def _write(self, cursor: PgCursor[Any], batch: Batch) -> list[Outcome | Exception]:
        if len(batch) == 1:
            return [await _settled(self.extend_one(cursor, batch[0][0]))]
        try:
            return list(await self._many(cursor, [params for params, _ in batch]))
        except Exception as exc:
            if cursor.connection.closed:  # nothing more to be had from this connection
                return [exc] * len(batch)
            # The one statement failed as a whole and wrote nothing: each on its own.
            return [await _settled(self.extend_one(cursor, params)) for params, _ in batch]

    @staticmethod
    async def extend_one(cursor: PgCursor[Any], params: dict[str, Any]) -> Outcome:
        """`EXTEND` on `cursor`'s connection, in whatever transaction it is in."""
        await cursor.execute(EXTEND, {name: params[name] for name in EXTEND_PARAMETERS}, prepare=True)
        row = await cursor.fetchone()
        if row is None:
            return False, False
        extended, held = row
        return bool(extended), bool(held)

    @staticmethod
    async def _many(cursor: PgCursor[Any], batch: list[dict[str, Any]]) -> list[Outcome]:
        order = sorted(range(len(batch)), key=lambda i: batch[i]["match_id"])
        # `EXTEND`'s own parameters, numbered, with the entries' JSON text embedded as it is.
        asked = [{**batch[i], "i": i, "entries": orjson.Fragment(batch[i]["entries"])} for i in order]
        outcomes: list[Outcome] = [(False, False)] * len(batch)
        await cursor.execute(EXTEND_MANY, (orjson.dumps(asked).decode(),), prepare=True)
        for i, extended, held in await cursor.fetchall():
            outcomes[int(i or 0)] = (bool(extended), bool(held))
        return outcomes


async def _settled(write: Coroutine[Any, Any, Outcome]) -> Outcome | Exception:
    """The outcome of one write, or the error it raised (kept for its own caller)."""
    try:
        return await write
    except Exception as exc:
        return exc


def _settle(batch: Batch, outcomes: list[Outcome | Exception]) -> None:
    """Tell each waiting caller its own outcome."""
    for (_, done), outcome in zip(batch, outcomes, strict=True):
        if done.done():  # its caller stopped waiting
            continue
        if isinstance(outcome, Exception):
            done.set_exception(outcome)
        else:
            done.set_result(outcome)


def _wake(waiter: asyncio.Future[bool], value: bool) -> None:
    """Give an idle flusher its answer unless it has one already (its timer and a commit may
    both try)."""
    if not waiter.done():
        waiter.set_result(value)

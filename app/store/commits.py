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
fails as a whole (a deadlock with another process's batch, a lost connection) is retried one
extension at a time, so one bad extension never refuses the others and nothing is written twice:
an extension that did reach the database fails the retry's version check, and its caller reloads
the match as after any version conflict. An extension is acknowledged only once its statement
has committed, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from psycopg import AsyncConnection as PgConnection

from app.mailbox import wake
from app.store.prepared import PreparedStatement

EXTEND = """
WITH held AS (
    SELECT $5::int IS NULL OR EXISTS (
        SELECT 1 FROM match_seats
        WHERE match_id = $2::bigint AND n = $5::int AND kind = $6::text
          AND (kind = 'bot' OR person_id = $7::bigint)
    ) AS ok
), bumped AS (
    UPDATE matches SET version = $1::int
    WHERE id = $2::bigint AND version = $3::int AND status = 'running' AND (SELECT ok FROM held)
    RETURNING id
), logged AS (
    INSERT INTO match_actions (match_id, seq, seat, action, auto)
    SELECT bumped.id, $3::int + entry.ord::int - 1, (entry.item->>0)::int, entry.item->1, entry.item->>2
    FROM bumped, jsonb_array_elements($4::jsonb) WITH ORDINALITY AS entry(item, ord)
    RETURNING 1
)
SELECT (SELECT count(*) FROM bumped), (SELECT ok FROM held)
"""
"""Extend one match's log from `before` to `after` if nobody else did and the acting seat is
still held as the caller believes (`seat` NULL: chance acts, nobody holds it): one atomic
statement. Each entry is `[seat, action]`, or `[seat, action, auto]` for a bot's move for a
person's seat. Answers (1 when extended, whether the seat was held)."""

EXTEND_MANY = """
WITH asked AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS asked(
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
SELECT held.i, (SELECT count(*) FROM bumped WHERE bumped.i = held.i), held.ok FROM held
"""
"""`EXTEND` for many matches at once, each asked extension numbered `i` and checked on its own;
one row per extension: (i, 1 when extended, whether the seat was held). The extensions are
sorted by match, the order in which the join usually takes the rows' locks, so that two
processes' batches seldom wait on each other crosswise; a deadlock that happens all the same
fails the statement as a whole, and its extensions are written again one at a time."""

EXTEND_PARAMETERS = ("after", "match_id", "before", "entries", "seat", "kind", "person_id")
"""`EXTEND`'s parameters `$1`, `$2`, … by name."""

_EXTEND = PreparedStatement("cardtable_extend", EXTEND)
_EXTEND_MANY = PreparedStatement("cardtable_extend_many", EXTEND_MANY)

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


class Extensions:
    """Queues log extensions and writes them in as few statements as the load allows."""

    def __init__(
        self,
        connection: Callable[[], contextlib.AbstractAsyncContextManager[PgConnection[Any]]],
        writers: int,
    ) -> None:
        self._connection = connection
        self._writers = writers
        self._queue: list[tuple[dict[str, Any], asyncio.Future[Outcome]]] = []
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
            wake(self._idle.pop(), True)
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
            wake(idle, False)
        self._idle.clear()
        if self._flushers:
            await asyncio.wait(list(self._flushers))

    async def _flush(self) -> None:
        """Write queued extensions one batch at a time on one connection, and keep it while
        moves keep coming: an idle flusher waits up to `LINGER` seconds for the next commit
        before it gives the connection back and ends. Taking a connection from the pool per batch
        was about 3% of the server's CPU samples at 50 tables of four people, plus a task per
        batch (docs/BENCHMARKS.md)."""
        batch: list[tuple[dict[str, Any], asyncio.Future[Outcome]]] = []
        try:
            while self._queue:
                connected = False
                try:
                    async with self._connection() as conn:
                        connected = True
                        while self._queue or await self._more():
                            batch = self._take()
                            _settle(batch, await self._write(conn, batch))
                            batch = []
                except Exception as exc:
                    if not connected:  # no connection to be had: the next batch fails with it
                        batch = self._take()
                    _settle(batch, [exc] * len(batch))
                    batch = []
        except BaseException:
            _settle(batch, [ConnectionError("the commit was interrupted")] * len(batch))
            raise
        finally:
            self._flushing -= 1

    async def _more(self) -> bool:
        """Wait for the next commit while holding the connection: True when one came, False
        after `LINGER` seconds without one (or when the store closes)."""
        if self._closed:
            return False
        loop = asyncio.get_running_loop()
        idle: asyncio.Future[bool] = loop.create_future()
        self._idle.append(idle)
        timer = loop.call_later(LINGER, wake, idle, False)
        try:
            return await idle and bool(self._queue)
        finally:
            timer.cancel()
            if idle in self._idle:
                self._idle.remove(idle)

    def _take(self) -> list[tuple[dict[str, Any], asyncio.Future[Outcome]]]:
        """The next batch: the oldest `MOST` queued extensions, out of the queue."""
        batch, self._queue = self._queue[:MOST], self._queue[MOST:]
        return batch

    async def _write(
        self, conn: PgConnection[Any], batch: list[tuple[dict[str, Any], asyncio.Future[Outcome]]]
    ) -> list[Outcome | Exception]:
        if len(batch) == 1:
            return [await _settled(self.extend_one(conn, batch[0][0]))]
        try:
            return list(await self._many(conn, [params for params, _ in batch]))
        except Exception:
            # The one statement failed as a whole and wrote nothing: each on its own.
            return [await _settled(self.extend_one(conn, params)) for params, _ in batch]

    @staticmethod
    async def extend_one(conn: PgConnection[Any], params: dict[str, Any]) -> Outcome:
        """`EXTEND` on `conn`, in whatever transaction it is in."""
        values = [params[name] for name in EXTEND_PARAMETERS]
        rows = await _EXTEND.rows(conn, [None if v is None else str(v).encode() for v in values])
        if not rows:
            return False, False
        extended, held = rows[0]
        return extended == b"1", held == b"t"

    @staticmethod
    async def _many(conn: PgConnection[Any], batch: list[dict[str, Any]]) -> list[Outcome]:
        order = sorted(range(len(batch)), key=lambda i: batch[i]["match_id"])
        # `EXTEND`'s own parameters, numbered, with the entries' JSON text embedded as it is.
        asked = [{**batch[i], "i": i, "entries": orjson.Fragment(batch[i]["entries"])} for i in order]
        outcomes: list[Outcome] = [(False, False)] * len(batch)
        for i, extended, held in await _EXTEND_MANY.rows(conn, [orjson.dumps(asked)]):
            outcomes[int(i or 0)] = (extended == b"1", held == b"t")
        return outcomes


async def _settled(write: Coroutine[Any, Any, Outcome]) -> Outcome | Exception:
    """The outcome of one write, or the error it raised (kept for its own caller)."""
    try:
        return await write
    except Exception as exc:
        return exc


def _settle(
    batch: list[tuple[dict[str, Any], asyncio.Future[Outcome]]], outcomes: list[Outcome | Exception]
) -> None:
    """Tell each waiting caller its own outcome."""
    for (_, done), outcome in zip(batch, outcomes, strict=True):
        if done.done():  # its caller stopped waiting
            continue
        if isinstance(outcome, Exception):
            done.set_exception(outcome)
        else:
            done.set_result(outcome)

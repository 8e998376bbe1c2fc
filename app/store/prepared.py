"""A statement run on every move, sent through libpq directly.

The group commit's statements (app/store/commits.py) run hundreds of times a second. Through
psycopg's cursor each execution builds a cursor, its adapters map and type registry, converts
the query and dumps every parameter, and waits through a generator that arms a timer per wait:
about 14% of the server's CPU per move at 50 tables of four people (docs/BENCHMARKS.md), for a
statement whose parameters are already text. `PreparedStatement` prepares its SQL once per
connection under its own name and then sends only the name and the parameters' text with
libpq's asynchronous calls (psycopg's documented `pgconn`), reading the answer when the socket is
readable. The connection stays psycopg's: it may run inside a psycopg transaction block, and a
failure raises the same `psycopg.errors` class psycopg would raise; a cancelled execution
leaves the connection busy, which the pool sees and discards, as it does for psycopg's own.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Sequence

from psycopg import AsyncConnection, OperationalError
from psycopg.errors import error_from_result
from psycopg.pq import ExecStatus
from psycopg.pq.abc import PGresult

from app.mailbox import wake

Row = tuple[bytes | None, ...]
"""A result row: each column's text, or None for NULL."""


class PreparedStatement:
    """One SQL statement with `$n` parameters, prepared on each connection it first runs on."""

    def __init__(self, name: str, sql: str) -> None:
        self.name = name.encode()
        self.sql = sql.encode()
        self._prepared: weakref.WeakSet[AsyncConnection[object]] = weakref.WeakSet()

    async def rows(self, conn: AsyncConnection[object], params: Sequence[bytes | None]) -> list[Row]:
        """Run the statement with `params` (text, None for NULL) on `conn` and return its rows.
        Raises the `psycopg.errors` class of whatever the database refused."""
        if conn not in self._prepared:
            conn.pgconn.send_prepare(self.name, self.sql)
            _raise_for(await _results(conn), conn, ExecStatus.COMMAND_OK)
            self._prepared.add(conn)
        conn.pgconn.send_query_prepared(self.name, params)
        result = _raise_for(await _results(conn), conn, ExecStatus.TUPLES_OK)
        return [
            tuple(result.get_value(row, column) for column in range(result.nfields))
            for row in range(result.ntuples)
        ]


async def _results(conn: AsyncConnection[object]) -> list[PGresult]:
    """Send what libpq holds, then gather the command's results once the server has answered."""
    pgconn, loop = conn.pgconn, asyncio.get_running_loop()
    fd = pgconn.socket
    while pgconn.flush():  # the rest of a long statement waits for room in the socket
        writable: asyncio.Future[None] = loop.create_future()
        loop.add_writer(fd, wake, writable, None)
        try:
            await writable
        finally:
            loop.remove_writer(fd)
    results: list[PGresult] = []

    def take() -> bool:
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                return True
            results.append(result)
        return False

    await read_input(conn, take)
    return results


async def read_input(conn: AsyncConnection[object], take: Callable[[], bool], at_once: bool = False) -> None:
    """Call `take` whenever libpq has read what arrived on `conn`'s socket (and, with `at_once`,
    first for what it holds already), until `take` says True. Raises OperationalError when the
    connection fails. Used for a statement's answer and for the bus's notifications
    (app/live/pubsub.py), so both see the socket and a lost connection the same way."""
    pgconn, loop = conn.pgconn, asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        try:
            pgconn.consume_input()
            if take():
                wake(finished, None)
        except OperationalError as exc:  # the connection is gone
            if not finished.done():
                finished.set_exception(exc)

    fd = pgconn.socket
    loop.add_reader(fd, readable)
    try:
        if at_once:
            readable()
        await finished
    finally:
        loop.remove_reader(fd)


def _raise_for(results: list[PGresult], conn: AsyncConnection[object], expected: ExecStatus) -> PGresult:
    """The command's one result, or the error the database answered with."""
    for result in results:
        if result.status != expected:
            raise error_from_result(result, encoding=conn.info.encoding)
    if len(results) != 1:
        raise OperationalError(f"expected one result, got {len(results)}")
    return results[0]

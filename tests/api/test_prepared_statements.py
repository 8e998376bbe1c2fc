"""`PreparedStatement` (app/store/prepared.py): the group commit's statements sent through libpq
directly must answer, fail and leave their connection exactly as psycopg's own execute would."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from psycopg import errors
from psycopg.pq import TransactionStatus
from sqlalchemy.engine import make_url

from app.store.prepared import PreparedStatement

pytestmark = pytest.mark.asyncio


@contextlib.asynccontextmanager
async def connection(
    database_url: str, autocommit: bool = True
) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    libpq = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await psycopg.AsyncConnection.connect(libpq, autocommit=autocommit)
    try:
        yield conn
    finally:
        await conn.close()


async def test_a_statement_answers_its_rows_as_text_on_every_connection_it_meets(database_url: str) -> None:
    statement = PreparedStatement(
        "test_rows", "SELECT n, n * $1::int, NULL::text FROM generate_series(1, $2::int) AS n"
    )
    async with connection(database_url) as one, connection(database_url) as two:
        for conn in (one, two, one):  # prepared once per connection, then reused
            assert await statement.rows(conn, [b"10", b"3"]) == [
                (b"1", b"10", None),
                (b"2", b"20", None),
                (b"3", b"30", None),
            ]
        for conn in (one, two):
            names = await (await conn.execute("SELECT name FROM pg_prepared_statements")).fetchall()
            assert ("test_rows",) in names


async def test_a_refused_statement_raises_psycopgs_own_error_and_leaves_the_connection_usable(
    database_url: str,
) -> None:
    statement = PreparedStatement("test_refused", "SELECT 1 / $1::int")
    async with connection(database_url) as conn:
        with pytest.raises(errors.DivisionByZero) as refused:
            await statement.rows(conn, [b"0"])
        assert refused.value.sqlstate == "22012" and "division by zero" in str(refused.value)
        assert conn.pgconn.transaction_status == TransactionStatus.IDLE
        assert await statement.rows(conn, [b"1"]) == [(b"1",)]
        with pytest.raises(errors.UndefinedTable):
            await PreparedStatement("test_no_table", "SELECT * FROM no_such_table").rows(conn, [])
        assert await statement.rows(conn, [b"2"]) == [(b"0",)]


async def test_inside_a_psycopg_transaction_a_failure_rolls_the_whole_block_back(database_url: str) -> None:
    async with connection(database_url) as conn:
        await conn.execute("CREATE TEMPORARY TABLE kept (n int)")
        insert = PreparedStatement("test_insert", "INSERT INTO kept VALUES ($1::int) RETURNING n")
        with pytest.raises(errors.InvalidTextRepresentation):
            async with conn.transaction():
                assert await insert.rows(conn, [b"1"]) == [(b"1",)]
                await insert.rows(conn, [b"not a number"])
        async with conn.transaction():
            await insert.rows(conn, [b"2"])
        assert await (await conn.execute("SELECT n FROM kept")).fetchall() == [(2,)]


async def test_a_parameter_larger_than_the_sockets_buffer_is_sent_whole(database_url: str) -> None:
    statement = PreparedStatement("test_long", "SELECT length($1::text)")
    text = "あ" * 3_000_000  # 9 MB of UTF-8: libpq flushes it in many writes
    async with connection(database_url) as conn:
        assert await statement.rows(conn, [text.encode()]) == [(b"3000000",)]


async def test_a_cancelled_run_leaves_its_connection_busy_so_the_pool_does_not_reuse_it(
    database_url: str,
) -> None:
    statement = PreparedStatement("test_sleep", "SELECT pg_sleep($1::float)")
    async with connection(database_url) as conn:
        await statement.rows(conn, [b"0"])
        task = asyncio.create_task(statement.rows(conn, [b"5"]))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert conn.pgconn.transaction_status == TransactionStatus.ACTIVE  # what psycopg_pool discards

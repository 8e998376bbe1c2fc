"""Database access: the async SQLAlchemy engine, sessions, and running migrations.

All request-time database work goes through the async engine (psycopg 3), so it never blocks the
event loop. Migrations are synchronous Alembic runs; callers inside the loop use a thread.

Every connection the server opens (the engine's, the commits' pool, the bus's listener and
sender, the review workers') takes the same `ConnectionOptions`: a connect timeout, TCP
keepalives and a user timeout, so that a database that vanished without closing its sockets (a
failover, a cut network) is noticed within seconds instead of whenever the kernel gives up, and a
statement timeout, so that no statement holds a table for ever. Each role has its own
`application_name`, so an operator (or a test) can tell the connections apart in
`pg_stat_activity`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from psycopg.conninfo import make_conninfo
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from app.config import PROJECT_ROOT, ConnectionOptions, normalize_database_url
from app.store.embedded_pg import EmbeddedPostgres

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

__all__ = ["ConnectionOptions", "Database", "EmbeddedPostgres", "migrate", "schema_revisions"]

ENGINE, COMMIT, LISTEN, NOTIFY, REVIEW = (
    "cardtable",
    "cardtable-commit",
    "cardtable-listen",
    "cardtable-notify",
    "cardtable-review",
)
"""Each connection role's `application_name`: the SQLAlchemy engine's (ordinary queries), the
match store's pool (the group commit and the log reads), the bus's listener and its sender, and
the review workers'."""


def alembic_config(url: str) -> Config:
    """An Alembic config pointing at our migrations, independent of the working directory.
    Alembic is imported here, not with the module: with its templates and highlighter it is about
    a seventh of a server's import time, and a started server only needs it to migrate or to read
    the newest revision once."""
    from alembic.config import Config

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["url"] = normalize_database_url(url)
    config.attributes["configure_logging"] = False
    return config


def migrate(url: str) -> None:
    """Bring the schema to the newest revision (a no-op when it is already there)."""
    from alembic import command

    command.upgrade(alembic_config(url), "head")


class Database:
    """The async engine and a session factory for one database.

    No pre-ping per checkout: that was a round trip before every transaction. A connection that
    died meanwhile fails its statement once, and SQLAlchemy then drops every connection of the
    pool opened before the failure (after a database restart they are all dead), so the next
    checkouts connect anew; connections are also recycled after `recycle` seconds."""

    def __init__(
        self,
        url: str,
        pool_size: int = 10,
        max_overflow: int = 10,
        recycle: int = 1800,
        options: ConnectionOptions | None = None,
    ) -> None:
        self.url = normalize_database_url(url)
        self.pool_size = pool_size
        self.options = options or ConnectionOptions()
        self.engine: AsyncEngine = create_async_engine(
            self.url,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_recycle=recycle,
            pool_timeout=self.options.pool_wait,
            connect_args=self.options.libpq(ENGINE),
        )
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @property
    def libpq_url(self) -> str:
        """The URL as psycopg itself takes it, without the connection options (`conninfo`)."""
        return make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)

    def conninfo(self, role: str) -> str:
        """A connection string for psycopg with every connection option and `role`'s name: the
        match store's pool, the bus, the review workers."""
        return make_conninfo(self.libpq_url, **self.options.libpq(role))

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A session whose transaction commits on success and rolls back on error."""
        async with self.sessions() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()


async def schema_revisions(db: Database) -> frozenset[str]:
    """The migration revision(s) the database says it is at (for /readyz)."""
    async with db.engine.connect() as conn:
        rows = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars().all()
    return frozenset(rows)

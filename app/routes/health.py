"""Health checks for service managers and load balancers: `/healthz` says the process answers,
`/readyz` that it can do real work: the database answers and its schema is at our newest
migration (so a process started against an unmigrated database is not sent traffic), a move
could be committed now (the commits' own connections reach a server that takes writes), and
the bus between processes hears and speaks."""

from __future__ import annotations

import asyncio
import logging
from functools import cache

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.errors import error_responses
from app.schemas import Health
from app.services import get_services
from app.store.db import alembic_config, schema_revisions

log = logging.getLogger(__name__)
router = APIRouter(tags=["health"])

READY_TIMEOUT = 5.0
"""Seconds /readyz waits for the database before it answers 503."""


@cache
def head_revisions() -> frozenset[str]:
    """The newest migration(s) this code ships (read once: the files do not change at run time)."""
    from alembic.script import ScriptDirectory  # only when asked (see `alembic_config`)

    script = ScriptDirectory.from_config(alembic_config("postgresql+psycopg://unused/unused"))
    return frozenset(script.get_heads())


@router.get("/healthz", response_model=Health, responses=error_responses())
async def healthz() -> Health:
    """The process is up and its event loop answers."""
    return Health(status="ok")


@router.get(
    "/readyz",
    response_model=Health,
    responses={**error_responses(), 503: {"model": Health, "description": "Not ready (see reason)"}},
)
async def readyz(request: Request) -> Health | JSONResponse:
    """The database answers, is migrated to head and takes commits, and the bus works (503 with
    the reason otherwise)."""
    services = get_services(request)
    try:
        async with asyncio.timeout(READY_TIMEOUT):
            revisions = await schema_revisions(services.db)
            writable = await services.tables.store.writable()
    except Exception as exc:  # any failure to reach the database means "not ready"
        log.info("not ready: the database did not answer (%s)", type(exc).__name__)
        return _unavailable("database")
    if revisions != head_revisions():
        return _unavailable("migrations")
    if not writable:
        return _unavailable("read-only")
    if not services.pubsub.ready:
        return _unavailable("bus")
    return Health(status="ok")


def _unavailable(reason: str) -> JSONResponse:
    return JSONResponse(Health(status="unavailable", reason=reason).model_dump(), status_code=503)

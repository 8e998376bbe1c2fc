"""`/metrics`: this process's Prometheus metrics (app/metrics.py), for the operator's scraper.

Not part of the public API (left out of /openapi.json); the shipped nginx site does not pass it
through, so a scraper reads each replica directly (docs/ARCHITECTURE.md, "Metrics")."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.metrics import CONTENT_TYPE
from app.services import get_services

router = APIRouter(tags=["operations"])


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Every series of this process in the Prometheus text format."""
    return Response(get_services(request).metrics.render(), media_type=CONTENT_TYPE)

"""`/docs`: Swagger UI served from this server (the bundle ships in the `fastapi-offline` wheel),
so the API reference works without internet and under our Content-Security-Policy (the page
has no inline script: its start-up code is the small file below)."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Card table API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/docs/assets/favicon.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>
"""

_INIT = """window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
"""


def mount_docs(app: FastAPI) -> None:
    """Serve the page, its start-up script and the bundle's files (the app has docs_url=None)."""
    app.mount("/docs/assets", StaticFiles(directory=ASSETS), name="docs-assets")
    router = APIRouter(include_in_schema=False)

    @router.api_route("/docs", methods=["GET", "HEAD"], response_class=HTMLResponse)
    async def docs_page() -> HTMLResponse:
        return HTMLResponse(_PAGE)

    @router.api_route("/docs/init.js", methods=["GET", "HEAD"])
    async def docs_init() -> Response:
        return Response(_INIT, media_type="text/javascript")

    app.include_router(router)

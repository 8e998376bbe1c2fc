"""The browser client: static files under /static and index.html for the client's page paths."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

CLIENT_PAGES = [
    "/",
    "/r/{code}",
    "/history",
    "/leaderboard",
    "/matches/{match_id}",
    "/matches/{match_id}/replay",
    "/rules/{game_id}",
    "/me",
    "/people/{person_id}",
]

_MISSING_CLIENT = """<!doctype html><meta charset="utf-8"><title>Card table</title>
<p>The browser client is not installed (static/index.html is missing).</p>
<p>ブラウザ用クライアントがありません（static/index.html が見つかりません）。</p>"""


def mount_client(app: FastAPI, static_dir: Path) -> None:
    static_dir.mkdir(parents=True, exist_ok=True)
    app.mount("/static", StaticFiles(directory=static_dir), name="static")
    router = APIRouter()
    index = static_dir / "index.html"

    async def client_page() -> FileResponse | HTMLResponse:
        """Every client path gets the same page; the client's router reads location.pathname."""
        if index.exists():
            return FileResponse(index, media_type="text/html", headers={"Cache-Control": "no-cache"})
        return HTMLResponse(_MISSING_CLIENT, status_code=503)

    for path in CLIENT_PAGES:
        router.add_api_route(path, client_page, methods=["GET"], include_in_schema=False, response_model=None)
    app.include_router(router)

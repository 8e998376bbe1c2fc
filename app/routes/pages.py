"""The browser client: static files under /static and index.html for the client's page paths."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.staticfiles import NotModifiedResponse
from starlette.types import Scope

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


REVALIDATE = "no-cache"
"""Every client file is checked with the server before each use (a 304 when unchanged): after an
upgrade a browser never runs some modules of the old client beside some of the new one, which a
cached copy kept by the browser's own guess of freshness could do."""

KEPT_BELOW_BYTES = 1 << 20
"""Client files smaller than this are answered from memory (the whole client is about 1 MB)."""


@dataclass(frozen=True)
class _KeptFile:
    stamp: tuple[int, int]  # (modification time in ns, size): a changed file is read again
    headers: Headers
    body: bytes


class ClientFiles(StaticFiles):
    """The client's files under /static, as Starlette's `StaticFiles` serves them (the same
    lookup, ETag, Last-Modified and 304s) but kept in memory after their first request and
    answered without a worker thread: a page loads about 35 modules, and each went through four
    thread hand-offs (stat, open, read, close), about three quarters of its CPU."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory)
        self._kept: dict[str, _KeptFile] = {}

    async def get_response(self, path: str, scope: Scope) -> Response:
        if scope["method"] in ("GET", "HEAD"):
            try:
                full_path, found = self.lookup_path(path)  # a path check and one stat: no thread
            except (OSError, ValueError):
                found = None  # answered below exactly as StaticFiles answers it
            if found is not None and stat.S_ISREG(found.st_mode) and found.st_size < KEPT_BELOW_BYTES:
                return self._answer(full_path, found, scope)
        response = await super().get_response(path, scope)
        response.headers["cache-control"] = REVALIDATE
        return response

    def _answer(self, full_path: str, found: os.stat_result, scope: Scope) -> Response:
        stamp = (found.st_mtime_ns, found.st_size)
        kept = self._kept.get(full_path)
        if kept is None or kept.stamp != stamp:
            headers = {**FileResponse(full_path, stat_result=found).headers, "cache-control": REVALIDATE}
            kept = _KeptFile(stamp, Headers(headers), Path(full_path).read_bytes())
            self._kept[full_path] = kept
        if self.is_not_modified(kept.headers, Headers(scope=scope)):
            return NotModifiedResponse(kept.headers)
        return Response(b"" if scope["method"] == "HEAD" else kept.body, headers=kept.headers)


def mount_client(app: FastAPI, static_dir: Path) -> None:
    static_dir.mkdir(parents=True, exist_ok=True)
    app.mount("/static", ClientFiles(static_dir), name="static")
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

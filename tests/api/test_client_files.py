"""The client's files (app/routes/pages.py, `ClientFiles`): answered from memory after the first
request, yet exactly as files: revalidated by the browser before each use (so an upgrade never
mixes old and new modules in one page), 304 while unchanged, read again once changed, bodiless
for HEAD, and a file too large to keep still served (streamed) with the same caching rule."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from app.routes import pages
from app.routes.pages import ClientFiles


def _client(directory: Path) -> httpx.AsyncClient:
    app = Starlette(routes=[Mount("/static", ClientFiles(directory))])
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://client")


async def test_a_kept_file_is_revalidated_304_while_unchanged_and_read_again_once_changed(
    tmp_path: Path,
) -> None:
    module = tmp_path / "js" / "a.js"
    module.parent.mkdir()
    module.write_text("export const one = 1;\n")
    async with _client(tmp_path) as http:
        first = await http.get("/static/js/a.js")
        assert first.status_code == 200 and first.text == "export const one = 1;\n"
        assert first.headers["cache-control"] == "no-cache"
        assert first.headers["content-type"].startswith("text/javascript")
        etag = first.headers["etag"]

        unchanged = await http.get("/static/js/a.js", headers={"If-None-Match": etag})
        assert unchanged.status_code == 304 and unchanged.content == b""
        head = await http.head("/static/js/a.js")
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-length"] == str(len("export const one = 1;\n"))

        module.write_text("export const two = 2;\n")
        later = os.stat(module).st_mtime_ns + 1_000_000_000
        os.utime(module, ns=(later, later))
        changed = await http.get("/static/js/a.js", headers={"If-None-Match": etag})
        assert changed.status_code == 200 and changed.text == "export const two = 2;\n"
        assert changed.headers["etag"] != etag

        assert (await http.get("/static/js/missing.js")).status_code == 404
        assert (await http.post("/static/js/a.js")).status_code == 405


async def test_a_file_too_large_to_keep_is_streamed_with_the_same_caching_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "KEPT_BELOW_BYTES", 4)
    (tmp_path / "big.css").write_text("body { margin: 0; }\n")
    async with _client(tmp_path) as http:
        response = await http.get("/static/big.css")
    assert response.status_code == 200 and response.text == "body { margin: 0; }\n"
    assert response.headers["cache-control"] == "no-cache"
    assert "etag" in response.headers

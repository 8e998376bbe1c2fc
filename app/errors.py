"""Readable errors: every 4xx answer is `{"detail": english, "messages": {"en": ..., "ja": ...}}`."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException


class ApiError(Exception):
    """An error a person should read, in both languages of the product."""

    def __init__(self, status: int, en: str, ja: str) -> None:
        super().__init__(en)
        self.status = status
        self.en = en
        self.ja = ja


def _body(en: str, ja: str | None = None) -> dict[str, object]:
    return {"detail": en, "messages": {"en": en, "ja": ja or en}}


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path"))
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(_body(exc.en, exc.ja), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        text = _describe_validation(exc)
        return JSONResponse(
            _body(f"invalid request: {text}", f"リクエストが不正です: {text}"), status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return JSONResponse(_body("not found", "見つかりません"), status_code=404)
        detail = exc.detail if isinstance(exc.detail, str) else "request failed"
        return JSONResponse(_body(detail), status_code=exc.status_code, headers=exc.headers)

"""Readable errors: every 4xx answer is `{"detail": english, "messages": {"en": ..., "ja": ...}}`,
request validation (422) included, and the OpenAPI schema documents exactly that shape."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.schemas import ErrorBody


class DomainError(Exception):
    """A refusal a person should read, in both languages, raised by the store (app/store/) and
    the logic modules. They know nothing of HTTP: `install_error_handlers` gives each kind its
    status, and the WebSocket turns the ones it meets into its own error codes."""

    def __init__(self, en: str, ja: str) -> None:
        super().__init__(en)
        self.en = en
        self.ja = ja


class Invalid(DomainError):
    """Input that can never be accepted as it is (422)."""


class NotFound(DomainError):
    """No such thing, or one the person may not know of (404)."""


class Forbidden(DomainError):
    """The thing exists, but this person may not do that with it (403)."""


class Conflict(DomainError):
    """Not possible in the current state (409): a running match, a taken seat, …"""


DOMAIN_STATUS: dict[type[DomainError], int] = {Invalid: 422, NotFound: 404, Forbidden: 403, Conflict: 409}


class ApiError(Exception):
    """An error a person should read, in both languages, with its HTTP status: for what only the
    HTTP layer decides (no session, too many sign-in attempts)."""

    def __init__(self, status: int, en: str, ja: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(en)
        self.status = status
        self.en = en
        self.ja = ja
        self.headers = headers


def error_body(en: str, ja: str | None = None) -> dict[str, Any]:
    return {"detail": en, "messages": {"en": en, "ja": ja or en}}


_DESCRIPTIONS = {
    400: "Malformed request (e.g. control characters in the path)",
    401: "Not signed in, or wrong account id or password",
    403: "Not allowed (not the host, or a request from another site)",
    404: "No such resource (or not visible to you)",
    409: "Conflicts with the current state of the room",
    413: "Request body too large",
    422: "Invalid input",
    429: "Too many requests (failed sign-ins, hints); see Retry-After",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: each listed status answers an `ErrorBody`. 400, 413 and 422 can
    come from any request (the request guard and validation), so every route lists them."""
    wanted = sorted({400, 413, 422, *statuses})
    return {status: {"model": ErrorBody, "description": _DESCRIPTIONS[status]} for status in wanted}


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path"))
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.en, exc.ja), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(DomainError)
    async def _domain_error(request: Request, exc: DomainError) -> JSONResponse:
        return JSONResponse(error_body(exc.en, exc.ja), status_code=DOMAIN_STATUS[type(exc)])

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        text = _describe_validation(exc)
        return JSONResponse(
            error_body(f"invalid request: {text}", f"リクエストが不正です: {text}"), status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return JSONResponse(error_body("not found", "見つかりません"), status_code=404)
        detail = exc.detail if isinstance(exc.detail, str) else "request failed"
        return JSONResponse(error_body(detail), status_code=exc.status_code, headers=exc.headers)

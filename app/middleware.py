"""Request guards and security headers, applied before any route sees a request.

`RequestGuard` refuses, with the usual two-language error body and no work done:
- a path with control characters (400): no resource has one, and PostgreSQL cannot store NUL;
- a state-changing `/api` request from another site (403): its `Origin` (or, when a browser
  sends none, its `Sec-Fetch-Site`) must name this host, as the WebSocket handshake already must;
- a body above `max_body_bytes` (413), checked on `Content-Length` and while reading a chunked
  body, so a 20 MB body is never read in full;
- a JSON body nested deeper than `MAX_JSON_DEPTH` or holding `\\u0000` (422): the first would
  exhaust Python's recursion while parsing, the second cannot be stored as text or JSONB.

`security_headers` adds a Content-Security-Policy (this origin only, no inline script) and frame
protection to every HTTP answer, pages and API alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote, urlsplit

from app.errors import error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays/objects accepted in a request body; real requests use three."""

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]+)?|\[[0-9A-Fa-f:.]+\](:[0-9]+)?")
_JSON_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def json_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether brackets outside strings nest deeper than `limit` (a scan, no recursion)."""
    if body.count(b"[") + body.count(b"{") <= limit:  # every message of play: no scan needed
        return False
    depth = 0
    for token in _JSON_TOKENS.finditer(body):
        char = token.group()[:1]
        if char in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        elif char in (b"]", b"}"):
            depth -= 1
    return False


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def content_security_policy(host: str | None) -> str:
    """Everything from this origin only: no inline or eval'd script, no inline `<style>` or style
    attribute, no framing. The client positions cards through the CSSOM (`element.style`, see
    static/js/dom.js), which a policy does not restrict, so nothing inline is needed."""
    sockets = f" ws://{host} wss://{host}" if host and _HOST.fullmatch(host) else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; "
        f"img-src 'self' data:; font-src 'self'; connect-src 'self'{sockets}; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


class RequestGuard:
    """Pure ASGI middleware (see the module docstring); WebSockets pass through to their route."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            # WebSockets: the socket route answers bad paths itself (an error frame, close 4404).
            await self.app(scope, receive, send)
            return
        raw_path = scope.get("raw_path") or scope["path"].encode()
        if _CONTROL.search(unquote(raw_path.decode("latin-1"))):
            await _refuse(send, 400, "the path contains control characters", "パスに制御文字が含まれています")
            return
        headers = _headers(scope)
        cross_site = scope["method"] in UNSAFE_METHODS and not _same_site(headers)
        if cross_site and scope["path"].startswith("/api/"):
            await _refuse(
                send, 403, "requests from other sites are refused", "他のサイトからの操作は受け付けません"
            )
            return
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            await _refuse(
                send, 413, f"the body is larger than {self.max_body_bytes} bytes", "送信データが大きすぎます"
            )
            return
        if scope["method"] not in UNSAFE_METHODS:
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                await _refuse(
                    send,
                    413,
                    f"the body is larger than {self.max_body_bytes} bytes",
                    "送信データが大きすぎます",
                )
                return
            if not message.get("more_body"):
                break
        if json_too_deep(bytes(body)):
            await _refuse(
                send,
                422,
                "invalid request: JSON nested too deeply",
                "リクエストが不正です: JSONの入れ子が深すぎます",
            )
            return
        if b"\\u0000" in body:
            await _refuse(
                send,
                422,
                "invalid request: text cannot contain NUL characters",
                "リクエストが不正です: NUL文字は使えません",
            )
            return
        await self.app(scope, _replay(bytes(body), receive), send)


def _same_site(headers: dict[str, str]) -> bool:
    origin = headers.get("origin")
    if origin is not None:
        return origin != "null" and urlsplit(origin).netloc == headers.get("host")
    # No Origin: not a browser (tools, tests), or an old one; modern ones say where it came from.
    return headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(send: Send, status: int, en: str, ja: str) -> None:
    payload = json.dumps(error_body(en, ja), ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class SecurityHeaders:
    """Adds CSP, frame protection and no-sniff to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = content_security_policy(_headers(scope).get("host")).encode("latin-1", "replace")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (b"content-security-policy", policy),
                    (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                ]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)

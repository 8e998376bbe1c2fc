"""WebSocket routes served from the top of the ASGI stack, past the HTTP-only middleware.

An ASGI middleware that awaits the next app keeps its coroutine frame (and what the frame
holds) alive for as long as the next app runs: for a WebSocket, the socket's whole life. Every
layer between uvicorn and a socket route (Starlette's error and exception middleware, this
app's `RequestGuard` and `SecurityHeaders`, FastAPI's exit stacks and nested routers: about
twenty frames and three `AsyncExitStack`s) only passes WebSocket scopes through, yet they held
several KB of every live socket's heap (with the rows the handshake kept, ~8 KB by
tracemalloc). `CardTableApp` hands a WebSocket whose path matches one of its socket routes
straight to the endpoint; everything else (HTTP, lifespan, any other WebSocket path) takes the
ordinary FastAPI stack.

What a socket route gives up is what those layers do for WebSockets, which is nothing this
app uses: no dependency injection (an endpoint gets the `WebSocket` and its path parameters),
no exception handlers (an escaping exception reaches uvicorn, which logs it and, before the
handshake, answers 500, as before), no OpenTelemetry spans (the app configures none). Every
check a socket needs (Origin, session, invite code, message limits) is the endpoint's own, as
it always was: the HTTP middleware never looked at WebSockets.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI
from starlette.convertors import Convertor
from starlette.routing import compile_path
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

SocketEndpoint = Callable[..., Awaitable[None]]


class CardTableApp(FastAPI):
    """FastAPI plus socket routes that skip the middleware stack (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.socket_routes: list[tuple[re.Pattern[str], dict[str, Convertor[Any]], SocketEndpoint]] = []

    def add_socket_route(self, path: str, endpoint: SocketEndpoint) -> None:
        """`path` in Starlette's syntax (`/ws/rooms/{code}`, `{n:int}`), matched and converted as a
        Starlette route would; the parameters are passed to `endpoint` by name."""
        pattern, _, convertors = compile_path(path)
        self.socket_routes.append((pattern, convertors, endpoint))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.socket_routes:
            path = scope["path"]
            root = scope.get("root_path") or self.root_path
            if root and path.startswith(root):
                path = path[len(root) :]
            for pattern, convertors, endpoint in self.socket_routes:
                found = pattern.match(path)
                if found is not None:
                    params = {k: convertors[k].convert(v) for k, v in found.groupdict().items()}
                    scope["app"] = self  # what `websocket.app` (the services) reads
                    await endpoint(WebSocket(scope, receive, send), **params)
                    return
        await super().__call__(scope, receive, send)

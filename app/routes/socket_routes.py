"""WebSocket routes served from the top of the ASGI stack, past the HTTP-only middleware.

An ASGI middleware that awaits the next app keeps its coroutine frame (and what the frame
holds) alive for as long as the next app runs: for a WebSocket, the socket's whole life. Every
layer between uvicorn and a socket route (Starlette's error and exception middleware, this
app's `RequestGuard` and `SecurityHeaders`, FastAPI's exit stacks and nested routers) only
passes WebSocket scopes through, yet together they held several KB of every live socket's heap.
`CardTableApp` hands a WebSocket whose path matches one of its socket routes (Starlette's own
`WebSocketRoute`, which matches and converts the path) straight to that route's endpoint;
everything else (HTTP, lifespan, any other WebSocket path) takes the ordinary FastAPI stack.

What a socket route gives up is what those layers do for WebSockets, which is nothing this
app uses: no dependency injection (an endpoint gets the `WebSocket`, its path parameters in
`websocket.path_params`), no exception handlers of the app's (an escaping exception reaches
uvicorn, which logs it and, before the handshake, answers 500). Every check a socket needs
(Origin, session, invite code, message limits) is the endpoint's own, as it always was: the
HTTP middleware never looked at WebSockets.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI
from starlette.routing import Match, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket


class CardTableApp(FastAPI):
    """FastAPI plus socket routes that skip the middleware stack (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.socket_routes: list[WebSocketRoute] = []

    def add_socket_route(self, path: str, endpoint: Callable[[WebSocket], Awaitable[None]]) -> None:
        """`path` in Starlette's syntax (`/ws/rooms/{code}`)."""
        self.socket_routes.append(WebSocketRoute(path, endpoint))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            for route in self.socket_routes:
                match, child_scope = route.matches(scope)
                if match is Match.FULL:
                    scope.update(child_scope)
                    scope["app"] = self  # what `websocket.app` (the services) reads
                    # The endpoint itself: Starlette's wrapper around it would only add frames
                    # for the exception handlers this path has none of.
                    await route.endpoint(WebSocket(scope, receive, send))
                    return
        await super().__call__(scope, receive, send)

"""permessage-deflate as the server negotiates it: by default each message is compressed on its
own (no zlib state kept per socket between messages), `stream` keeps one context per socket,
`off` sends plain frames; play works the same in every mode."""

from __future__ import annotations

import pytest

from tests.api.harness import browser, make_room, running_server
from tests.api.test_table import seat_and_start

pytestmark = pytest.mark.asyncio


def negotiated(socket: object) -> str:
    headers = socket.connection.response.headers  # type: ignore[attr-defined]
    return headers.get("Sec-WebSocket-Extensions", "")


@pytest.mark.parametrize(
    ("mode", "expected", "absent"),
    [
        ("message", ["permessage-deflate", "server_no_context_takeover", "client_no_context_takeover"], []),
        ("stream", ["permessage-deflate", "server_max_window_bits=12"], ["no_context_takeover"]),
        ("off", [], ["permessage-deflate"]),
    ],
)
async def test_the_socket_negotiates_the_configured_compression_and_a_match_plays_through_it(
    database_url: str, mode: str, expected: list[str], absent: list[str]
) -> None:
    async with running_server(database_url, ws_compression=mode) as server, browser(server, "Ann") as ann:
        code = (await make_room(ann, seats=3, hands=1))["code"]
        await seat_and_start(ann, code, {0: ann, 1: "bot", 2: "bot"})
        async with ann.socket(code) as ws:
            state = await ws.wait_state()
            extensions = negotiated(ws)
            assert all(word in extensions for word in expected), extensions
            assert not any(word in extensions for word in absent), extensions
            # Several compressed messages in a row decode (each on its own in "message" mode).
            first = state["version"]
            for _ in range(3):
                legal = state["legal"].get("0") or []
                if legal:
                    await ws.act(0, state["version"], legal[0])
                version = state["version"]
                state = await ws.wait_state(lambda m, v=version: m["version"] > v)
        assert state["version"] >= first + 3

"""permessage-deflate as the server negotiates it (uvicorn's own): `stream` keeps one zlib
context per socket, `off` (the default) sends plain frames; play works the same in both. A mode
uvicorn does not offer stops the server at start with an error that says so."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.config import Settings
from tests.api.harness import browser, make_room, running_server
from tests.api.test_table import seat_and_start


def negotiated(socket: object) -> str:
    headers = socket.connection.response.headers  # type: ignore[attr-defined]
    return headers.get("Sec-WebSocket-Extensions", "")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("mode", "expected", "absent"),
    [
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
            # Several compressed messages in a row decode.
            first = state["version"]
            for _ in range(3):
                legal = state["legal"].get("0") or []
                if legal:
                    await ws.act(0, state["version"], legal[0])
                version = state["version"]
                state = await ws.wait_state(lambda m, v=version: m["version"] > v)
        assert state["version"] >= first + 3


def test_the_default_is_no_compression(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move's state is a few hundred bytes: not worth the zlib state a socket would keep."""
    monkeypatch.delenv("CARDTABLE_WS_COMPRESSION", raising=False)
    assert Settings(database_url="postgresql://unused").ws_compression == "off"


@pytest.mark.parametrize("value", ["message", "gzip", ""])
def test_a_compression_uvicorn_does_not_offer_is_refused_at_start(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`message` (each message compressed on its own, which this server once offered) and any
    other unknown value stop the server at start with an error naming the setting."""
    monkeypatch.setenv("CARDTABLE_WS_COMPRESSION", value)
    with pytest.raises(ValidationError) as refused:
        Settings()
    said = str(refused.value)
    assert "ws_compression" in said or "CARDTABLE_WS_COMPRESSION" in said
    if value == "message":
        assert "CARDTABLE_WS_COMPRESSION=message is no longer offered" in said
        assert "'stream'" in said and "'off'" in said

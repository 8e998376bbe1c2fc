"""permessage-deflate as the server negotiates it: by default each message is compressed on its
own (no zlib state kept per socket between messages), `stream` keeps one context per socket,
`off` sends plain frames; play works the same in every mode."""

from __future__ import annotations

import pytest

from tests.api.harness import browser, make_room, running_server
from tests.api.test_table import seat_and_start


def negotiated(socket: object) -> str:
    headers = socket.connection.response.headers  # type: ignore[attr-defined]
    return headers.get("Sec-WebSocket-Extensions", "")


@pytest.mark.asyncio
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


def test_in_the_per_message_mode_short_messages_travel_plain_and_long_ones_compressed() -> None:
    """A move's few hundred bytes skip deflate's per-message cost; a first state or a hand's
    results (over PLAIN_BELOW) are still compressed, and the client reads both back."""
    from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
    from websockets.frames import Frame, Opcode

    from app.ws_protocol import PLAIN_BELOW, deflate_factory

    offer = ClientPerMessageDeflateFactory(
        server_no_context_takeover=True, client_no_context_takeover=True, client_max_window_bits=True
    )
    factory = deflate_factory("message")
    assert factory is not None
    answer, server = factory.process_request_params(offer.get_request_params(), [])
    client = offer.process_response_params(answer, [])
    short = b'{"type":"state","views":{"0":{"trick":["H5"]}}}'
    long = ('{"type":"state","hands":[' + ",".join(['{"scores":[1,2,3,4]}'] * 80) + "]}").encode()
    assert len(short) < PLAIN_BELOW <= len(long)
    for data, compressed in ((short, False), (long, True), (short, False)):
        sent = server.encode(Frame(Opcode.TEXT, data))
        assert sent.rsv1 is compressed
        assert (len(sent.data) < len(data)) is compressed
        assert client.decode(sent).data == data


def test_the_stream_mode_compresses_short_messages_too() -> None:
    """With a zlib stream kept per socket a short message costs a few dozen bytes: worth it."""
    from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
    from websockets.frames import Frame, Opcode

    from app.ws_protocol import deflate_factory

    offer = ClientPerMessageDeflateFactory(client_max_window_bits=True)
    factory = deflate_factory("stream")
    assert factory is not None
    _, server = factory.process_request_params(offer.get_request_params(), [])
    assert server.encode(Frame(Opcode.TEXT, b'{"type":"state","version":12}')).rsv1


@pytest.mark.parametrize("mode", ["message", "stream", "off"])
def test_a_message_the_server_frames_itself_is_the_frame_websockets_would_send(mode: str) -> None:
    """`write_text` frames a message that goes out plain itself (app/ws_protocol.py): byte for
    byte what websockets sends for it, at every length where the header changes; a message the
    negotiated compression would deflate is left to websockets."""
    from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
    from websockets.protocol import State
    from websockets.server import ServerProtocol

    from app.ws_protocol import PLAIN_BELOW, deflate_factory, plain_below, plain_text_frame

    factory = deflate_factory(mode)  # type: ignore[arg-type]
    extensions = []
    if factory is not None:
        offer = ClientPerMessageDeflateFactory(
            server_no_context_takeover=mode == "message",
            client_no_context_takeover=mode == "message",
            client_max_window_bits=True,
        )
        extensions = [factory.process_request_params(offer.get_request_params(), [])[1]]
    limit = plain_below(extensions)
    expected_limit = {"message": PLAIN_BELOW, "stream": 0}
    assert limit == expected_limit[mode] if mode in expected_limit else limit > 1 << 20
    for size in (0, 1, 125, 126, 1000, 1023, 1024, 65535, 65536, 70000):
        data = b"x" * size
        server = ServerProtocol()
        server.state, server.extensions = State.OPEN, list(extensions)
        server.send_text(data)
        sent = b"".join(server.data_to_send())
        if size < limit:
            assert plain_text_frame(data) == sent, size
        else:
            assert sent[0] & 0x40, f"a {size}-byte message in the {mode} mode is compressed"

"""Reading a client's frames at once (app/ws_protocol.py, "Reading at once"): the protocol reads
whole small text frames itself and leaves every other frame to websockets' parser. Whatever
bytes a client sends, however the network splits them, the app must receive the same messages
and the client the same answers (pongs, closes with their codes) as with websockets reading
everything."""

from __future__ import annotations

import asyncio
import os
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from app.ws_protocol import MAX_MESSAGE_BYTES, frame_end, protocol_class, read_text_frame

# ---- the client's bytes -------------------------------------------------------------------------


def client_for(mode: str) -> ClientProtocol:
    """A websockets client offering what browsers offer (permessage-deflate, when the server's
    mode takes it)."""
    offer = ClientPerMessageDeflateFactory(
        server_no_context_takeover=mode == "message",
        client_no_context_takeover=mode == "message",
        server_max_window_bits=12,
        client_max_window_bits=12,
    )
    return ClientProtocol(parse_uri("ws://127.0.0.1/echo"), extensions=[offer] if mode != "off" else [])


def raw_frame(opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0, masked: bool = True) -> bytes:
    """A frame as any client could write it, valid or not."""
    size = len(payload)
    first = (0x80 if fin else 0) | rsv | opcode
    mask_bit = 0x80 if masked else 0
    if size < 126:
        head = bytes((first, mask_bit | size))
    elif size < 1 << 16:
        head = bytes((first, mask_bit | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((first, mask_bit | 127)) + size.to_bytes(8, "big")
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[n % 4] for n, b in enumerate(payload))


def deflated(data: bytes, bits: int = 12) -> bytes:
    """`data` as one per-message deflate stream, the final empty block stripped (RFC 7692)."""
    compressor = zlib.compressobj(wbits=-bits)
    out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return out[:-4]


TEXTS = st.text(alphabet=st.characters(codec="utf-8"), max_size=300) | st.sampled_from(
    [
        '{"type":"action","match_id":1,"seat":0,"version":12,"action":{"type":"play","cards":["H5"]}}',
        "",
        "x" * 200,
    ]
)


@st.composite
def client_frames(draw: st.DrawFn) -> bytes:
    """One frame of what a client may send: mostly the text messages a person's browser sends,
    sometimes anything else (control frames, fragments, binary, malformed frames)."""
    text = draw(TEXTS).encode()
    kind = draw(
        st.sampled_from(
            ["text", "text", "text", "deflated", "deflated", "ping", "pong", "binary", "fragments",
             "fragment_start", "unmasked", "rsv2", "bad_utf8", "bad_deflate", "long_ping", "medium_text"]
        )
    )  # fmt: skip
    if kind == "text":
        return raw_frame(0x1, text)
    if kind == "deflated":
        return raw_frame(0x1, deflated(text), rsv=0x40)
    if kind == "medium_text":
        return raw_frame(0x1, text * (1 + 70_000 // (len(text) + 1)) if text else b"y" * 70_000)
    if kind == "ping":
        return raw_frame(0x9, text[:100])
    if kind == "pong":
        return raw_frame(0xA, text[:100])
    if kind == "binary":
        return raw_frame(0x2, text)
    if kind == "fragments":
        return raw_frame(0x1, text[:5], fin=False) + raw_frame(0x0, text[5:])
    if kind == "fragment_start":  # a message begun and not finished (what follows must continue it)
        return raw_frame(0x1, text, fin=False)
    if kind == "unmasked":
        return raw_frame(0x1, text, masked=False)
    if kind == "rsv2":
        return raw_frame(0x1, text, rsv=0x20)
    if kind == "bad_utf8":
        return raw_frame(0x1, text + b"\xff\xfe")
    if kind == "bad_deflate":
        return raw_frame(0x1, b"\xff" + text, rsv=0x40)
    return raw_frame(0x9, b"p" * 130)  # a control frame longer than 125 bytes


# ---- a protocol on a fake transport -------------------------------------------------------------


class Transport(asyncio.Transport):
    """What the protocol writes, and whether it closed or paused the socket."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False
        self.paused = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.paused += 1

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)


class Session:
    """One socket of a server whose app accepts and records every message it receives."""

    def __init__(self, mode: str, reads_frames: bool) -> None:
        self.received: list[dict[str, Any]] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await receive()
            await send({"type": "websocket.accept"})
            while True:
                message = await receive()
                self.received.append(message)
                if message["type"] == "websocket.disconnect":
                    return

        config = Config(app=app, ws_max_size=MAX_MESSAGE_BYTES, lifespan="off", proxy_headers=False)
        config.load()
        kind = protocol_class(mode)  # type: ignore[arg-type]
        if not reads_frames:  # websockets' parser reads everything, as in uvicorn itself
            kind = type("ParserOnly", (kind,), {"data_received": WebSocketsSansIOProtocol.data_received})
        self.protocol = kind(config=config, server_state=ServerState(), app_state={})
        self.transport = Transport()
        self.protocol.connection_made(self.transport)

    async def feed(self, chunks: list[bytes]) -> None:
        for chunk in chunks:
            if not self.transport.closed:
                self.protocol.data_received(chunk)
            for _ in range(3):
                await asyncio.sleep(0)

    def answers(self, skip: int) -> bytes:
        """What the server wrote after its first `skip` writes (the handshake's answer)."""
        return b"".join(self.transport.written[skip:])


async def open_session(mode: str, reads_frames: bool) -> tuple[Session, ClientProtocol]:
    session, client = Session(mode, reads_frames), client_for(mode)
    client.send_request(client.connect())
    await session.feed([b"".join(client.data_to_send())])
    client.receive_data(b"".join(session.transport.written))
    assert session.protocol.handshake_complete and client.events_received()
    return session, client


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]


async def both_ways(mode: str, frames: list[bytes], cuts: list[int]) -> tuple[Session, Session]:
    sessions = []
    for reads_frames in (True, False):
        session, _ = await open_session(mode, reads_frames)
        written = len(session.transport.written)
        await session.feed(split(b"".join(frames), cuts))
        session.transport.written[:written] = []
        sessions.append(session)
    return sessions[0], sessions[1]


def assert_alike(reading: Session, parsing: Session) -> None:
    """Same messages, answers and closing. One difference is allowed, in the reader's favour:
    when a frame breaks the protocol, uvicorn drops the messages websockets had read before it
    in the same chunk of bytes (it delivers them when they came in an earlier chunk), while the
    protocol has already queued those it read; the disconnect that follows is the same."""
    ended = [m for m in parsing.received if m["type"] == "websocket.disconnect"]
    if not ended or ended[0]["code"] == 1000:
        assert reading.received == parsing.received
    else:
        assert reading.received[-1] == parsing.received[-1] == ended[0]
        kept = parsing.received[:-1]
        assert reading.received[: len(kept)] == kept
        assert all(m["type"] == "websocket.receive" for m in reading.received[len(kept) : -1])
    assert reading.answers(0) == parsing.answers(0)
    assert reading.transport.closed == parsing.transport.closed


# ---- the tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["message", "off"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frames=st.lists(client_frames(), min_size=1, max_size=8),
    cuts=st.lists(st.integers(0, 1 << 20), max_size=6),
)
def test_any_frames_split_anyhow_reach_the_app_as_websockets_alone_would_deliver_them(
    mode: str, frames: list[bytes], cuts: list[int]
) -> None:
    reading, parsing = asyncio.run(both_ways(mode, frames, cuts))
    assert_alike(reading, parsing)


@pytest.mark.parametrize("mode", ["message", "stream", "off"])
def test_a_browsers_messages_arrive_in_order_whatever_the_mode(mode: str) -> None:
    """Texts written by a real client (compressed as it negotiated), one byte at a time and all
    at once, then a close: the app receives them, and the disconnect, exactly as with websockets."""

    async def run(reads_frames: bool, one_byte_at_a_time: bool) -> Session:
        session, client = await open_session(mode, reads_frames)
        for n in range(5):
            client.send_text(f'{{"type":"action","n":{n},"text":"{"あ" * n * 300}"}}'.encode())
        client.send_close(1000)
        data = b"".join(client.data_to_send())
        chunks = [data[n : n + 1] for n in range(len(data))] if one_byte_at_a_time else [data]
        written = len(session.transport.written)
        await session.feed(chunks)
        session.transport.written[:written] = []
        return session

    async def check() -> None:
        for one_byte in (True, False):
            reading, parsing = await run(True, one_byte), await run(False, one_byte)
            texts = [m.get("text", "") for m in reading.received[:5]]
            assert all(text.startswith(f'{{"type":"action","n":{n},') for n, text in enumerate(texts))
            assert reading.received[-1]["type"] == "websocket.disconnect"
            assert_alike(reading, parsing)

    asyncio.run(check())


@pytest.mark.parametrize(("mode", "reads"), [("message", True), ("off", True), ("stream", False)])
def test_the_protocol_reads_text_frames_itself_unless_zlib_state_lives_between_messages(
    mode: str, reads: bool
) -> None:
    async def check() -> None:
        session, client = await open_session(mode, True)
        client.send_text(b'{"type":"ping"}')
        await session.feed([b"".join(client.data_to_send())])
        assert session.received == [{"type": "websocket.receive", "text": '{"type":"ping"}'}]
        assert session.protocol._own_frames is reads  # type: ignore[attr-defined]

    asyncio.run(check())


def test_a_frame_over_the_size_limit_is_refused_from_its_header_without_waiting_for_it() -> None:
    """A client announcing a message past the limit is closed at once with 1009 (message too big),
    as websockets does: the protocol does not buffer a megabyte to find that out."""

    async def check() -> None:
        session, client = await open_session("message", True)
        await session.feed([raw_frame(0x1, b"ok")])
        header = bytes((0x81, 0x80 | 127)) + (MAX_MESSAGE_BYTES + 1).to_bytes(8, "big") + b"mask"
        await session.feed([header + b"x" * 1000])
        assert session.transport.closed
        client.receive_data(session.answers(1))
        [close] = [e for e in client.events_received() if isinstance(e, Frame) and e.opcode is Opcode.CLOSE]
        assert int.from_bytes(close.data[:2], "big") == 1009
        assert session.received[0] == {"type": "websocket.receive", "text": "ok"}

    asyncio.run(check())


@pytest.mark.parametrize("then", ["continuation", "new text"])
def test_a_fragmented_message_is_left_to_websockets_until_it_ends(then: str) -> None:
    """A message begun in one chunk and continued in the next is joined by websockets; a new text
    frame where a continuation was due breaks the protocol (1002), whoever would have read it."""
    follow = raw_frame(0x0, b" world") if then == "continuation" else raw_frame(0x1, b"other")

    async def run(reads_frames: bool) -> Session:
        session, _ = await open_session("message", reads_frames)
        written = len(session.transport.written)
        await session.feed([raw_frame(0x1, b"hello", fin=False)])
        await session.feed([follow])
        await session.feed([raw_frame(0x1, b"next")])
        session.transport.written[:written] = []
        return session

    async def check() -> None:
        reading, parsing = await run(True), await run(False)
        assert reading.received == parsing.received
        assert reading.answers(0) == parsing.answers(0)
        texts = [m.get("text") for m in reading.received]
        assert texts == (["hello world", "next"] if then == "continuation" else [None])

    asyncio.run(check())


def test_a_compressed_message_that_inflates_past_the_limit_closes_the_socket_unread() -> None:
    """A few kilobytes that inflate to more than the limit (a "zip bomb") are never inflated
    whole: the socket is closed with 1009, as websockets does."""

    async def check() -> None:
        session, client = await open_session("message", True)
        bomb = raw_frame(0x1, deflated(b" " * (MAX_MESSAGE_BYTES + 1)), rsv=0x40)
        assert len(bomb) < 4096
        await session.feed([bomb])
        assert session.transport.closed
        assert [m["type"] for m in session.received] == ["websocket.disconnect"]
        assert session.received[0]["code"] == 1009

    asyncio.run(check())


def test_a_client_that_sends_a_frame_before_the_handshake_answer_is_read_by_websockets_alone() -> None:
    """Bytes that came with the request may have been half read by websockets' parser already:
    such a socket's frames are never split by the protocol, and still arrive."""

    async def check() -> None:
        session, client = Session("off", True), client_for("off")
        client.send_request(client.connect())
        early = raw_frame(0x1, b"early")  # its first two bytes come with the request: the parser
        await session.feed([b"".join(client.data_to_send()) + early[:2]])  # takes them at once
        assert not session.protocol.conn.reader.buffer
        await session.feed([early[2:], raw_frame(0x1, b"later")])
        assert [m.get("text") for m in session.received] == ["early", "later"]
        assert session.protocol._parser_fed and not session.protocol._own_frames  # type: ignore[attr-defined]

    asyncio.run(check())


@settings(max_examples=300, deadline=None)
@given(frame=client_frames())
def test_a_text_frame_read_at_once_says_what_websockets_reads_in_it(frame: bytes) -> None:
    """`read_text_frame` reads only what websockets reads the same way; the rest it leaves."""
    from websockets.extensions.permessage_deflate import PerMessageDeflate
    from websockets.streams import StreamReader

    end = frame_end(frame, 0)
    assert end is not None and end <= len(frame)
    text = read_text_frame(frame[:end], 12, MAX_MESSAGE_BYTES)
    if text is None:
        return
    reader = StreamReader()
    reader.feed_data(frame[:end])
    parser = Frame.parse(
        reader.read_exact,
        mask=True,
        max_size=MAX_MESSAGE_BYTES,
        extensions=[PerMessageDeflate(True, True, 12, 12)],
    )
    with pytest.raises(StopIteration) as parsed:
        next(parser)
    read: Frame = parsed.value.value
    assert read.opcode is Opcode.TEXT and read.fin
    assert bytes(read.data).decode() == text

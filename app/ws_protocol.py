"""The WebSocket protocol uvicorn runs for this server: its own permessage-deflate settings.

uvicorn's default keeps one zlib compressor and one decompressor per socket for the socket's whole
life (context takeover): a state message then costs a few dozen bytes on the wire, but every
connected player holds about 45 KB of zlib state in the server even while nobody plays. A table
of friends sends a few hundred bytes per move, so by default this server compresses each message
on its own (no context takeover in either direction: zlib state exists only while a message is
compressed), and a setting brings uvicorn's kept contexts back where bandwidth matters more
than memory (`CARDTABLE_WS_COMPRESSION`).

In the per-message mode a message shorter than `PLAIN_BELOW` bytes goes out uncompressed (RFC 7692
lets a sender leave any message's RSV1 bit clear; every client reads both): a move's state
message is a few hundred bytes, which deflate saves about 200 of for a fresh zlib stream per
message, the largest single cost of sending it (about a tenth of the server's CPU per move with
four people at a table: docs/BENCHMARKS.md). The first state of a connection and a hand's results
are larger and still compressed.

The protocol also keeps less for each socket's life than uvicorn's: its incoming-message queue is
a `Mailbox` (a list, where `asyncio.Queue` keeps four deques, ~3 KB), its "writable" event a
`Gate` (no deque), and the handshake's
request and response (their header tables, ~3.5 KB) are let go once the socket is accepted:
the ASGI scope keeps its own copy of the request headers, which is what the app reads.

Sending at once: the ASGI way to send a message is a coroutine (the app's lock for the socket,
Starlette's checks, uvicorn's wait for a writable transport), so the server gave every state
message to every socket a task of its own. The protocol also offers itself in the connection's
scope (`scope["extensions"][DIRECT_SEND]`, an ASGI extension): when `ready()` says nothing stands
in the way, `write_text` frames and writes a text message in the caller's turn, exactly as
uvicorn's `send` would (app/routes/ws.py, `RoomConnection.notify`). A message that goes out
plain anyway (under `PLAIN_BELOW` in the per-message mode, any message with compression off) is
framed here (`plain_text_frame`, the two to ten bytes RFC 6455 puts before it) rather than by
websockets' general path, which costs about 3.4 µs more per message, four times per move at a
table of four people.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import CTRL_OPCODES, Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import ExtensionParameter

from app.mailbox import Gate, Mailbox

Compression = Literal["message", "stream", "off"]

MAX_MESSAGE_BYTES = 1 << 20
"""Client messages are small actions; anything near this size is abuse, not play."""

WINDOW_BITS = 12
"""zlib window (4 KB) in both directions: messages are smaller than that."""

MEM_LEVEL = 5
"""zlib's hash-table size for the compressor (uvicorn's choice too): 8 KB instead of 128 KB."""


PLAIN_BELOW = 1024
"""Messages shorter than this (bytes of UTF-8) travel uncompressed in the per-message mode."""


DIRECT_SEND = "cardtable.direct_send"
"""The scope extension under which the protocol offers `DirectSend`."""


class DirectSend(Protocol):
    """Writing a text message without awaiting, when the socket is ready for it."""

    def ready(self) -> bool:
        """The handshake is done, no close was sent or received and the transport takes data
        (its buffer under the high-water mark): `write_text` would not have to wait."""
        ...

    def write_text(self, text: str) -> None:
        """Frame `text` (compressed as the socket negotiated) and hand it to the transport.
        Call only right after `ready()` said True, in the same turn of the event loop."""
        ...


def plain_text_frame(data: bytes) -> bytes:
    """One whole, unmasked, uncompressed text frame carrying `data`: a server's frame as
    websockets serializes it (FIN and the text opcode, then the length in 7, 16 or 64 bits)."""
    size = len(data)
    if size < 126:
        head = bytes((0x81, size))
    elif size < 1 << 16:
        head = b"\x81\x7e" + size.to_bytes(2, "big")
    else:
        head = b"\x81\x7f" + size.to_bytes(8, "big")
    return head + data


def plain_below(extensions: Sequence[Extension]) -> int:
    """How long (in bytes) a text message may be and still go out exactly as it is, with these
    negotiated extensions: any length with none, `PLAIN_BELOW` with the per-message mode's,
    never with another (the stream mode compresses every message)."""
    if not extensions:
        return sys.maxsize
    if all(isinstance(extension, PlainSmallMessages) for extension in extensions):
        return PLAIN_BELOW
    return 0


class PlainSmallMessages(PerMessageDeflate):
    """permessage-deflate without context takeover that sends a short single-frame message as
    it is: with no context kept between messages, skipping one changes nothing for the next."""

    def encode(self, frame: Frame) -> Frame:
        whole_message = frame.fin and frame.opcode not in CTRL_OPCODES and frame.opcode is not Opcode.CONT
        if whole_message and len(frame.data) < PLAIN_BELOW:
            return frame
        return super().encode(frame)


class PerMessageFactory(ServerPerMessageDeflateFactory):
    """The per-message offer, whose extension leaves short messages plain."""

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, extension = super().process_request_params(params, accepted_extensions)
        assert isinstance(extension, PerMessageDeflate)
        plain = PlainSmallMessages(
            extension.remote_no_context_takeover,
            extension.local_no_context_takeover,
            extension.remote_max_window_bits,
            extension.local_max_window_bits,
            extension.compress_settings,
        )
        return response, plain


def deflate_factory(compression: Compression) -> ServerPerMessageDeflateFactory | None:
    """The permessage-deflate offer the server accepts, or None when compression is off."""
    if compression == "off":
        return None
    per_message = compression == "message"
    factory = PerMessageFactory if per_message else ServerPerMessageDeflateFactory
    return factory(
        server_no_context_takeover=per_message,
        client_no_context_takeover=per_message,
        server_max_window_bits=WINDOW_BITS,
        client_max_window_bits=WINDOW_BITS,
        compress_settings={"memLevel": MEM_LEVEL},
    )


def protocol_class(compression: Compression) -> type[WebSocketsSansIOProtocol]:
    """uvicorn's sans-I/O WebSocket protocol whose handshake offers `compression`."""
    factory = deflate_factory(compression)

    class CardTableWebSocketProtocol(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # Replaced before any byte arrives (connection_made has not run yet).
            self.conn = ServerProtocol(
                extensions=[factory] if factory is not None else [],
                max_size=MAX_MESSAGE_BYTES,
                logger=logging.getLogger("uvicorn.error"),
            )
            # The calls uvicorn makes on its queue and event, in less memory (app/mailbox.py).
            self.queue = Mailbox()  # type: ignore[assignment]
            self.writable = Gate(is_set=True)  # type: ignore[assignment]
            self._plain_below: int | None = None  # known once the handshake chose the extensions

        def handle_connect(self, event: Request) -> None:
            super().handle_connect(event)
            self.scope["extensions"][DIRECT_SEND] = self  # type: ignore[assignment]

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            # The scope refers to the protocol: without this cycle the protocol goes as soon as
            # uvicorn and the transport let go of it, not at the next cyclic collection.
            if getattr(self, "scope", None) is not None:
                self.scope.get("extensions", {}).pop(DIRECT_SEND, None)

        def ready(self) -> bool:
            return (
                self.writable.is_set()
                and self.handshake_complete
                and not self.disconnected
                and not self.close_sent
                and self.initial_response is None
                and self.conn.state is State.OPEN
                and not self.transport.is_closing()
            )

        def write_text(self, text: str) -> None:
            data = text.encode()
            if self._plain_below is None:
                self._plain_below = plain_below(self.conn.extensions)
            if len(data) < self._plain_below:
                self.transport.write(plain_text_frame(data))
                return
            self.conn.send_text(data)
            self.transport.write(b"".join(self.conn.data_to_send()))

        async def send(self, message: ASGISendEvent) -> None:
            await super().send(message)
            if message["type"] == "websocket.accept" and self.handshake_complete:
                # Read only until the handshake's answer went out; websockets' parser keeps the
                # request object for the socket's life, so its headers are emptied too.
                self.request.headers.clear()
                self.request = self.response = None  # type: ignore[assignment]

    return CardTableWebSocketProtocol

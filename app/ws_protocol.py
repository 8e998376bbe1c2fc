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

Reading at once: a person's action arrives as one small masked text frame, compressed or not.
Once the socket is open, the protocol splits what it receives into whole frames itself
(`frame_end`), reads each such text frame on the spot (`read_text_frame`: unmask, inflate a fresh
per-message stream, decode) and queues the text exactly as uvicorn's handler would; every other
frame (control frames, fragments, binary, anything malformed, too large or undecodable) goes,
whole and in order, to websockets' parser, which answers it as it always did. websockets' general
parser (a generator per frame, a `Frame` object, the extension's checks, uvicorn's event loop over
them) took 11.1 µs for an 88-byte compressed action, read at once 2.6 µs (docs/BENCHMARKS.md).
This applies only to the per-message mode or no compression, where no decompression state lives
between messages.
"""

from __future__ import annotations

import logging
import sys
import zlib
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import CTRL_OPCODES, Frame, Opcode, apply_mask
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

REQUEST_KEPT = 16384
"""Bytes of a handshake kept to find where the request ended (one with more never has its frames
read by this protocol: websockets' parser goes on alone)."""


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


_EMPTY_BLOCK = b"\x00\x00\xff\xff"
"""What RFC 7692 has a sender strip from the end of each compressed message, put back to inflate it."""


def frame_end(data: bytes, at: int) -> int | None:
    """Where the frame starting at `at` in `data` ends (its header's length plus its payload's),
    or None while its header is incomplete. The end may lie past `data`: the frame is whole once
    that many bytes have arrived."""
    if len(data) - at < 2:
        return None
    second = data[at + 1]
    size = second & 0x7F
    head = 2 + (4 if second & 0x80 else 0)
    if size == 126:
        if len(data) - at < 4:
            return None
        size, head = int.from_bytes(data[at + 2 : at + 4], "big"), head + 2
    elif size == 127:
        if len(data) - at < 10:
            return None
        size, head = int.from_bytes(data[at + 2 : at + 10], "big"), head + 8
    return at + head + size


def read_text_frame(frame: bytes, inflate_bits: int | None, max_size: int) -> str | None:
    """The text of one whole client frame that is a complete text message, masked as a client's
    must be, with its payload (after inflating) under `max_size` bytes and valid UTF-8; None for
    any other frame (websockets' parser then reads it, and answers what is wrong with it).
    `inflate_bits`: the client's window when the socket negotiated per-message compression without
    context takeover (a compressed message is its own deflate stream), else None."""
    first, second = frame[0], frame[1]
    if first & 0xBF != 0x81 or not second & 0x80:  # FIN, no RSV2/RSV3, a text opcode; masked
        return None
    compressed = first & 0x40
    if compressed and inflate_bits is None:
        return None
    size = second & 0x7F
    head = 6 if size < 126 else 8 if size == 126 else 14
    payload = apply_mask(frame[head:], frame[head - 4 : head])
    if len(payload) > max_size:
        return None
    if compressed:
        inflater = zlib.decompressobj(wbits=-(inflate_bits or zlib.MAX_WBITS))
        try:
            payload = inflater.decompress(payload + _EMPTY_BLOCK, max_size)
        except zlib.error:
            return None
        if inflater.unconsumed_tail:
            return None
    try:
        return payload.decode()
    except UnicodeDecodeError:
        return None


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
            # Reading at once (see the module's docstring):
            self._own_frames = False  # this protocol splits the incoming bytes into frames
            self._parser_fed = False  # websockets' parser had bytes past the request: never split
            self._head = b""  # the bytes before the request was parsed, to see where it ended
            self._unread = b""  # the start of a frame that is not whole yet
            self._inflate_bits: int | None = None

        def data_received(self, data: bytes) -> None:
            if self._own_frames:
                self._read_frames(self._unread + data if self._unread else data)
            elif not self._parser_fed and self._may_read_frames():
                self._own_frames = True
                self._read_frames(data)
            else:
                self._to_parser(data)

        def _to_parser(self, data: bytes) -> None:
            """uvicorn's own handling; notes whether websockets' parser saw bytes past the request
            (it may then be inside a frame, so this protocol never splits frames for it)."""
            initiated = self.handshake_initiated
            if not initiated and len(self._head) < REQUEST_KEPT:
                self._head += data
            super().data_received(data)
            if initiated:
                self._parser_fed = True
            elif self.handshake_initiated:
                end = self._head.find(b"\r\n\r\n")
                self._parser_fed = end < 0 or end + 4 != len(self._head)
                self._head = b""

        def _may_read_frames(self) -> bool:
            """The socket is open, websockets' parser waits at a frame's start with nothing
            buffered, and no decompression state lives between messages."""
            if not (self.handshake_complete and self.conn.state is State.OPEN and not self.close_sent):
                return False
            if self.conn.parser_exc is not None or self.conn.reader.buffer:
                return False
            extensions = self.conn.extensions
            if not extensions:
                return True
            extension = extensions[0] if len(extensions) == 1 else None
            if isinstance(extension, PlainSmallMessages) and extension.remote_no_context_takeover:
                self._inflate_bits = extension.remote_max_window_bits
                return True
            self._parser_fed = True  # the stream mode: websockets keeps reading, for good
            return False

        def _read_frames(self, data: bytes) -> None:
            """Read the whole text frames of `data` at once, until one is not such a frame: that
            one and all that follows in `data` go to websockets' parser together, as they would
            have. Keep an incomplete frame's bytes for the next call."""
            self._unread = b""
            at, size = 0, len(data)
            while (end := frame_end(data, at)) is not None and end <= size:
                text = None
                # (websockets' `current_size` is set while a fragmented message is under way)
                if self.conn.state is State.OPEN and self.conn.current_size is None:
                    text = read_text_frame(data[at:end], self._inflate_bits, MAX_MESSAGE_BYTES)
                if text is None:
                    while (after := frame_end(data, end)) is not None and after <= size:
                        end = after
                    WebSocketsSansIOProtocol.data_received(self, data[at:])
                    if end < size or self.conn.parser_exc is not None or self.conn.state is not State.OPEN:
                        # It holds part of a frame, or the socket is closing: it reads on alone.
                        self._own_frames, self._parser_fed = False, True
                    return
                if not self.close_sent:  # as uvicorn's handler: queued, reading paused until read
                    self.queue.put_nowait({"type": "websocket.receive", "text": text})
                    if not self.read_paused:
                        self.read_paused = True
                        self.transport.pause_reading()
                at = end
            if at == size:
                return
            if end is not None and end - at > MAX_MESSAGE_BYTES + 14:
                # Too large to wait for: websockets refuses it from its header (1009).
                self._own_frames, self._parser_fed = False, True
                WebSocketsSansIOProtocol.data_received(self, data[at:])
            else:
                self._unread = data[at:]

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

"""Reading what a client sends, through real sockets, in every compression mode the server
offers: large and compressed messages are read whole, several messages written together arrive
whole and in order, a message over the size limit closes the socket with 1009 ("message too
big"), however its bytes were compressed, a frame trickled in small writes is still read whole,
and pings are answered."""

from __future__ import annotations

import asyncio
import json
import os
from base64 import b64encode
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from app.config import MAX_MESSAGE_BYTES
from tests.api.harness import WAIT, Person, Server, browser, make_room, running_server

pytestmark = pytest.mark.asyncio

MODES = ["stream", "off"]


class RawClient:
    """A client whose bytes the test splits as it likes: websockets' sans-I/O client protocol
    over a plain TCP stream."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, protocol: ClientProtocol):
        self.reader = reader
        self.writer = writer
        self.protocol = protocol
        self.messages: list[dict[str, Any]] = []
        self.response: Response | None = None

    async def write(self, data: bytes, piece: int) -> None:
        """Write `data` in writes of `piece` bytes, letting the server read each before the next."""
        for at in range(0, len(data), piece):
            self.writer.write(data[at : at + piece])
            await self.writer.drain()
            await asyncio.sleep(0)

    async def send_text(self, text: str, piece: int = 1 << 30) -> None:
        self.protocol.send_text(text.encode())
        await self.write(b"".join(self.protocol.data_to_send()), piece)

    async def _read(self) -> None:
        data = await self.reader.read(1 << 16)
        if not data:
            self.protocol.receive_eof()
        else:
            self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Response):
                self.response = event
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self.messages.append(json.loads(bytes(event.data)))
        self.writer.write(b"".join(self.protocol.data_to_send()))  # pongs, the close's answer
        if not data:
            raise ConnectionError("the server closed the connection")

    async def recv(self, timeout: float = WAIT) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while not self.messages:
                await self._read()
        return self.messages.pop(0)

    async def closed(self, timeout: float = WAIT) -> int | None:
        """The code of the server's close frame (1006 without one), once the connection ended."""
        async with asyncio.timeout(timeout):
            while True:
                try:
                    await self._read()
                except ConnectionError:
                    return self.protocol.close_code


@asynccontextmanager
async def raw_socket(server: Server, person: Person, code: str, compress: bool) -> AsyncIterator[RawClient]:
    """A raw client's socket to the room, past its handshake and its first room message."""
    uri = parse_uri(f"{server.ws_url}/ws/rooms/{code}")
    offer = [ClientPerMessageDeflateFactory(client_max_window_bits=True)] if compress else []
    protocol = ClientProtocol(uri, extensions=offer, max_size=None)
    reader, writer = await asyncio.open_connection(uri.host, uri.port)
    client = RawClient(reader, writer, protocol)
    try:
        request = protocol.connect()
        request.headers["Cookie"] = f"session={person.token}"
        protocol.send_request(request)
        await client.write(b"".join(protocol.data_to_send()), 1 << 30)
        assert (await client.recv())["type"] == "room"
        assert client.response is not None and client.response.status_code == 101
        negotiated = client.response.headers.get("Sec-WebSocket-Extensions", "")
        assert ("permessage-deflate" in negotiated) is compress, negotiated
        yield client
    finally:
        writer.close()


@asynccontextmanager
async def room_of_one(database_url: str, mode: str) -> AsyncIterator[tuple[Server, Person, str]]:
    async with running_server(database_url, ws_compression=mode) as server, browser(server, "Ann") as ann:
        yield server, ann, (await make_room(ann))["code"]


def incompressible(size: int) -> str:
    """`size` characters deflate cannot shrink much (base64 of random bytes)."""
    return b64encode(os.urandom(size * 3 // 4 + 3)).decode()[:size]


@pytest.mark.parametrize("mode", MODES)
async def test_a_large_message_is_read_whole_compressed_or_not(database_url: str, mode: str) -> None:
    """Messages just under the limit, one deflate shrinks to almost nothing and one it cannot,
    each answered as the small message inside them asks."""
    async with room_of_one(database_url, mode) as (server, ann, code), ann.socket(code) as ws:
        assert (await ws.recv())["type"] == "room"
        envelope = len('{"type":"ping","pad":""}')
        for pad in ("x" * (MAX_MESSAGE_BYTES - envelope), incompressible(MAX_MESSAGE_BYTES - envelope)):
            await ws.connection.send(json.dumps({"type": "ping", "pad": pad}, separators=(",", ":")))
            assert (await ws.wait_for(lambda m: m["type"] != "room"))["type"] == "pong"


@pytest.mark.parametrize("mode", MODES)
async def test_messages_written_together_arrive_whole_and_in_order(database_url: str, mode: str) -> None:
    """Five messages in one write (as a client that queued them sends them): five answers, in
    the order the messages were written."""
    async with (
        room_of_one(database_url, mode) as (server, ann, code),
        raw_socket(server, ann, code, compress=mode == "stream") as client,
    ):
        for n in range(5):
            client.protocol.send_text(json.dumps({"type": f"kind-{n}", "text": "あ" * n * 300}).encode())
        await client.write(b"".join(client.protocol.data_to_send()), 1 << 30)
        answers = [await client.recv() for _ in range(5)]
        said = [a["message"].split(";")[0] for a in answers]
        assert said == [f"unknown message type 'kind-{n}'" for n in range(5)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("piece", [1, 1400])
async def test_a_frame_trickled_in_small_writes_is_read_whole(
    database_url: str, mode: str, piece: int
) -> None:
    """A chat line written one byte at a time, and a message of most of a megabyte in writes of
    1,400 bytes (a TCP segment's worth): each is read whole once its last byte arrived."""
    async with (
        room_of_one(database_url, mode) as (server, ann, code),
        raw_socket(server, ann, code, compress=mode == "stream") as client,
    ):
        if piece == 1:
            await client.send_text(json.dumps({"type": "chat", "text": "one byte at a time"}), piece)
            line = await client.recv()
            assert line["type"] == "chat" and line["message"]["text"] == "one byte at a time"
        else:
            pad = incompressible(MAX_MESSAGE_BYTES - 100)
            await client.send_text(json.dumps({"type": "ping", "pad": pad}), piece)
            assert await client.recv() == {"type": "pong"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_frame_announcing_more_than_the_size_limit_closes_the_socket_with_1009_at_once(
    database_url: str, mode: str
) -> None:
    """A text frame whose header announces one byte over the limit: the server refuses it from
    the header (1009, "message too big") without waiting for the rest, which the client never
    sends (its first 1,400 bytes only)."""
    header = bytes((0x81, 0x80 | 127)) + (MAX_MESSAGE_BYTES + 1).to_bytes(8, "big") + os.urandom(4)
    async with (
        room_of_one(database_url, mode) as (server, ann, code),
        raw_socket(server, ann, code, compress=mode == "stream") as client,
    ):
        await client.write(header + os.urandom(1400 - len(header)), 1400)
        assert await client.closed() == 1009
        assert client.messages == []


async def test_a_compressed_message_that_would_inflate_past_the_limit_closes_the_socket_with_1009(
    database_url: str,
) -> None:
    """A few kilobytes that inflate to one byte over the limit (a "zip bomb"): closed with 1009,
    never answered."""
    async with (
        room_of_one(database_url, "stream") as (server, ann, code),
        raw_socket(server, ann, code, compress=True) as client,
    ):
        pad = "x" * (MAX_MESSAGE_BYTES + 1 - len('{"type":"ping","pad":""}'))
        client.protocol.send_text(json.dumps({"type": "ping", "pad": pad}, separators=(",", ":")).encode())
        frame = b"".join(client.protocol.data_to_send())
        assert len(frame) < 8192
        await client.write(frame, 1400)
        assert await client.closed() == 1009
        assert client.messages == []


@pytest.mark.parametrize("mode", MODES)
async def test_pings_are_answered_by_the_socket_and_by_the_app(database_url: str, mode: str) -> None:
    """A WebSocket ping gets its pong from the server's protocol; a `ping` message gets a `pong`
    message from the app."""
    async with room_of_one(database_url, mode) as (server, ann, code), ann.socket(code) as ws:
        assert (await ws.recv())["type"] == "room"
        pong = await ws.connection.ping(b"are you there")
        latency = await asyncio.wait_for(pong, WAIT)
        assert latency >= 0
        await ws.send({"type": "ping"})
        assert (await ws.recv())["type"] == "pong"

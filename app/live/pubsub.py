"""Fan-out of table and room changes to every WebSocket that watches them.

Callers see one small interface, `PubSub`: `publish(channel, message)`, `subscribe(channel)` (an
async context manager yielding an async iterator of messages) and `listen(channel, receiver)`
(an async context manager during which `receiver(message)` is called for each message, in the
publisher's turn of the event loop: a WebSocket uses it to start work only when there is some,
instead of keeping a task parked on a queue for its whole life). Messages
are small JSON-ready dicts that say *what changed* (e.g. `{"kind": "state", "match_id": 7}`), never
a seat's private view: each subscriber builds its own view from the table service, so nothing
private reaches a client through the bus. Between processes a state message may also carry the
log entries it announces (app/live/bus.py), so another process follows the move without reading
it back from the database; those travel only from server to server through PostgreSQL, which
stores the same rows, and no socket forwards them.

`InProcessPubSub` serves one server process. `PostgresPubSub` carries the same messages over
PostgreSQL LISTEN/NOTIFY so several processes can serve one database; it plugs in by passing it to
`create_app` (or setting CARDTABLE_PUBSUB=postgres) without touching any caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import orjson
import psycopg

from app.mailbox import Mailbox
from app.store.prepared import PreparedStatement, read_input

log = logging.getLogger(__name__)

Message = dict[str, Any]
LOG = "log"
"""A message's optional part for other processes (a state message's log entries: app/live/bus.py):
an adapter leaves it out when the message would be too long for it to carry."""
Receiver = Callable[[Message], None]
"""Called with each message of a channel; must not block (queue the work, don't do it)."""


class PubSub(Protocol):
    between_processes: bool
    """Whether messages also reach other server processes (then worth carrying what they need)."""

    async def publish(self, channel: str, message: Message) -> None: ...

    def subscribe(self, channel: str) -> contextlib.AbstractAsyncContextManager[AsyncIterator[Message]]: ...

    def listen(self, channel: str, receiver: Receiver) -> contextlib.AbstractAsyncContextManager[None]: ...

    async def close(self) -> None: ...


class _Subscription:
    """One subscriber's queue. A slow client never blocks publishers: when its queue is full the
    oldest message is dropped (every message only says "refresh", so the newest one suffices)."""

    def __init__(self, size: int = 256) -> None:
        self.queue: Mailbox[Message] = Mailbox(limit=size)

    def put(self, message: Message) -> None:
        self.queue.put_nowait(message)

    def __aiter__(self) -> AsyncIterator[Message]:
        return self

    async def __anext__(self) -> Message:
        return await self.queue.get()


class _Listening:
    """`listen`'s context: a plain object, not a generator frame, since every live socket keeps
    one for its whole life."""

    __slots__ = ("_channels", "_channel", "_receiver")

    def __init__(self, channels: dict[str, set[Receiver]], channel: str, receiver: Receiver) -> None:
        self._channels = channels
        self._channel = channel
        self._receiver = receiver

    async def __aenter__(self) -> None:
        self._channels.setdefault(self._channel, set()).add(self._receiver)

    async def __aexit__(self, *exc_info: object) -> None:
        receivers = self._channels.get(self._channel)
        if receivers is not None:
            receivers.discard(self._receiver)
            if not receivers:
                del self._channels[self._channel]


class InProcessPubSub:
    """Channels held in this process's memory."""

    between_processes = False

    def __init__(self) -> None:
        self._channels: dict[str, set[Receiver]] = {}

    async def publish(self, channel: str, message: Message) -> None:
        self.deliver(channel, message)

    def deliver(self, channel: str, message: Message) -> None:
        for receiver in list(self._channels.get(channel, ())):
            receiver(message)

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[AsyncIterator[Message]]:
        subscription = _Subscription()
        async with self.listen(channel, subscription.put):
            yield subscription

    def listen(self, channel: str, receiver: Receiver) -> contextlib.AbstractAsyncContextManager[None]:
        return _Listening(self._channels, channel, receiver)

    async def close(self) -> None:
        self._channels.clear()


NOTIFY_ONE = PreparedStatement("cardtable_notify_one", "SELECT pg_notify($1, $2)")
NOTIFY_ALL = PreparedStatement(
    "cardtable_notify_all", "SELECT pg_notify($1, payload) FROM json_array_elements_text($2::json) AS payload"
)
"""One NOTIFY per payload of a batch, the batch passed as one JSON array of strings: as a
`text[]` parameter, psycopg escaped every quote of every payload for the array literal in
Python (a regular expression with a callback per match), about a tenth of a second process's
CPU at 50 tables of four people (docs/BENCHMARKS.md). A batch that fits one payload, the usual
case, goes through `NOTIFY_ONE`."""


class PostgresPubSub(InProcessPubSub):
    """LISTEN/NOTIFY on one PostgreSQL channel; local delivery reuses the in-process fan-out.

    `publish` delivers to this process's subscribers at once and queues the message for the
    others; a background sender packs everything queued into as few payloads as fit under
    PostgreSQL's limit and NOTIFYs them in one round trip (so publishing never waits for the
    database, and a burst of table events costs one statement and, mostly, one notification:
    each notification is work for PostgreSQL and for every listening process). Every process
    LISTENs on `cardtable_events` and delivers what other processes sent (its own notifications
    carry its origin id and are skipped).

    Both connections are driven through libpq directly (`PreparedStatement` to send; the
    listener reads notifications whenever its socket is readable): through psycopg's cursor and
    its `notifies()` generator the transport cost about a sixth of a second process's CPU per
    move at 50 tables of four people (docs/BENCHMARKS.md).
    """

    PG_CHANNEL = "cardtable_events"
    BATCH = 500
    PAYLOAD_LIMIT = 8000
    """PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more."""
    LOG_LIMIT = PAYLOAD_LIMIT - 64
    """A message goes with its log entries only when it then takes fewer bytes than this: it
    must fit a payload of its own, beside the packing's 43 bytes (`_payloads`)."""
    between_processes = True

    def __init__(self, libpq_url: str) -> None:
        super().__init__()
        self._url = libpq_url
        self._origin = secrets.token_hex(8)
        self._own_prefix = orjson.dumps({"origin": self._origin}).decode()[:-1].encode()
        """How this process's own payloads begin (`_payloads` writes the origin first, with the
        same encoder): they are dropped unread, not parsed to find out. Each process hears its
        own notifications, half of what it hears when two processes share tables."""
        self._listener: asyncio.Task[None] | None = None
        self._sender_task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._sender: Any = None
        self._outbox: asyncio.Queue[bytes] = asyncio.Queue()
        self.on_delay: Callable[[float], None] | None = None
        """Told the seconds each message from another process took to arrive (app/metrics.py)."""

    async def start(self) -> None:
        self._listener = asyncio.create_task(self._listen())
        self._sender_task = asyncio.create_task(self._send_loop())
        await asyncio.wait_for(self._ready.wait(), timeout=10)

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self._url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {self.PG_CHANNEL}")
                    self._ready.set()
                    await self._hear(conn)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - keep listening across connection losses
                log.warning("pub/sub listener lost its connection (%s); reconnecting", exc)
                await asyncio.sleep(1)

    async def _hear(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Deliver every notification `conn` receives, as soon as its socket has it, until the
        connection fails (raised here)."""
        pgconn = conn.pgconn

        def take() -> bool:
            while (notice := pgconn.notifies()) is not None:
                self._heard(notice.extra)
            return False  # for as long as the connection lives

        await read_input(conn, take, at_once=True)

    def _heard(self, payload: bytes) -> None:
        """Deliver the messages of one notification, unless this process sent it."""
        if payload.startswith(self._own_prefix):
            return
        try:
            messages = orjson.loads(payload)["messages"]
        except (orjson.JSONDecodeError, KeyError, TypeError):
            log.error("pub/sub: a notification that is not ours to read: %.80r", payload)
            return
        now = time.time()
        for envelope in messages:
            if self.on_delay is not None:
                self.on_delay(max(0.0, now - envelope["at"]))
            try:
                self.deliver(envelope["channel"], envelope["message"])
            except Exception:
                log.exception("pub/sub: a receiver failed on a message from another process")

    async def publish(self, channel: str, message: Message) -> None:
        self.deliver(channel, message)
        envelope = {"at": time.time(), "channel": channel, "message": message}
        text = orjson.dumps(envelope, option=orjson.OPT_NON_STR_KEYS)
        if LOG in message and len(text) >= self.LOG_LIMIT:
            envelope["message"] = {key: value for key, value in message.items() if key != LOG}
            text = orjson.dumps(envelope, option=orjson.OPT_NON_STR_KEYS)
        self._outbox.put_nowait(text)

    def _payloads(self, envelopes: list[bytes]) -> list[bytes]:
        """`envelopes` packed in order into as few notification payloads as fit under the limit
        (`{"origin": …, "messages": [envelope, …]}`); one too long even alone is dropped, loudly."""
        head, tail = self._own_prefix + b',"messages":[', b"]}"
        room = self.PAYLOAD_LIMIT - len(head) - len(tail)
        payloads: list[bytes] = []
        packed: list[bytes] = []
        size = -1  # the length of `packed` joined by commas, once it holds something
        for envelope in envelopes:
            if len(envelope) >= room:
                log.error("pub/sub: a message of %d bytes is too long for a notification", len(envelope))
                continue
            if packed and size + 1 + len(envelope) >= room:
                payloads.append(head + b",".join(packed) + tail)
                packed, size = [], -1
            packed.append(envelope)
            size += 1 + len(envelope)
        if packed:
            payloads.append(head + b",".join(packed) + tail)
        return payloads

    async def _send_loop(self) -> None:
        channel = self.PG_CHANNEL.encode()
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < self.BATCH and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            payloads = self._payloads(batch)
            if not payloads:
                continue
            for attempt in (1, 2, 3):
                try:
                    if self._sender is None or self._sender.closed:
                        self._sender = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
                    if len(payloads) == 1:
                        await NOTIFY_ONE.rows(self._sender, (channel, payloads[0]))
                    else:
                        await NOTIFY_ALL.rows(
                            self._sender, (channel, orjson.dumps([p.decode() for p in payloads]))
                        )
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # noqa: BLE001 - reconnect and retry, then give up loudly
                    if self._sender is not None:
                        with contextlib.suppress(Exception):
                            await self._sender.close()
                    self._sender = None
                    if attempt == 3:
                        log.error("could not notify other processes of %d event(s): %s", len(batch), exc)
                    else:
                        await asyncio.sleep(0.2 * attempt)

    async def close(self) -> None:
        for task in (self._listener, self._sender_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._sender is not None:
            await self._sender.close()
        await super().close()

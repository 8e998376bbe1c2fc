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
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import orjson
import psycopg

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

    @property
    def ready(self) -> bool:
        """Whether messages reach every process now (/readyz answers 503 while they do not)."""
        ...

    async def publish(self, channel: str, message: Message) -> None: ...

    def subscribe(self, channel: str) -> contextlib.AbstractAsyncContextManager[AsyncIterator[Message]]: ...

    def listen(self, channel: str, receiver: Receiver) -> contextlib.AbstractAsyncContextManager[None]: ...

    async def close(self) -> None: ...


class _Subscription:
    """One subscriber's queue. A slow client never blocks publishers: when its queue is full the
    oldest message is dropped (every message only says "refresh", so the newest one suffices)."""

    def __init__(self, size: int = 256) -> None:
        self.queue: asyncio.Queue[Message] = asyncio.Queue(maxsize=size)

    def put(self, message: Message) -> None:
        if self.queue.full():
            self.queue.get_nowait()
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

    @property
    def ready(self) -> bool:
        return True

    async def publish(self, channel: str, message: Message) -> None:
        self.deliver(channel, message)

    def deliver(self, channel: str, message: Message) -> None:
        for receiver in list(self._channels.get(channel, ())):
            receiver(message)

    def channels(self) -> list[str]:
        """The channels someone in this process listens on now."""
        return list(self._channels)

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[AsyncIterator[Message]]:
        subscription = _Subscription()
        async with self.listen(channel, subscription.put):
            yield subscription

    def listen(self, channel: str, receiver: Receiver) -> contextlib.AbstractAsyncContextManager[None]:
        return _Listening(self._channels, channel, receiver)

    async def close(self) -> None:
        self._channels.clear()


NOTIFY_ONE = "SELECT pg_notify(%s, %s)"
NOTIFY_ALL = "SELECT pg_notify(%s, payload) FROM json_array_elements_text(%s::json) AS payload"
"""One NOTIFY per payload of a batch, the batch passed as one JSON array of strings: as a
`text[]` parameter, psycopg escaped every quote of every payload for the array literal in
Python (a regular expression with a callback per match), about a tenth of a second process's
CPU at 50 tables of four people (docs/BENCHMARKS.md). A batch that fits one payload, the usual
case, goes through `NOTIFY_ONE`."""

RECONNECT_AFTER = (0.1, 0.5, 1.0)
"""Seconds before each attempt to connect again after a connection of the bus was lost (the
last one repeated for as long as it takes)."""

HEARTBEAT = 5.0
"""Seconds a listener waits for notifications before it asks its connection whether it is still
there (a database that vanished without closing the socket is also noticed by TCP keepalives)."""


class PostgresPubSub(InProcessPubSub):
    """LISTEN/NOTIFY on one PostgreSQL channel; local delivery reuses the in-process fan-out.

    `publish` delivers to this process's subscribers at once and queues the message for the
    others; a background sender packs everything queued into as few payloads as fit under
    PostgreSQL's limit and NOTIFYs them in one round trip (so publishing never waits for the
    database, and a burst of table events costs one statement and, mostly, one notification:
    each notification is work for PostgreSQL and for every listening process). Every process
    LISTENs on `cardtable_events` and delivers what other processes sent (its own notifications
    carry its origin id and are skipped).

    Neither connection is ever given up. A NOTIFY that fails is sent again, with whatever was
    published meanwhile, on a new connection as soon as one can be had. A listener whose
    connection is lost connects again and then calls `on_heard_again`: whatever was notified
    while it was away is lost to it, so the process catches up from the store (the action log is
    the truth; app/live/tables.py's `catch_up_all`).
    """

    PG_CHANNEL = "cardtable_events"
    BATCH = 500
    PAYLOAD_LIMIT = 8000
    """PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more."""
    LOG_LIMIT = PAYLOAD_LIMIT - 64
    """A message goes with its log entries only when it then takes fewer bytes than this: it
    must fit a payload of its own, beside the packing's 43 bytes (`_payloads`)."""
    between_processes = True

    def __init__(self, listen_conninfo: str, notify_conninfo: str | None = None) -> None:
        """`listen_conninfo` and `notify_conninfo`: how the listener and the sender connect
        (app/store/db.py's `Database.conninfo`, each with its role's name); the sender takes the
        listener's when none is given."""
        super().__init__()
        self._listen_conninfo = listen_conninfo
        self._notify_conninfo = notify_conninfo or listen_conninfo
        self._origin = secrets.token_hex(8)
        self._own_prefix = orjson.dumps({"origin": self._origin}).decode()[:-1]
        """How this process's own payloads begin (`_payloads` writes the origin first, with the
        same encoder): they are dropped unread, not parsed to find out. Each process hears its
        own notifications, half of what it hears when two processes share tables."""
        self._listener: asyncio.Task[None] | None = None
        self._sender_task: asyncio.Task[None] | None = None
        self._catching_up: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._listening = False
        self._sending = True
        self._sender: psycopg.AsyncCursor[Any] | None = None
        """On the sender's connection, one cursor for every batch: less CPU than one each."""
        self._outbox: asyncio.Queue[bytes] = asyncio.Queue()
        self.on_delay: Callable[[float], None] | None = None
        """Told the seconds each message from another process took to arrive (app/metrics.py)."""
        self.on_heard_again: Callable[[], Awaitable[None]] | None = None
        """Called each time the listener listens again after losing its connection (not at the
        first start): the process catches up with what it may have missed meanwhile."""

    @property
    def ready(self) -> bool:
        """Whether the bus hears the other processes and its last NOTIFY went out."""
        return self._listening and self._sending

    async def start(self) -> None:
        self._listener = asyncio.create_task(self._listen(), name="pubsub-listener")
        self._sender_task = asyncio.create_task(self._send_loop(), name="pubsub-sender")
        await asyncio.wait_for(self._ready.wait(), timeout=10)

    async def _listen(self) -> None:
        """Listen for as long as the process lives, connecting again whenever the connection is
        lost (with a short wait, then a second between attempts)."""
        failures = 0
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._listen_conninfo, autocommit=True
                ) as conn:
                    await conn.execute(f"LISTEN {self.PG_CHANNEL}")
                    self._listening = True
                    if self._ready.is_set():
                        log.info("pub/sub listener is listening again; catching up from the store")
                        self._catch_up()
                    self._ready.set()
                    failures = 0
                    await self._hear(conn)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - keep listening across connection losses
                self._listening = False
                if failures == 0:
                    log.warning("pub/sub listener lost its connection (%s); reconnecting", exc)
                await asyncio.sleep(RECONNECT_AFTER[min(failures, len(RECONNECT_AFTER) - 1)])
                failures += 1

    async def _hear(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Deliver every notification `conn` receives until the connection fails (raised here).
        When `HEARTBEAT` seconds pass, it asks the connection whether it is still there."""
        while True:
            async for notify in conn.notifies(timeout=HEARTBEAT):
                self._heard(notify.payload)
            async with asyncio.timeout(HEARTBEAT):
                await conn.execute("SELECT 1")

    def _catch_up(self) -> None:
        """Run `on_heard_again` in its own task (the listener goes on hearing meanwhile); a
        failure is tried again after a second, until it succeeds or the listener is lost again
        (its next return calls it anyway)."""
        if self.on_heard_again is None or (self._catching_up is not None and not self._catching_up.done()):
            return
        catch_up = self.on_heard_again

        async def until_done() -> None:
            while self._listening:
                try:
                    await catch_up()
                    return
                except Exception:
                    log.exception("could not catch up after the pub/sub listener reconnected; trying again")
                    await asyncio.sleep(1.0)

        self._catching_up = asyncio.create_task(until_done(), name="pubsub-catch-up")

    def _heard(self, payload: str) -> None:
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
        head, tail = self._own_prefix.encode() + b',"messages":[', b"]}"
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
        """Send what is published, in order, for as long as the process lives. A batch that
        could not be sent is sent again (with what was published meanwhile) on a new connection:
        at once when the connection that failed had been idle (it may have died long before,
        with a database restart), else after a short wait, then a second between attempts."""
        envelopes: list[bytes] = []
        failures = 0
        while True:
            if not envelopes:
                envelopes.append(await self._outbox.get())
            while len(envelopes) < self.BATCH and not self._outbox.empty():
                envelopes.append(self._outbox.get_nowait())
            connected = self._sender is not None and not self._sender.connection.closed
            try:
                if payloads := self._payloads(envelopes):
                    await self._notify(payloads)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - connect again and send it all again
                await self._drop_sender()
                if connected:
                    log.info("the NOTIFY connection was lost (%s); connecting again", exc)
                    continue
                self._sending = False
                if failures == 0:
                    log.warning("could not notify other processes (%s); sending again", exc)
                await asyncio.sleep(RECONNECT_AFTER[min(failures, len(RECONNECT_AFTER) - 1)])
                failures += 1
                continue
            if failures:
                log.info("notifying other processes again, after %d failed attempt(s)", failures)
            envelopes, failures, self._sending = [], 0, True

    async def _notify(self, payloads: list[bytes]) -> None:
        sender = self._sender
        if sender is None or sender.connection.closed:
            connection = await psycopg.AsyncConnection.connect(self._notify_conninfo, autocommit=True)
            sender = self._sender = connection.cursor()
        if len(payloads) == 1:
            await sender.execute(NOTIFY_ONE, (self.PG_CHANNEL, payloads[0].decode()), prepare=True)
        else:
            texts = orjson.dumps([payload.decode() for payload in payloads]).decode()
            await sender.execute(NOTIFY_ALL, (self.PG_CHANNEL, texts), prepare=True)

    async def _drop_sender(self) -> None:
        if self._sender is not None:
            with contextlib.suppress(Exception):
                await self._sender.connection.close()
        self._sender = None

    async def close(self) -> None:
        for task in (self._listener, self._sender_task, self._catching_up):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self._drop_sender()
        await super().close()

"""A real server for API tests: uvicorn on a free loopback port inside the test's event loop,
with httpx for REST and the `websockets` library for the live table, like a browser would."""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
import websockets

from app.config import Settings, websocket_server_options
from app.live.wire import StateReader
from app.main import create_app

TEST_BOT_DELAY = 0.02
TEST_BOT_BUDGET = 0.01
"""Seconds a strong bot searches in tests: short, but the search and its worker process are real."""
TLS = ssl.create_default_context()
"""One TLS context for every test client. The servers speak plain HTTP, but an httpx client
builds its own context unless given one, loading the system's certificate authorities: about
20 ms of CPU per client, 7% of a serial run of the table, room and people tests (py-spy)."""
WAIT = 15.0
LIMITS = httpx.Limits(keepalive_expiry=2.0)
"""A test client lets an idle connection go after 2 s, well before the server does (uvicorn's
`timeout_keep_alive`, 5 s): with httpx's default of 5 s too, a request sent on a connection idle
for about 5 s could meet the server closing it, and fail with a ReadError (seen under the
suite's load, where the server's event loop runs late)."""


@dataclass
class Server:
    base_url: str
    ws_url: str
    app: Any

    @property
    def services(self) -> Any:
        return self.app.state.services


@asynccontextmanager
async def running_server(
    database_url: str, bot_delay: float = TEST_BOT_DELAY, **overrides: Any
) -> AsyncIterator[Server]:
    """Serve `create_app` for this database until the block ends (a clean shutdown, like a restart)."""
    overrides.setdefault("bot_budget", TEST_BOT_BUDGET)
    overrides.setdefault("bot_workers", 1)
    settings = Settings(database_url=database_url, bot_delay=bot_delay, migrate_on_start=False, **overrides)
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        lifespan="on",
        **websocket_server_options(settings),
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the server stopped during start-up")
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield Server(base_url=f"http://127.0.0.1:{port}", ws_url=f"ws://127.0.0.1:{port}", app=app)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout=WAIT)


class TableSocket:
    """One browser tab's WebSocket to a room: remembers the latest room and state it was sent.

    State messages are returned whole (views with their finished hands, every legal action), as
    the browser's wire adapter gives them to the renderers; `raw` keeps them as sent."""

    def __init__(self, connection: websockets.ClientConnection) -> None:
        self.connection = connection
        self.room: dict[str, Any] | None = None
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.reader = StateReader()

    async def recv(self, timeout: float = WAIT) -> dict[str, Any]:
        text = await asyncio.wait_for(self.connection.recv(), timeout)
        self.raw.append(text if isinstance(text, str) else text.decode())
        message = json.loads(text)
        if message["type"] == "state":
            message = self.reader.read(message)
        self.received.append(message)
        if message["type"] == "room":
            self.room = message["room"]
        elif message["type"] == "state":
            self.state = message
        elif message["type"] == "error":
            self.errors.append(message)
        return message

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = WAIT
    ) -> dict[str, Any]:
        """Read messages until one satisfies `predicate`; fails the test after `timeout` seconds."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError("no matching message arrived in time")
            message = await self.recv(remaining)
            if predicate(message):
                return message

    async def wait_state(
        self, predicate: Callable[[dict[str, Any]], bool] = lambda m: True
    ) -> dict[str, Any]:
        return await self.wait_for(lambda m: m["type"] == "state" and predicate(m))

    async def send(self, message: dict[str, Any]) -> None:
        await self.connection.send(json.dumps(message))

    async def act(self, seat: int, version: int, action: dict[str, Any], match_id: int | None = None) -> None:
        """Send an action for the match of the latest state (or `match_id`)."""
        if match_id is None and self.state is not None:
            match_id = self.state["match_id"]
        message: dict[str, Any] = {"type": "action", "seat": seat, "version": version, "action": action}
        if match_id is not None:
            message["match_id"] = match_id
        await self.send(message)

    async def quiet(self, seconds: float = 0.15) -> list[dict[str, Any]]:
        """Everything that arrives within `seconds` (to check that nothing more is sent)."""
        messages = []
        try:
            while True:
                messages.append(await self.recv(seconds))
        except TimeoutError:
            return messages


@dataclass
class Person:
    """A browser: an httpx client holding its own session cookie."""

    server: Server
    http: httpx.AsyncClient
    me: dict[str, Any] = field(default_factory=dict)

    @property
    def token(self) -> str:
        return self.http.cookies["session"]

    @asynccontextmanager
    async def socket(self, code: str) -> AsyncIterator[TableSocket]:
        headers = {"Cookie": f"session={self.token}"} if "session" in self.http.cookies else {}
        async with websockets.connect(
            f"{self.server.ws_url}/ws/rooms/{code}", additional_headers=headers, open_timeout=WAIT
        ) as connection:
            yield TableSocket(connection)

    async def post(self, path: str, body: dict[str, Any] | None = None, expect: int = 200) -> Any:
        response = await self.http.post(path, json=body or {})
        assert response.status_code == expect, response.text
        return response.json() if response.content else None

    async def get(self, path: str, expect: int = 200) -> Any:
        response = await self.http.get(path)
        assert response.status_code == expect, response.text
        return response.json()


@asynccontextmanager
async def browser(server: Server, name: str | None = None) -> AsyncIterator[Person]:
    """A fresh browser; with `name`, it picks that name (creating a person) first."""
    async with httpx.AsyncClient(base_url=server.base_url, timeout=WAIT, verify=TLS, limits=LIMITS) as http:
        person = Person(server=server, http=http)
        if name is not None:
            person.me = await person.post("/api/people", {"name": name}, expect=201)
        yield person


async def make_room(
    host: Person, game_id: str = "holy-grail", seats: int = 3, **options: Any
) -> dict[str, Any]:
    return await host.post("/api/rooms", {"game_id": game_id, "seats": seats, "options": options}, expect=201)


async def play_until_over(
    sockets: list[TableSocket], timeout: float = 60, match_id: int | None = None
) -> dict[str, Any]:
    """Let each person play the first legal action for every seat they hold whenever it is their
    turn, until the match (`match_id`, default: whichever they are sent) is over. Returns the
    last state one of them received."""

    def wanted(message: dict[str, Any]) -> bool:
        return match_id is None or message["match_id"] == match_id

    async def player(socket: TableSocket) -> dict[str, Any]:
        acted: set[int] = set()
        message = socket.state
        if message is None or not wanted(message):
            message = await socket.wait_state(wanted)
        while True:
            views = message["views"] or {"-": message["spectator"]}
            if all(view["phase"] == "match_over" for view in views.values()):
                return message
            for seat_text, legal in message["legal"].items():
                if legal and message["version"] not in acted:
                    acted.add(message["version"])
                    await socket.act(int(seat_text), message["version"], legal[0])
                    break
            message = await socket.wait_state(wanted)

    tasks = [asyncio.create_task(player(socket)) for socket in sockets]
    try:
        done = await asyncio.wait_for(asyncio.gather(*tasks), timeout)
    finally:
        for task in tasks:
            task.cancel()
    return done[0]


def table_with_bots(base: str, name: str) -> tuple[str, str]:
    """A new person named `name` holding seat 0 of a started three-seat Holy Grail match against
    two bots, from outside any event loop (a test driving a server process): their session token
    and the room's code."""
    person = httpx.post(f"{base}/api/people", json={"name": name}, timeout=30, verify=TLS)
    cookies = {"session": person.cookies["session"]}
    code = httpx.post(
        f"{base}/api/rooms",
        json={"game_id": "holy-grail", "seats": 3},
        cookies=cookies,
        timeout=30,
        verify=TLS,
    ).json()["code"]
    for n, who in (("0", "me"), ("1", "bot"), ("2", "bot")):
        seated = httpx.post(
            f"{base}/api/rooms/{code}/seats/{n}", json={"as": who}, cookies=cookies, timeout=30, verify=TLS
        )
        assert seated.status_code == 200, seated.text
    started = httpx.post(f"{base}/api/rooms/{code}/start", cookies=cookies, timeout=30, verify=TLS)
    assert started.status_code == 200, started.text
    return cookies["session"], code


def play_a_little(base: str, ws_base: str, token: str, code: str, moves: int) -> int:
    """Play seat 0 of a room (bots hold the others) until `moves` states arrived, from outside
    any event loop (a test driving a server process); returns the highest version the server
    acknowledged (a version is sent only after its actions are committed). A match over is
    followed by the next one."""
    return asyncio.run(_play_a_little(base, ws_base, token, code, moves))


async def _play_a_little(base: str, ws_base: str, token: str, code: str, moves: int) -> int:
    acknowledged = 0
    async with websockets.connect(
        f"{ws_base}/ws/rooms/{code}", additional_headers={"Cookie": f"session={token}"}, open_timeout=30
    ) as connection:
        socket = TableSocket(connection)
        acted: set[int] = set()
        for _ in range(moves):
            message = await socket.wait_state()
            acknowledged = max(acknowledged, message["version"])
            views = message["views"]
            if views and all(view["phase"] == "match_over" for view in views.values()):
                async with httpx.AsyncClient(cookies={"session": token}, timeout=30, verify=TLS) as http:
                    await http.post(f"{base}/api/rooms/{code}/start")
                continue
            legal = message["legal"].get("0") or []
            if legal and message["version"] not in acted:
                acted.add(message["version"])
                await socket.act(0, message["version"], legal[0])
    return acknowledged

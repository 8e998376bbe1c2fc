"""Bot levels at the table: the host picks basic or strong per seat (strong unless the server's
default says otherwise), may change it at any time, and strong bots think in worker processes
without holding the table."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from app.live.tables import TableService
from tests.api.harness import browser, make_room, play_until_over, running_server

pytestmark = pytest.mark.asyncio


def levels(room: dict[str, Any]) -> list[str | None]:
    return [seat["level"] for seat in room["seats"]]


async def test_a_bot_is_strong_unless_the_host_chooses_basic(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host, seats=4))["code"]
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot"})
        room = await host.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "basic"})
        assert levels(room) == [None, "strong", "basic", None]
        assert levels(await host.get(f"/api/rooms/{code}")) == [None, "strong", "basic", None]


async def test_the_server_default_level_comes_from_its_settings(database_url: str) -> None:
    async with running_server(database_url, bot_level="basic") as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        room = await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot"})
        assert room["seats"][1]["level"] == "basic"
        room = await host.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "strong"})
        assert levels(room) == [None, "basic", "strong"]


async def test_the_host_changes_a_bots_level_and_only_the_host_may(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host))["code"]
        await guest.get(f"/api/rooms/{code}")
        await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot", "level": "basic"})
        refused = await guest.http.post(f"/api/rooms/{code}/seats/1", json={"as": "bot", "level": "strong"})
        assert refused.status_code == 403
        room = await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot", "level": "strong"})
        assert room["seats"][1]["level"] == "strong"
        # Without a level, a seated bot keeps the one it has.
        room = await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot"})
        assert room["seats"][1]["level"] == "strong"
        unknown = await host.http.post(f"/api/rooms/{code}/seats/1", json={"as": "bot", "level": "genius"})
        assert unknown.status_code == 422
        # A person taking the seat back leaves no level behind.
        room = await guest.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        assert room["seats"][1]["kind"] == "person" and room["seats"][1]["level"] is None


async def test_a_seat_handed_to_a_bot_during_a_match_gets_the_chosen_level(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host, hands=1))["code"]
        await guest.get(f"/api/rooms/{code}")
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await guest.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        await host.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "strong"})
        room = await host.post(f"/api/rooms/{code}/start")
        match_id = room["match"]["id"]
        room = await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot", "replace": True, "level": "basic"})
        assert room["seats"][1]["kind"] == "bot" and levels(room) == [None, "basic", "strong"]
        live = server.services.tables.live(match_id)
        assert live is not None
        assert {n: c.level for n, c in live.controllers.items() if c.kind == "bot"} == {
            1: "basic",
            2: "strong",
        }
        # The host changes a bot's level in the middle of the match; the table uses it at once.
        await host.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "basic"})
        assert live.controllers[2].level == "basic"


async def test_strong_bots_play_a_whole_match_in_worker_processes(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host, game_id="holy-grail", seats=3, hands=1))["code"]
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot", "level": "strong"})
        await host.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "strong"})
        async with host.socket(code) as socket:
            await host.post(f"/api/rooms/{code}/start")
            final = await play_until_over([socket], timeout=60)
        assert final["views"]["0"]["phase"] == "match_over"
        tables: TableService = server.services.tables
        # Each strong bot's choice among several cards was searched in a worker.
        assert tables.bots.sent > 0


async def test_basic_bots_never_use_the_workers(database_url: str) -> None:
    async with running_server(database_url, bot_level="basic") as server, browser(server, "Host") as host:
        code = (await make_room(host, game_id="holy-grail", seats=3, hands=1))["code"]
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot"})
        await host.post(f"/api/rooms/{code}/seats/2", {"as": "bot"})
        async with host.socket(code) as socket:
            await host.post(f"/api/rooms/{code}/start")
            final = await play_until_over([socket], timeout=60)
        assert final["views"]["0"]["phase"] == "match_over"
        assert server.services.tables.bots.sent == 0


class HeldPool:
    """Stands in for the worker pool: holds every decision until the test answers it."""

    def __init__(self, answer: str = "hold") -> None:
        self.answer = answer
        self.pending: list[tuple[asyncio.Future[dict[str, Any]], int, int]] = []
        self.sent = 0

    def decide(self, match_id: int, match: Any, seat: int, seed: int) -> asyncio.Future[dict[str, Any]]:
        self.sent += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        if self.answer == "fail":
            future.set_exception(RuntimeError("worker crashed"))
        self.pending.append((future, len(match.log), seat))
        return future

    async def close(self) -> None:
        pass


async def test_a_thinking_bot_holds_neither_the_table_nor_its_readers(database_url: str) -> None:
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Host") as host:
        tables: TableService = server.services.tables
        pool = HeldPool()
        tables.bots = pool  # type: ignore[assignment]
        code = (await make_room(host, game_id="holy-grail", seats=3, hands=1))["code"]
        for n in range(3):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "strong"})
        room = await host.post(f"/api/rooms/{code}/start")
        match_id = room["match"]["id"]
        for _ in range(200):
            if pool.pending:
                break
            await asyncio.sleep(0.01)
        assert pool.pending, "a strong bot never asked the workers"
        future, version, seat = pool.pending[0]
        # While the worker thinks, the match is free: its lock is open and a spectator gets its state.
        assert not tables.lock(match_id).locked()
        async with host.socket(code) as socket:
            state = await socket.wait_state()
            assert state["version"] == version
        live = tables.live(match_id)
        assert live is not None and live.version == version
        chosen = live.legal(seat)[-1]
        future.set_result(chosen)
        for _ in range(200):
            if live.version > version:
                break
            await asyncio.sleep(0.01)
        # The worker's answer is what the table played.
        assert live.match.log[version] == (seat, chosen)


async def test_a_failed_worker_leaves_the_move_to_the_basic_bot(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        tables: TableService = server.services.tables
        pool = HeldPool(answer="fail")
        tables.bots = pool  # type: ignore[assignment]
        code = (await make_room(host, game_id="holy-grail", seats=3, hands=1))["code"]
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot", "level": "strong"})
        await host.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "strong"})
        async with host.socket(code) as socket:
            await host.post(f"/api/rooms/{code}/start")
            final = await play_until_over([socket], timeout=60)
        assert final["views"]["0"]["phase"] == "match_over"
        assert pool.sent > 0


@pytest.mark.parametrize("reason", ["time", "away"])
async def test_a_bot_playing_for_a_person_thinks_as_the_strong_bot_even_where_bots_are_basic(
    database_url: str, reason: str
) -> None:
    """Ada's turn timer runs out (15 s, here 1 s), or she is away past the grace (10 s, here
    0.7 s): the move made for her is the strong bot's, asked of the worker pool, although the
    server's default level and the seated bots are basic."""
    settings: dict[str, Any] = {"bot_level": "basic", "deadline_scale": 1 / 15, "deadline_poll": 0.05}
    async with running_server(database_url, bot_delay=0, **settings) as server, browser(server, "Ada") as ada:
        tables: TableService = server.services.tables
        pool = HeldPool()
        tables.bots = pool  # type: ignore[assignment]
        body: dict[str, Any] = {"game_id": "holy-grail", "seats": 3, "options": {"hands": 1}}
        if reason == "time":
            body["turn_timer"] = 15
        code = (await ada.post("/api/rooms", body, expect=201))["code"]
        await ada.http.patch(f"/api/rooms/{code}", json={"away_grace": 600 if reason == "time" else 10})
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for seat in (1, 2):
            await ada.post(f"/api/rooms/{code}/seats/{seat}", {"as": "bot"})
        async with contextlib.AsyncExitStack() as stack:
            if reason == "time":  # connected, so never away; she just does not play
                await (await stack.enter_async_context(ada.socket(code))).recv()
            match_id = (await ada.post(f"/api/rooms/{code}/start"))["match"]["id"]
            for _ in range(1500):
                if pool.pending:
                    break
                await asyncio.sleep(0.01)
            assert pool.pending, "no move for Ada went to the strong bot's workers"
            future, version, seat = pool.pending[0]
            assert seat == 0  # the basic bots of seats 1 and 2 never asked
            live = tables.live(match_id)
            assert live is not None and live.legal_count(0) > 1
            chosen = live.legal(0)[-1]
            future.set_result(chosen)
            for _ in range(500):
                if live.version > version:
                    break
                await asyncio.sleep(0.01)
            assert live.match.log[version] == (0, chosen)
            assert live.auto_moves[version + 1] == (0, reason)

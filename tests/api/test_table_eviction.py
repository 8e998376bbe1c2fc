"""Memory follows what is live: a finished match nobody watches leaves the process's memory, an
idle running match with no socket leaves it after `idle_table_seconds`, and a match that left
is loaded again from its log, with its turn timers and stand-ins still working."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.api.harness import TLS, Person, Server, browser, running_server
from tests.api.test_auto_moves import stored_marks
from tests.api.test_away_players import _eventually
from tests.api.test_replays import bots_play_one_hand

pytestmark = pytest.mark.asyncio

MATCHES = 40
QUICK: dict[str, Any] = {"bot_delay": 0, "analysis_workers": 0, "deadline_poll": 0.05, "bot_level": "basic"}


def resident_bytes() -> int:
    """This process's resident memory (the server runs inside the test's event loop)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


async def metric(server: Server, name: str) -> float:
    """One series of this process as the operator's scraper reads it."""
    async with httpx.AsyncClient(base_url=server.base_url, verify=TLS) as client:
        text = (await client.get("/metrics")).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return sample.value
    raise AssertionError(f"no {name} in /metrics")


async def live_tables(server: Server) -> float:
    return await metric(server, "cardtable_live_tables")


async def until_live_tables_at_most(server: Server, most: float, within: float) -> float:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while (count := await live_tables(server)) > most:
        assert loop.time() < deadline, f"{count} tables still live after {within} s"
        await asyncio.sleep(0.5)
    return count


async def test_forty_finished_matches_leave_memory_once_their_sockets_close(database_url: str) -> None:
    async with running_server(database_url, **QUICK) as server, browser(server, "Host") as host:
        # One match first, so what every match needs once (game modules, caches) is loaded.
        await bots_play_one_hand(server, host, "holy-grail", 3)
        await until_live_tables_at_most(server, 0, 90)
        before = resident_bytes()

        turns = asyncio.Semaphore(8)

        async def one_match() -> int:
            async with turns:
                return await bots_play_one_hand(server, host, "holy-grail", 3)

        played = await asyncio.gather(*(one_match() for _ in range(MATCHES)))
        assert len(set(played)) == MATCHES  # each socket closed when its match was over

        await until_live_tables_at_most(server, 2, 90)
        assert await metric(server, "cardtable_tables_evicted_total") >= MATCHES
        grown = resident_bytes() - before
        assert grown < 25 * 2**20, f"resident memory grew by {grown / 2**20:.1f} MB"


IDLE: dict[str, Any] = {**QUICK, "idle_table_seconds": 0.5, "table_sweep_seconds": 0.2, "deadline_scale": 0.1}
"""A running match with no socket leaves after half a second; deadlines last a tenth."""


async def start_alone_with_bots(
    host: Person, away_grace: int, turn_timer: int | None = None
) -> tuple[str, int]:
    """Host at seat 0, basic bots at seats 1 and 2, a one-hand Holy Grail match started."""
    body: dict[str, Any] = {"game_id": "holy-grail", "seats": 3, "options": {"hands": 1}}
    if turn_timer is not None:
        body["turn_timer"] = turn_timer
    code = (await host.post("/api/rooms", body, expect=201))["code"]
    await host.http.patch(f"/api/rooms/{code}", json={"away_grace": away_grace})
    await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
    for seat in (1, 2):
        await host.post(f"/api/rooms/{code}/seats/{seat}", {"as": "bot", "level": "basic"})
    return code, (await host.post(f"/api/rooms/{code}/start"))["match"]["id"]


async def until_evicted(server: Server, match_id: int, within: float = 15) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while server.services.tables.live(match_id) is not None:
        assert loop.time() < deadline, "the idle match stayed in memory"
        await asyncio.sleep(0.05)


async def test_an_idle_running_match_leaves_memory_and_comes_back_from_its_log_the_same(
    database_url: str,
) -> None:
    async with running_server(database_url, **IDLE) as server, browser(server, "Ada") as ada:
        code, match_id = await start_alone_with_bots(ada, away_grace=600)
        async with ada.socket(code) as ws:
            before = await ws.wait_state(lambda m: bool(m["legal"].get("0")))
            await asyncio.sleep(1.5)  # watched: it stays however long nobody moves
            assert server.services.tables.live(match_id) is not None
        await until_evicted(server, match_id)
        assert await live_tables(server) == 0
        async with ada.socket(code) as ws:
            after = await ws.wait_state()
        assert server.services.tables.live(match_id) is not None
        assert after["version"] == before["version"]
        assert after["views"] == before["views"] and after["legal"] == before["legal"]
        # And it plays on from there.
        async with ada.socket(code) as ws:
            state = await ws.wait_state()
            await ws.act(0, state["version"], state["legal"]["0"][0])
            moved = await ws.wait_state(lambda m: m["version"] > state["version"])
        assert moved["version"] > before["version"]


@pytest.mark.parametrize("deadline", ["time", "away"])
async def test_a_deadline_of_an_evicted_match_loads_it_and_a_bot_moves_for_the_person(
    database_url: str, deadline: str
) -> None:
    """Nobody is at the table: it leaves memory while it waits for Ada, then her turn timer (60 s,
    here 6 s) or her away grace (60 s, here 6 s) runs out and the bot's move is made all the same."""
    async with running_server(database_url, **IDLE) as server, browser(server, "Ada") as ada:
        timer = 60 if deadline == "time" else None
        _, match_id = await start_alone_with_bots(ada, away_grace=600 if timer else 60, turn_timer=timer)
        await until_evicted(server, match_id)
        assert not stored_marks(database_url, match_id), "the bot moved before the table left memory"
        marks = await _eventually(lambda: stored_marks(database_url, match_id), 20)
    assert {(seat, reason) for _, seat, reason in marks} == {(0, deadline)}
